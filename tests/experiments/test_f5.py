"""Finding F5 at tiny: where the bytes go (page fill, compression, old versions, column families)."""

from __future__ import annotations

import pytest

from minidb.experiments import f5_space as f5
from minidb.experiments.claims import failing

from results_csv import assert_written_whole

pytestmark = pytest.mark.xdist_group("f5")  # its module fixtures run once, on one worker


@pytest.fixture(scope="module")
def runs():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f5.run("tiny", progress=False)


def test_claims_that_must_hold_at_tiny_hold(runs):
    assert failing(f5.claims(runs), "tiny") == []


def test_every_size_configuration_loads_the_same_logical_bytes(runs):
    sizes = runs["sizes"]
    assert list(sizes.config) == list(f5.SIZE_CONFIGS)
    assert sizes.logical_bytes.nunique() == 1


def test_a_full_fill_factor_makes_a_smaller_btree(runs):
    r = f5.ratios(runs)
    assert r["btree fill 100%"] < r["btree"] == 1.0


def test_zstd_at_the_bottom_lands_between_lz4_and_zstd_everywhere(runs):
    r = f5.ratios(runs)
    assert r["lsm zstd"] <= r["lsm lz4 + zstd bottommost"] <= r["lsm lz4"]


def test_random_leaves_are_emptier_than_key_order_leaves_at_every_fill_factor(runs):
    fill = runs["fill"]
    for _, rows in fill.groupby("fill_factor"):
        by_order = rows.groupby("order").leaf_fill.mean()
        assert by_order["random"] < by_order["key order"]


def test_the_space_series_starts_at_one_and_covers_the_run(runs):
    space = runs["space"]
    for engine, rows in space.groupby("engine"):
        assert rows.relative.iloc[0] == 1.0, engine
        assert rows.updated.iloc[-1] == rows.updates.iloc[0], engine


def test_each_column_family_reports_its_own_bytes_and_stats(runs):
    cf = runs["column_families"].iloc[0]
    assert cf.cf1_bytes > cf.cf2_bytes > 0  # the primary key carries the rows
    assert "Compaction Stats [cf1]" in cf.cf1_stats and "Compaction Stats [cf2]" in cf.cf2_stats


def test_the_published_tables_are_all_there():
    pub = f5.published()
    assert {"tpcc", "cloud", "linkbench", "insert_benchmark", "cf_compaction_stats"} <= set(pub)
    assert (pub["cf_compaction_stats"].cf.unique().tolist()) == ["cf1", "cf2"]


def test_compressed_btrees_store_whole_key_blocks_and_count_their_compressions(runs):
    sizes = runs["sizes"].set_index("config")
    for config, kib in (("btree zlib 8K", 8), ("btree zlib 4K", 4)):
        row = sizes.loc[config]
        assert row.data_bytes % (kib * 1024) == 0  # the tablespace is a whole number of key blocks
        assert 0 < row.compress_ops_ok <= row.compress_ops
        assert row.zlib_cpu_seconds > 0
        assert row.pool_compressed_bytes > 0
    assert sizes.loc["btree"].compress_ops == 0 and sizes.loc["btree"].zlib_cpu_seconds == 0


def test_the_column_families_come_from_the_index_comments():
    # cf_point opens the LSM with the families but no keyspace_cf: only the indexes' COMMENT 'cfname=...' can
    # have put the primary key into cf1 and the secondary index into cf2 (else both would be in "default")
    point = f5.cf_point(500)
    assert point["cf1_bytes"] > 0 and point["cf2_bytes"] > 0


# -- the explorable grid: the B+tree's page layout and the LSM's compression -------------------------------------------
def test_the_compression_grid_gives_every_configuration_its_engines_setting_only(runs):
    grid = f5.compression_grid(runs)
    assert len(grid) == len(f5.SIZE_CONFIGS), "the run's own points, no more"
    btree, lsm = grid[grid.engine == "btree"], grid[grid.engine == "lsm"]
    assert btree.lsm_compression.isna().all() and lsm.page_layout.isna().all()
    assert sorted(btree.page_layout) == sorted(p for p, _ in f5.EXPLORE_SETTINGS.values() if p)
    assert sorted(lsm.lsm_compression) == sorted(c for _, c in f5.EXPLORE_SETTINGS.values() if c)
    default = grid[grid.config == "btree"].iloc[0]
    assert default.size_vs_btree == 1.0
    assert grid.set_index("config").size_vs_btree.to_dict() == f5.ratios(runs).to_dict()


def test_the_published_sizes_are_each_over_innodbs_in_the_same_post():
    pub = f5.published_compression()
    assert (pub[pub.engine == "btree"].size_vs_btree == 1.0).all()
    tpcc = pub[pub.post.str.contains("100W")].set_index("lsm_compression").size_vs_btree
    assert tpcc["lz4"] == pytest.approx(21 / 90) and tpcc["none"] == pytest.approx(70 / 90)
    assert set(pub.lsm_compression.dropna()) <= set(c for _, c in f5.EXPLORE_SETTINGS.values() if c)
    assert set(pub.page_layout.dropna()) == {f5.EXPLORE_SETTINGS["btree"][0]}


def test_the_experiment_command_writes_every_row_to_one_csv(runs, tmp_path):
    assert_written_whole(runs, tmp_path / "f5.csv")
