"""sysbench, TPC-C-lite and Linkbench-lite: what each mode does, and the invariants their data keeps."""

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
    result = tpcc(RunSetup(DataSetup(dict_opener, scale="tiny", seed=4)), transactions=150)
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
    s = result.summary
    assert s["ops"] == 150 and 0.3 < s["new_orders"] / 150 < 0.7  # about 45 / 88 of the mix
    payments = 150 - s["new_orders"] - s["rollbacks"]
    assert len(t["history"]) == 10 * 100 + payments  # one row per customer loaded, one per payment
    assert len(t["orders"]) == 10 * 100 + s["new_orders"]  # rolled-back New-Orders left nothing behind


def test_tpcc_last_names_and_the_customer_index(dict_opener):
    assert last_name(0) == "BARBARBAR" and last_name(371) == "PRICALLYOUGHT"
    tpcc(RunSetup(DataSetup(dict_opener, scale="tiny")), transactions=1)
    engine = dict_opener.engines[-1]
    table = Table(engine, SCHEMAS["customer"])
    matches = table.lookup("idx_customer", (1, 1, last_name(7)))
    assert matches and all(c.c_last == last_name(7) for c in matches)


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

    nodes = Payloads(np.random.default_rng(1), 128, 0.63, 1024).make(2000)
    links = Payloads(np.random.default_rng(1), 8, 0.225, 255).make(2000)
    assert np.median([len(p) for p in nodes]) == pytest.approx(128, rel=0.15)
    assert np.median([len(p) for p in links]) == pytest.approx(8, rel=0.25)

    def ratio(payloads):
        data = b"".join(payloads)
        return len(zlib.compress(data)) / len(data)

    assert ratio(links) < ratio(nodes) < 1  # less unique data compresses better


def test_linkbench_small_graphs_load_without_duplicate_links():
    """Regression: with few nodes a heavy-tailed outdegree exceeded the node count and repeated link targets."""
    from minidb.workloads import linkbench

    result = linkbench(RunSetup(), 500, 300)  # loaded a node with over 500 links before the fix
    assert result.summary["ops"] == 300
