"""Finding F4 at the tiny scale: TPC-C on both engines on the cloud volumes of seed 003."""

import pytest

from minidb import engines, scales
from minidb.experiments import claims
from minidb.experiments import f4_cloud_iops as f4
from minidb.workloads.tpcc import estimated_db_bytes

from results_csv import assert_written_whole

pytestmark = pytest.mark.xdist_group("f4")  # its module fixtures run once, on one worker


@pytest.fixture(scope="module")
def tiny():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f4.run("tiny", progress=False)


def tps(frame, engine, volume_type, iops):
    rows = frame[(frame.engine == engine) & (frame.volume_type == volume_type) & (frame.iops == iops)]
    assert len(rows) == 1
    return rows.tps.iloc[0]


def test_one_row_per_engine_and_volume_with_the_columns_in_order(tiny):
    assert list(tiny.columns) == list(f4.COLUMNS)
    assert len(tiny) == len(f4.ENGINES) * len(f4.VOLUMES)


def test_every_run_writes_the_posts_binary_log_in_groups(tiny):
    # The post's my.cnf: log-bin, synced every 1000 commits; a group of commits is one write, so a transaction
    # costs a fraction of a binlog write, never more than its writes.
    assert f4.BINLOG == {"binlog": True, "sync_binlog": 1000}
    assert (tiny.binlog_writes_per_txn > 0).all()
    assert (tiny.binlog_writes_per_txn < 1).all()
    assert (tiny.binlog_writes_per_txn < tiny.writes_per_txn).all()


def test_the_lsms_wal_is_synced_once_per_group_of_commits(tiny):
    # With the binary log on, MySQL 5.7's flush stage syncs the engines' logs once for a group of commits: the LSM's
    # WAL costs a fraction of a write per transaction (a group, and a new WAL at each sealed memtable); the B+tree's
    # redo log writes more, as pages written back need it durable first (the write-ahead rule).
    lsm = tiny[tiny.engine == "lsm"]
    assert (lsm.log_writes_per_txn > 0).all() and (lsm.log_writes_per_txn < 0.5).all()
    assert (tiny.log_writes_per_txn < tiny.writes_per_txn).all()


@pytest.mark.parametrize("engine", f4.ENGINES)
def test_throughput_grows_with_the_iops_bought(engine, tiny):
    io1 = tiny[(tiny.engine == engine) & (tiny.volume_type == "io1")].sort_values("iops")
    assert io1.tps.is_monotonic_increasing
    # While the IOPS are the bottleneck, twice the IOPS buy about twice the transactions (seed 003: 286 / 133).
    assert tps(tiny, engine, "io1", 10000) / tps(tiny, engine, "io1", 5000) == pytest.approx(2, rel=0.1)


def test_the_btree_hits_gp2s_bandwidth_cap(tiny):
    # Seed 003: InnoDB makes 227 TPS on gp2 and 286 on io1, both 10,000 IOPS; gp2 moves 160 MB/s, io1 500.
    assert tps(tiny, "btree", "gp2", 10000) < 0.95 * tps(tiny, "btree", "io1", 10000)
    gp2 = tiny[(tiny.engine == "btree") & (tiny.volume_type == "gp2")].iloc[0]
    assert gp2.bottleneck == "bandwidth" and gp2.mb_per_sec == pytest.approx(160 * 1e6 / 2**20, rel=0.05)


def test_the_lsm_needs_fewer_iops_for_the_same_throughput(tiny):
    # Seed 003: MyRocks makes 3.6 times InnoDB's TPS on 5,000 IOPS (481 vs 133), as much as InnoDB on 15,000.
    assert tps(tiny, "lsm", "io1", 5000) > 1.5 * tps(tiny, "btree", "io1", 5000)
    cost = tiny.set_index(["engine", "volume_type", "iops"]).usd_per_year_per_ktps
    assert (cost["lsm"] < cost["btree"]).all()


