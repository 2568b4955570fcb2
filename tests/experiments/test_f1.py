"""Finding F1 at the tiny scale: the experiment's shape, its determinism, and the seed's qualitative claims."""

import pytest

from minidb.experiments import claims
from minidb.experiments import f1_insert_benchmark as f1

from results_csv import assert_written_whole

pytestmark = pytest.mark.xdist_group("f1")  # its module fixtures run once, on one worker

SECONDARIES = ("marketsegment", "registersegment", "pdc")


@pytest.fixture(scope="module")
def runs():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    frame = f1.run("tiny", change_buffer=(True, False), progress=False)
    return frame[frame.change_buffer.isin([True, None])].set_index(["engine", "config"]), frame


@pytest.fixture(scope="module")
def tiny(runs):
    return runs[0]


def test_one_row_per_engine_and_configuration(tiny):
    assert list(tiny.reset_index().columns[:len(f1.COLUMNS)]) == list(f1.COLUMNS)
    assert sorted(tiny.index) == [(e, c) for e in f1.ENGINES for c in f1.CONFIGS]
    assert (tiny.rows == 20_000).all()


def test_caches_are_larger_than_the_data_in_memory_and_a_few_percent_of_it_io_bound(tiny):
    for engine in f1.ENGINES:
        # The data's bytes, not the files': the in-memory B+tree's files also hold its redo log, and its tablespace
        # has room for every page allocated, written back or not.
        assert tiny.loc[(engine, "in-memory"), "cache_bytes"] > f1.estimated_db_bytes(tiny.rows.iloc[0])
        io_bound = tiny.loc[(engine, "io-bound")]
        assert io_bound.cache_bytes < 0.1 * io_bound.db_bytes


def test_btree_reads_per_insert_only_when_io_bound(tiny):
    assert tiny.loc[("btree", "in-memory"), "reads_per_op"] == 0
    io_bound = tiny.loc[("btree", "io-bound")]
    assert io_bound.foreground_reads_per_op > 0.1
    for name in SECONDARIES:  # the reads are secondary index leaves, not the PK-ordered primary index
        assert io_bound[f"reads_per_op_{name}"] > 10 * io_bound.reads_per_op_primary


def test_lsm_secondary_index_maintenance_reads_nothing_and_its_rate_holds(tiny):
    for config in f1.CONFIGS:
        lsm = tiny.loc[("lsm", config)]
        assert all(lsm[f"reads_per_op_{name}"] == 0 for name in SECONDARIES)
        # ...and every block it reads in the foreground is its primary key's (the uniqueness check), counted by tag
        assert lsm.reads_per_op_primary == pytest.approx(lsm.foreground_reads_per_op)
        # what the LSM reads in the foreground is the primary key's uniqueness check: a few blocks per 100 rows
        assert lsm.foreground_reads_per_op < 0.1 * tiny.loc[("btree", "io-bound"), "foreground_reads_per_op"]
    lsm_drop = tiny.loc[("lsm", "in-memory"), "ops_per_sec"] / tiny.loc[("lsm", "io-bound"), "ops_per_sec"]
    btree_drop = tiny.loc[("btree", "in-memory"), "ops_per_sec"] / tiny.loc[("btree", "io-bound"), "ops_per_sec"]
    assert lsm_drop < 1.25 and btree_drop >= 2  # F1: the LSM keeps its rate, the B+tree loses half or more
    assert tiny.loc[("lsm", "io-bound"), "wkb_per_op"] < tiny.loc[("btree", "io-bound"), "wkb_per_op"]


def test_the_change_buffer_saves_reads(runs):
    btree = runs[1].query("engine == 'btree' and config == 'io-bound'").set_index("change_buffer")
    assert btree.loc[False, "reads_per_op"] > 2 * btree.loc[True, "reads_per_op"] > 0
    assert btree.loc[False, "ops_per_sec"] < btree.loc[True, "ops_per_sec"]


def test_same_seed_same_numbers():
    a = f1.run_point("lsm", "io-bound", 3000, seed=7)
    b = f1.run_point("lsm", "io-bound", 3000, seed=7)
    assert a == b
    assert f1.run_point("btree", "in-memory", 3000, seed=7) == f1.run_point("btree", "in-memory", 3000, seed=7)
    assert f1.run_point("lsm", "io-bound", 3000, seed=8) != a


def test_in_memory_the_btree_writes_pages_because_its_log_wraps(tiny):
    mem = tiny.loc[("btree", "in-memory")]
    assert mem.log_wraps > 1 and mem.redo_pages_per_op > 0 and mem.stalled_share > 0
    assert mem.redo_pages_per_op <= mem.page_writes_per_op and mem.sync_flush_pages_per_op <= mem.redo_pages_per_op
    assert mem.wkb_per_op == pytest.approx(  # + checkpoints
        mem.log_wkb_per_op + mem.page_wkb_per_op + mem.binlog_kb_per_op, rel=0.05)
    for config in f1.CONFIGS:  # an LSM has no redo log to wrap, and writes no page for one
        lsm = tiny.loc[("lsm", config)]
        assert lsm.redo_pages_per_op == 0 and lsm.log_wraps != lsm.log_wraps  # NaN


