"""sysbench, TPC-C and Linkbench-lite: what each mode does, and the invariants their data keeps."""

from collections import Counter

import pytest

import numpy as np

from minidb.keycodec import decode_key
from minidb.table import Table
from minidb.workloads import DataSetup, RunSetup, linkbench, sysbench, tpcc
from minidb.workloads.linkbench import COUNTS, LINKS, OPERATIONS, VISIBLE, Payloads
from minidb.workloads.sysbench import schema as sbtest
from minidb.workloads.tpcc import SCHEMAS, last_name


def rows_of(engine, schema):
    return list(Table(engine, schema).scan())


# -- sysbench ---------------------------------------------------------------------------------------------------------
def test_sysbench_point_select_writes_nothing(dict_opener):
    s = sysbench(RunSetup(DataSetup(dict_opener)), 1000, 200, mode="point-select").summary
    assert s["wkb_per_op"] == 0 and s["writes_per_op"] == 0 and s["rows"] == 1000


def test_sysbench_insert_appends_rows(dict_opener):
    s = sysbench(RunSetup(DataSetup(dict_opener)), 1000, 150, mode="insert", tables=2).summary
    assert s["rows"] == 2150
    engine = dict_opener.engines[-1]
    for t in ("sbtest1", "sbtest2"):
        ids = [decode_key(k)[0] for k in engine.data[f"{t}.primary"].keys()]
        assert ids == list(range(1, len(ids) + 1)) and len(ids) > 1000  # auto-increment ids after the loaded ones


def test_sysbench_update_index_moves_k_entries(dict_opener):
    sysbench(RunSetup(DataSetup(dict_opener, seed=2)), 500, 100, mode="update-index")
    engine = dict_opener.engines[-1]
    table = rows_of(engine, sbtest(1))
    assert sum(r.k for r in table) > 0
    index = sorted(decode_key(k) for k in engine.data["sbtest1.k_1"].keys())
    assert index == sorted((r.k, r.id) for r in table)  # every update kept the index in step with the rows


def test_sysbench_read_write_keeps_the_row_count_and_values_shaped(dict_opener):
    s = sysbench(RunSetup(DataSetup(dict_opener)), 500, 50, mode="read-write").summary
    assert s["rows"] == 500
    engine = dict_opener.engines[-1]
    rows = rows_of(engine, sbtest(1))
    assert len(rows) == 500
    for r in rows[:20]:
        assert len(r.c) == 119 and len(r.pad) == 59 and r.c.count("-") == 9


# -- TPC-C ------------------------------------------------------------------------------------------------------------
def test_tpcc_keeps_the_consistency_conditions(dict_opener):
    result = tpcc(RunSetup(DataSetup(dict_opener, scale="tiny", seed=4)), transactions=300)
    engine = dict_opener.engines[-1]
    t = {name: rows_of(engine, s) for name, s in SCHEMAS.items()}
    for w in t["warehouse"]:  # condition 1: W_YTD = sum(D_YTD)
        assert w.w_ytd == pytest.approx(sum(d.d_ytd for d in t["district"] if d.d_w_id == w.w_id))
    orders = Counter((o.o_w_id, o.o_d_id) for o in t["orders"])
    for d in t["district"]:  # condition 2: D_NEXT_O_ID - 1 = max(O_ID) = number of orders
        assert d.d_next_o_id - 1 == orders[d.d_w_id, d.d_id]
        assert max(o.o_id for o in t["orders"] if (o.o_w_id, o.o_d_id) == (d.d_w_id, d.d_id)) == d.d_next_o_id - 1
    lines = Counter((ol.ol_w_id, ol.ol_d_id, ol.ol_o_id) for ol in t["order_line"])
    assert all(lines[o.o_w_id, o.o_d_id, o.o_id] == o.o_ol_cnt for o in t["orders"])  # condition 4
    new = {(n.no_w_id, n.no_d_id, n.no_o_id) for n in t["new_orders"]}
    for o in t["orders"]:  # condition 5: an order is new exactly when it has no carrier (Delivery sets one)
        assert ((o.o_w_id, o.o_d_id, o.o_id) in new) == (o.o_carrier_id is None)
    s = result.summary
    kinds = s["by_type"]
    assert s["ops"] == 300 == sum(kinds.values())
    assert 0.33 < kinds["new_order"] / 300 < 0.54 and 0.33 < kinds["payment"] / 300 < 0.54  # 10 / 23 each
    assert all(kinds[k] > 0 for k in ("order_status", "delivery", "stock_level"))  # 1 / 23 each
    assert s["new_orders"] == kinds["new_order"] - s["rollbacks"]
    assert len(t["history"]) == 10 * 100 + kinds["payment"]  # one row per customer loaded, one per payment
    assert len(t["orders"]) == 10 * 100 + s["new_orders"]  # rolled-back New-Orders left nothing behind
    delivered = sum(ol.ol_delivery_d is not None for ol in t["order_line"])
    assert delivered > sum(lines[o.o_w_id, o.o_d_id, o.o_id] for o in t["orders"] if o.o_id <= 70)  # Delivery ran


def test_tpcc_last_names_and_the_customer_index(dict_opener):
    assert last_name(0) == "BARBARBAR" and last_name(371) == "PRICALLYOUGHT"
    tpcc(RunSetup(DataSetup(dict_opener, scale="tiny")), transactions=1)
    engine = dict_opener.engines[-1]
    table = Table(engine, SCHEMAS["customer"])
    matches = table.lookup("idx_customer", (1, 1, last_name(7)))
    assert matches and all(c.c_last == last_name(7) for c in matches)