def test_published_has_the_seed_table_and_its_costs():
    pub = f4.published()
    assert set(pub.columns) <= set(f4.COLUMNS)
    assert {engines.kind_of(name) for name in pub.engine} == set(engines.NAMES)
    row = pub[(pub.engine == "InnoDB") & (pub.volume_type == "io1") & (pub.iops == 5000)].iloc[0]
    assert row.tps == pytest.approx(132.66) and row.usd_per_year == 7881 + 5400
    assert row.tps_vs_btree_best == pytest.approx(132.66 / 753.86)
    assert row.usd_per_year_per_ktps == pytest.approx((7881 + 5400) / 0.13266)
    assert sorted(zip(pub.volume_type, pub.iops)) == sorted(f4.VOLUMES * 2)


def test_the_btrees_redo_log_is_the_posts_share_of_the_data():
    # The post's my.cnf: 2 x 4 GB of redo for 471 GB of InnoDB data, scaled like the cache; the LSM has no redo log.
    size = scales.tpcc("small")
    btree = f4.data_setup("btree", size.warehouses, "small").engine_options
    share = btree["redo_log_bytes"] / estimated_db_bytes(size.warehouses, "small")
    assert share == pytest.approx(8 * 2**30 / 471e9, rel=1e-3)
    assert "redo_log_bytes" not in f4.data_setup("lsm", size.warehouses, "small").engine_options
    assert f4.data_setup("btree", 1, "tiny").engine_options["redo_log_bytes"] == scales.MIN_REDO_BYTES


def test_same_seed_same_numbers(tiny):
    assert f4.run("tiny", cache_dir=False, progress=False).equals(tiny)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="unknown engine 'heap'"):
        f4.run_point("heap", "io1", 5000, 1, 10, "tiny")
    with pytest.raises(ValueError, match="unknown volume type 'st1'"):
        f4.volume("st1", 500)
    with pytest.raises(ValueError, match="gp2 volume has 10000 IOPS, not 3000"):
        f4.volume("gp2", 3000)


def test_every_claim_that_must_hold_at_tiny_holds_and_the_others_say_why(tiny):
    found = f4.claims(tiny)
    assert claims.failing(found, "tiny") == []
    assert all(c.reason for c in found if not c.holds)  # a claim shown as not reproduced gives its reason


def test_the_experiment_command_writes_every_row_to_one_csv(tiny, tmp_path):
    assert_written_whole(tiny, tmp_path / "f4.csv")


@pytest.mark.parametrize("engine", ["btree", "lsm"])
def test_the_io_claims_say_what_share_of_the_requests_were_item_rows(engine, tiny):
    # TPC-C-lite's one item table is a far larger part of its data than in the post: the reasons count its cost.
    row = tiny[(tiny.engine == engine) & (tiny.volume_type == "io1") & (tiny.iops == f4.LEAST_IOPS)].iloc[0]
    ios = row.reads_per_txn + row.writes_per_txn
    assert 0 < row.item_reads_per_txn < ios
    name = "B+tree" if engine == "btree" else "LSM"
    (claim,) = [c for c in f4.claims(tiny) if f"costs the {name} about as many IOs" in c.claim]
    assert f"{row.item_reads_per_txn / ios:.0%}" in claim.reason and "item" in claim.reason


@pytest.mark.parametrize("engine", ["btree", "lsm"])
def test_the_posts_tps_on_the_smallest_and_largest_volume_have_claims(engine, tiny):
    name, word = ("InnoDB", "B+tree") if engine == "btree" else ("MyRocks", "LSM")
    for iops in (f4.LEAST_IOPS, f4.MOST_IOPS):
        (claim,) = [c for c in f4.claims(tiny) if c.claim.startswith(f"On {iops:,} io1 IOPS the {word} makes")]
        assert claim.published == tps(f4.published(), name, "io1", iops)
        assert claim.ours == tps(tiny, engine, "io1", iops)
        assert "IO requests per transaction" in claim.reason