def test_the_redo_log_is_scaled_like_the_caches():
    rows = 20_000_000  # large enough that no floor applies
    for config, cache_gb in (("in-memory", 190), ("io-bound", 35)):
        ratio = f1.redo_log_bytes(config, rows) / f1.cache_bytes("btree", config, rows)
        assert ratio == pytest.approx(4 * 2**30 / (cache_gb * 1e9), rel=1e-6)  # the post's log over its cache
    assert f1.redo_log_bytes("in-memory", 10) == 64 * 16384  # the engine's smallest log
    with pytest.raises(ValueError, match="configuration 'warm'"):
        f1.redo_log_bytes("warm", 100)


def test_a_larger_redo_log_forces_fewer_page_writes():
    sweep = f1.redo_sweep("tiny", factors=(1, 16), cache_dir=False, progress=False)
    small_log, large_log = sweep.iloc[0], sweep.iloc[1]
    assert large_log.redo_log_bytes == 16 * small_log.redo_log_bytes
    assert large_log.redo_pages_per_op < small_log.redo_pages_per_op
    assert large_log.wkb_per_op < small_log.wkb_per_op and large_log.stalled_share < small_log.stalled_share


def test_published_rows_use_the_same_columns_and_units():
    pub = f1.published().set_index(["engine", "config"])
    assert pub.loc[("MyRocks", "io-bound"), "ops_per_sec"] == 115_234
    assert pub.loc[("InnoDB-5.7", "io-bound"), "wkb_per_op"] == 13.38
    assert pub.loc[("InnoDB-5.7", "io-bound"), "db_bytes"] == 362e9
    assert set(pub.columns) <= set(f1.COLUMNS)


def test_bad_configuration_is_a_clear_error():
    with pytest.raises(ValueError, match="configuration 'warm'"):
        f1.cache_bytes("btree", "warm", 100)
    with pytest.raises(ValueError, match="engine 'heap'"):
        f1.cache_bytes("heap", "io-bound", 100)


def test_every_claim_that_must_hold_at_tiny_holds_and_the_others_say_why(runs):
    found = f1.claims(runs[1])
    assert claims.failing(found, "tiny") == []
    assert all(c.reason for c in found if not c.holds)  # a claim shown as not reproduced gives its reason


def test_the_change_buffer_claim_needs_a_run_with_it_off(runs):
    with_off, only_on = f1.claims(runs[1]), f1.claims(runs[1][runs[1].change_buffer.isin([True, None])])
    assert len(with_off) == len(only_on) + 1 and "change buffer" in with_off[-1].claim


def test_at_a_fixed_cache_the_btree_reads_more_per_insert_as_the_table_grows(runs):
    grown = f1.growth_of(runs[1])
    assert list(grown.rows) == [f * f1.GROWTH_BASE_ROWS["tiny"] for f in f1.GROWTH_FACTORS]
    assert grown.cache_bytes.nunique() == 1  # one cache for every table size
    assert grown.db_over_cache.is_monotonic_increasing and grown.reads_per_insert.is_monotonic_increasing
    claim = next(c for c in f1.claims(runs[1]) if "fixed cache" in c.claim)
    assert claim.ours == grown.reads_per_insert.iloc[-1] / grown.reads_per_insert.iloc[0] and claim.holds


def test_the_growth_claim_needs_a_run_with_the_growth_sweep(runs):
    bare = runs[1].copy()
    bare.attrs = {}
    assert not any("fixed cache" in c.claim for c in f1.claims(bare))


# -- the explorable grid: caches as a share of the data, the change buffer on and off -------------------------------
@pytest.fixture(scope="module")
def cache_grid():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f1.cache_grid("tiny", progress=False, executor=False)


def test_the_cache_grid_has_every_engine_cache_and_change_buffer_setting(cache_grid):
    pcts = f1.CACHE_GRIDS["tiny"].cache_pcts
    assert len(cache_grid) == 3 * len(pcts)
    for (engine, cb), line in cache_grid.groupby(["engine", cache_grid.change_buffer.astype(str)]):
        assert list(line.cache_pct) == list(pcts), (engine, cb)
    assert set(cache_grid[cache_grid.engine == "lsm"].change_buffer) == {None}, "an LSM has no change buffer"
    assert (cache_grid.rows == f1.CACHE_GRIDS["tiny"].rows).all()
    assert cache_grid.cache_of_db_pct.tolist() == pytest.approx(
        (100 * cache_grid.cache_bytes / cache_grid.db_bytes).tolist())