def test_tpcc_builds_sysbench_tpccs_six_indexes_and_keeps_them_in_step(dict_opener):
    tpcc(RunSetup(DataSetup(dict_opener, scale="tiny", seed=2)), transactions=100)
    engine = dict_opener.engines[-1]
    stock, lines = rows_of(engine, SCHEMAS["stock"]), rows_of(engine, SCHEMAS["order_line"])
    assert sorted(decode_key(k) for k in engine.data["stock.fkey_stock_2"].keys()) == sorted(
        (s.s_i_id, s.s_w_id) for s in stock)
    assert sorted(decode_key(k) for k in engine.data["order_line.fkey_order_line_2"].keys()) == sorted(
        (ol.ol_supply_w_id, ol.ol_i_id, ol.ol_w_id, ol.ol_d_id, ol.ol_o_id, ol.ol_number) for ol in lines)
    names = {i.name for s in SCHEMAS.values() for i in s.indexes}
    assert names == {"idx_customer", "idx_orders", "fkey_stock_2", "fkey_order_line_2", "fkey_history_1",
                     "fkey_history_2"}


def test_tpcc_values_are_sysbench_tpccs_and_compress_as_the_posts_did():
    import zlib

    from minidb.workloads.tpcc_load import sample_rows

    rows = dict(sample_rows())
    customer, stock = rows["customer"][0], rows["stock"][0]
    c_data, s_dist = customer[-1], stock[3]
    assert 300 <= len(c_data) <= 500 and len(set(c_data)) == 1  # one random letter, repeated
    assert len(s_dist) == 240 and all(len(set(s_dist[i:i + 24])) == 1 for i in range(0, 240, 24))
    assert customer[3].startswith("first-") and customer[6].startswith("street1-")
    assert rows["item"][0][2].startswith("item-") and rows["item"][0][4].startswith("data-item-")
    text = "".join(str(v) for r in rows["customer"] + rows["stock"] for v in r).encode()
    assert len(zlib.compress(text)) < len(text) / 3  # MyRocks's LZ4 stored seed 001's 70 GB in 21 GB


def test_tpcc_mix_is_sysbench_tpccs():
    from minidb.workloads.tpcc_transactions import kinds

    drawn = Counter(kinds(np.random.default_rng(1), 23_000))
    for kind, share in (("new_order", 10), ("payment", 10), ("order_status", 1), ("delivery", 1),
                        ("stock_level", 1)):
        assert drawn[kind] / 23_000 == pytest.approx(share / 23, rel=0.1)


# -- Linkbench --------------------------------------------------------------------------------------------------------
def test_linkbench_counts_match_the_visible_links(dict_opener):
    linkbench(RunSetup(DataSetup(dict_opener, seed=2)), 400, 600)
    engine = dict_opener.engines[-1]
    visible = Counter((link.id1, link.link_type) for link in rows_of(engine, LINKS) if link.visibility == VISIBLE)
    counts = {(c.id, c.link_type): c.count for c in rows_of(engine, COUNTS)}
    assert {k: v for k, v in counts.items() if v} == dict(visible)


def test_linkbench_mix_follows_fbworkload(dict_opener):
    s = linkbench(RunSetup(DataSetup(dict_opener, seed=1)), 300, 3000).summary
    assert sum(s[f"{op}_requests"] for op in OPERATIONS) == 3000
    assert s["get_link_list_requests"] / 3000 == pytest.approx(0.507, abs=0.04)
    assert s["add_link_requests"] / 3000 == pytest.approx(0.09, abs=0.02)


def test_linkbench_payloads_have_their_median_and_compressibility():
    import zlib

    nodes = Payloads(np.random.default_rng(1), 128, 0.63, (50, 220), 1024).make(4000)
    links = Payloads(np.random.default_rng(1), 8, 0.225, (32, 100), 255).make(20000)
    # LogNormalDistribution with sigma 1: the median as configured, the mean e^0.5 times it
    assert np.median([len(p) for p in nodes]) == pytest.approx(128, rel=0.1)
    assert np.median([len(p) for p in links]) == pytest.approx(8, rel=0.15)
    assert np.mean([len(p) for p in links]) == pytest.approx(8 * np.exp(0.5), rel=0.1)

    def ratio(payloads):
        data = b"".join(payloads)
        return len(zlib.compress(data)) / len(data)

    # FBWorkload.properties: "Default settings give ~30% compression ratio" (links), "~60%" (nodes)
    assert ratio(links) == pytest.approx(0.30, abs=0.06) and ratio(nodes) == pytest.approx(0.60, abs=0.06)


def test_linkbench_payload_generators_each_keep_their_own_motif():
    import zlib

    payloads = Payloads(np.random.default_rng(1), 8, 0.225, (32, 100), 255)
    one = b"".join(payloads.make(4000, "a"))
    many = b"".join(b"".join(payloads.make(1, client)) for _ in range(250) for client in range(16))

    def in_blocks(data, block=16384):  # compressed as an SST's 16 KiB blocks are, each on its own
        return sum(len(zlib.compress(data[i:i + block])) for i in range(0, len(data), block)) / len(data)

    # 16 clients' payloads side by side meet 16 motifs in a block, where one generator's meet one
    assert in_blocks(many) > 1.5 * in_blocks(one)


def test_linkbench_small_graphs_load_without_duplicate_links():
    """Regression: with few nodes a heavy-tailed outdegree exceeded the node count and repeated link targets."""
    from minidb.workloads import linkbench

    result = linkbench(RunSetup(), 500, 300)  # loaded a node with over 500 links before the fix
    assert result.summary["ops"] == 300