def test_the_btree_reads_more_as_its_cache_shrinks_and_more_still_without_the_change_buffer(cache_grid):
    btree = cache_grid[cache_grid.engine == "btree"]
    on = btree[btree.change_buffer == True].set_index("cache_pct").foreground_reads_per_op  # noqa: E712
    off = btree[btree.change_buffer == False].set_index("cache_pct").foreground_reads_per_op  # noqa: E712
    assert on.is_monotonic_decreasing and on.iloc[0] > 0 and on.iloc[-1] == 0
    assert (off >= on).all() and off.iloc[0] > 2 * on.iloc[0]


def test_the_lsms_inserts_read_the_same_at_every_cache(cache_grid):
    lsm = cache_grid[cache_grid.engine == "lsm"]
    assert lsm.foreground_reads_per_op.nunique() == 1


@pytest.mark.parametrize("scale", sorted(f1.CACHE_GRIDS))
def test_the_smallest_cache_of_each_grid_still_gives_the_btree_its_minimum_pool(scale):
    from minidb.btree.options import MIN_POOL_FRAMES, BTreeOptions

    grid = f1.CACHE_GRIDS[scale]
    smallest = int(min(grid.cache_pcts) / 100 * f1.estimated_db_bytes(grid.rows))
    assert smallest >= MIN_POOL_FRAMES * BTreeOptions().page_size


def test_the_published_caches_are_shares_of_each_engines_database():
    from minidb import data

    pub = f1.published_cache_shares().set_index(["engine", "config"]).cache_of_db_pct
    caches = data.load("insert_benchmark_caches").set_index(["config", "engine"]).cache_gb
    sizes = data.load("insert_benchmark_size").set_index("engine").size_gb
    for ours, cache_name, size_name in (("InnoDB-5.7", "InnoDB", "InnoDB-5.7.10"), ("MyRocks", "RocksDB", "MyRocks")):
        assert pub[ours, "io-bound"] == pytest.approx(100 * caches["io-bound", cache_name] / sizes[size_name])
        # in memory: one cache size for all, and a quarter of the rows (500m of 2b), so a quarter of the size
        assert pub[ours, "in-memory"] == pytest.approx(100 * caches["in-memory", "all"] / (sizes[size_name] / 4))


def test_the_experiment_command_writes_every_row_to_one_csv(runs, tmp_path):
    assert_written_whole(runs[1], tmp_path / "f1.csv")


def test_every_figure_of_the_seeds_table_has_a_claim(runs):
    # Seed 000 gives each engine's rate and KB read and written per insert in both configurations: each is a claim.
    named = " | ".join(c.claim for c in f1.claims(runs[1]))
    for engine, config in [(e, c) for e in ("B+tree", "LSM") for c in ("In memory", "IO-bound")]:
        assert f"{config} the {engine} inserts as many rows per second as" in named
    for words in ("IO-bound the B+tree reads KB per insert", "IO-bound the LSM reads KB per insert",
                  "In memory the B+tree reads nothing", "In memory the LSM reads nothing",
                  "In memory the B+tree writes KB per insert", "IO-bound the B+tree writes KB per insert",
                  "In memory the LSM writes KB per insert", "IO-bound the LSM writes KB per insert"):
        assert words in named


def test_the_page_cache_serves_the_in_memory_lsms_reads_and_none_of_the_btrees(tiny):
    rows = int(tiny.rows.iloc[0])
    # seed 000's RAM less the caches: in memory it holds the LSM's whole database, so its device reads nothing
    mem = tiny.loc[("lsm", "in-memory")]
    assert mem.rkb_per_op == 0 and mem.page_cache_rkb_per_op > 0
    assert f1.page_cache_bytes("lsm", "in-memory", rows) > f1.estimated_db_bytes(rows)
    # IO-bound it is smaller than the database: it serves some compaction reads, and the device reads the rest
    io_bound = tiny.loc[("lsm", "io-bound")]
    assert io_bound.rkb_per_op > 0 and io_bound.page_cache_rkb_per_op > 0
    assert 0 < f1.page_cache_bytes("lsm", "io-bound", rows) < 0.25 * f1.estimated_db_bytes(rows)
    # InnoDB's files are opened with O_DIRECT: the B+tree reads nothing through it
    assert (tiny.loc["btree"].page_cache_rkb_per_op == 0).all()


def test_the_page_cache_is_the_rams_rest_beside_the_cache_the_run_has():
    rows = 20_000
    ram = f1.page_cache_bytes("lsm", "io-bound", rows, cache=0)
    assert f1.page_cache_bytes("lsm", "io-bound", rows) == ram - f1.cache_bytes("lsm", "io-bound", rows)
    assert f1.page_cache_bytes("lsm", "io-bound", rows, cache=ram + 1) == 0  # a cache of all the RAM leaves none
    assert f1.page_cache_bytes("lsm", None, rows) == 0  # the cache grid: the cache is all the memory
