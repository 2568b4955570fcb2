"""The engine factory, the scales, the random distributions and the driver's device models and results."""

import dataclasses
import math
import sys
import types

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb import data, scales
from minidb.storage import SimDevice, preset
from minidb.sim import Host
from minidb.workloads import DataSetup, Driver, RunSetup
from minidb.workloads.distributions import (DIGITS, IntStream, TextStream, Zipf, nurand, random_strings, scramble,
                                            sysbench_pattern)
from minidb.workloads.driver import device_model
from minidb import engines
from minidb.engines import REGISTRY, open_engine


# -- the engine factory -----------------------------------------------------------------------------------------------
def test_an_opener_gets_the_cache_size_the_clock_and_the_options(dict_opener):
    sizes = scales.engine_sizes("lsm", 1e6, scales.INSERT_BENCHMARK, cache_bytes=12345)
    clock = object()
    engine = open_engine(dict_opener, SimDevice(), sizes, clock=clock, flush_bytes=999)
    assert engine.cache_bytes == 12345 and engine.clock is clock and engine.flush_bytes == 999


def test_named_engines_map_the_scale_sizes_to_their_options(monkeypatch):
    calls = []

    def fake_open(device, **kwargs):
        calls.append(kwargs)
        return "engine"

    module = types.ModuleType("fake_engine_module")
    module.open_fake = fake_open
    monkeypatch.setitem(sys.modules, "fake_engine_module", module)
    fake = dataclasses.replace(REGISTRY["lsm"], name="fake", module="fake_engine_module", function="open_fake")
    monkeypatch.setitem(REGISTRY, "fake", fake)
    sizes = scales.engine_sizes("lsm", 1e9, scales.INSERT_BENCHMARK)
    assert open_engine("fake", SimDevice(), sizes, clock="c", memtable_bytes=1) == "engine"
    assert calls[0]["block_cache_bytes"] == sizes.cache_bytes
    assert calls[0]["memtable_bytes"] == 1  # the caller's option wins over the scale's
    assert calls[0]["clock"] == "c" and calls[0]["max_bytes_for_level_base"] == sizes.level_base_bytes
    assert calls[0]["target_file_size_base"] == sizes.target_file_bytes and calls[0]["block_size"] == 16384
    btree = REGISTRY["btree"].size_options(sizes)
    assert btree == {"buffer_pool_bytes": sizes.cache_bytes, "page_size": 16384,
                     "redo_log_bytes": sizes.redo_log_bytes}
    no_redo = scales.engine_sizes("btree", 1e9, scales.SYSBENCH)  # its post gives no redo log: the engine's default
    assert no_redo.redo_log_bytes is None and "redo_log_bytes" not in REGISTRY["btree"].size_options(no_redo)


def test_unknown_or_missing_engines_are_clear_errors(monkeypatch):
    sizes = scales.engine_sizes("lsm", 1e6, scales.INSERT_BENCHMARK)
    with pytest.raises(ValueError, match="unknown engine 'rocks'"):
        open_engine("rocks", SimDevice(), sizes, clock=None)
    with pytest.raises(ValueError, match="unknown engine 'rocks': use one of btree, lsm"):
        engines.get("rocks")
    ghost = dataclasses.replace(REGISTRY["lsm"], name="ghost", module="minidb.no_such_module", function="open_ghost")
    monkeypatch.setitem(REGISTRY, "ghost", ghost)
    with pytest.raises(ValueError, match="engine 'ghost' is not available"):
        open_engine("ghost", SimDevice(), sizes, clock=None)


def test_the_registry_knows_each_engines_files_presets_and_features():
    from minidb.btree.tablespace import FILE
    from minidb.lsm.version_set import CURRENT

    assert engines.detect(["LOG", CURRENT, "000004.sst"]) == "lsm"
    assert engines.detect([FILE, "ib_logfile0"]) == "btree"
    assert engines.detect(["notes.txt"]) is None
    assert engines.get("btree").preset("no-sync") == {"redo_sync": "none"}
    assert engines.get("lsm").preset("sync-on-commit") == {"wal_sync": "write"}
    with pytest.raises(ValueError, match="no preset 'fast'; presets: no-sync, sync-on-commit"):
        engines.get("lsm").preset("fast")
    assert engines.get("btree").supported(doublewrite=False, compression="lz4") == {"doublewrite": False}
    assert engines.get("lsm").supported(doublewrite=False, compression="lz4") == {"compression": "lz4"}
    assert engines.get("lsm").cache_options(None) == {}
    assert engines.get("btree").cache_options(1 << 20) == {"buffer_pool_bytes": 1 << 20}
    assert engines.sized_as("lsm") == "lsm" and engines.sized_as(print) == engines.OPENER_SIZED_AS


# -- scales -----------------------------------------------------------------------------------------------------------
def test_scale_comes_from_the_argument_then_the_environment(monkeypatch):
    monkeypatch.delenv("MINIDB_SCALE", raising=False)
    assert scales.current() == "small"
    monkeypatch.setenv("MINIDB_SCALE", "tiny")
    assert scales.current() == "tiny" and scales.insert_benchmark().rows == 20_000
    assert scales.current("large") == "large"
    monkeypatch.setenv("MINIDB_SCALE", "huge")
    with pytest.raises(ValueError, match=r"unknown \$MINIDB_SCALE 'huge': choose one of tiny, small, large"):
        scales.current()
    with pytest.raises(ValueError, match="unknown scale 'x'"):
        scales.sysbench("x")


@pytest.mark.parametrize("sizes, fields", [
    (scales.insert_benchmark, ["rows"]),
    (scales.sysbench, ["table_size", "transactions"]),
    (scales.tpcc, ["warehouses", "items", "customers_per_district", "transactions"]),
    (scales.linkbench, ["nodes", "requests"]),
])
def test_sizes_grow_with_the_scale(sizes, fields):
    tiny, small, large = (sizes(s) for s in scales.SCALES)
    for field in fields:
        assert getattr(tiny, field) < getattr(small, field) <= getattr(large, field), field


def test_engine_sizes_keep_the_reference_ratios():
    ref = scales.INSERT_BENCHMARK
    db = ref.db_bytes / 1000  # a thousandth of seed 000's database
    lsm, btree = scales.engine_sizes("lsm", db, ref), scales.engine_sizes("btree", db, ref)
    # both caches over MyRocks's 226 GB, the size db_bytes is (a B+tree of the same rows ends 1.6x larger)
    assert lsm.cache_bytes == int(db * 10 / 226) and btree.cache_bytes == int(db * 35 / 226)
    assert lsm.memtable_bytes == int(64 * 2**20 / 1000) and lsm.level_base_bytes == int(256 * 2**20 / 1000)
    assert lsm.page_size == btree.page_size == 16384
    assert btree.redo_log_bytes == int(db * 4 * 2**30 / 226e9)  # the post's 2 x 2 GiB log, over the same 226 GB
    floor = scales.engine_sizes("lsm", 1000.0, ref)  # too small to scale: the floors apply
    assert floor.memtable_bytes == 4 * 16384 and floor.cache_bytes == 5 * 2**20
    assert floor.redo_log_bytes == scales.MIN_REDO_BYTES == 64 * 16384
    assert floor.level_base_bytes == 4 * floor.memtable_bytes
    assert scales.engine_sizes("lsm", db, ref, cache_bytes=7).cache_bytes == 7
    with pytest.raises(ValueError, match="cache_bytes"):
        scales.engine_sizes("lsm", db, ref, cache_bytes=-1)
    with pytest.raises(ValueError, match="database size"):
        scales.engine_sizes("lsm", 0, ref)


def test_the_insert_benchmark_scales_from_the_configuration_its_cache_stands_for():
    """A cache that holds the data is seed 000's in-memory run: the same 4 GB redo log over a database a quarter of
    the IO-bound run's, so four times its share of the data; any other cache is the IO-bound run."""
    from minidb.workloads.insert_benchmark import sized_driver

    mem, io = scales.INSERT_BENCHMARK_IN_MEMORY, scales.INSERT_BENCHMARK
    assert mem.db_bytes == io.db_bytes  # the LSM's sizes scale alike in both
    assert mem.redo_fraction == pytest.approx(4 * 2**30 / (io.db_bytes * scales.IN_MEMORY_ROWS_SHARE))
    assert mem.cache_fraction["btree"] == mem.cache_fraction["lsm"] == 190 / 56.5
    rows = 200_000  # enough that the in-memory run's redo log is above the floor

    def sizes(cache_bytes=None):
        return sized_driver(RunSetup(DataSetup("btree"), cache_bytes=cache_bytes), rows).sizes

    in_memory, small_cache = sizes(1 << 30), sizes(1 << 20)  # the second IO-bound
    assert in_memory.redo_log_bytes > small_cache.redo_log_bytes == scales.MIN_REDO_BYTES
    boundary = sizes().cache_bytes  # the default: the IO-bound run's share
    assert sizes(boundary).redo_log_bytes == small_cache.redo_log_bytes


def test_references_are_the_published_configurations():
    """Each workload scales from its post's configuration as data/ holds it: cache (or RAM) over database size."""
    assert sorted(set(data.load("cloud_tps_by_iops").cache_gb)) == [27, 54]  # the post's caches: the smaller is used
    cloud = data.load("cloud_data_size").set_index("engine").size_gb
    assert scales.SYSBENCH.db_bytes == cloud["InnoDB"] * 1e9 == 471e9
    assert scales.SYSBENCH.cache_fraction == {"lsm": 27 / 471, "btree": 27 / 471}
    assert scales.TPCC is scales.SYSBENCH
    ram = data.load("linkbench_memory").set_index("config").ram_gb["io-bound"]
    linkbench = data.load("linkbench_data_size").set_index("engine").size_gb
    assert scales.LINKBENCH.db_bytes == linkbench["InnoDB"] * 1e9 == 1600e9
    assert ram / linkbench["InnoDB"] == 50 / 1600
    assert scales.LINKBENCH.cache_fraction == {"lsm": 50 / 1600, "btree": 50 / 1600}
    assert scales.TPCC_MEMORY_SWEEP.db_bytes == 70e9  # seed 001: MyRocks uncompressed
    assert scales.TPCC_MEMORY_SWEEP.cache_fraction == {"lsm": 5 / 70, "btree": 5 / 70}  # the sweep's smallest memory


# -- distributions ----------------------------------------------------------------------------------------------------
def test_zipf_is_bounded_and_skewed():
    ranks = Zipf(1000, 0.8).sample(np.random.default_rng(0), 200_000)
    assert ranks.min() >= 1 and ranks.max() <= 1000
    counts = np.bincount(ranks, minlength=1001)
    assert counts[1] > counts[10] > counts[100] > counts[900]
    assert (counts[1] / counts[100]) == pytest.approx(100 ** 0.8, rel=0.25)
    assert Zipf(50, 1.0).sample(np.random.default_rng(0), 1000).max() <= 50
    with pytest.raises(ValueError, match="shape"):
        Zipf(10, 0)


def test_scramble_is_a_permutation():
    for n in (1, 10, 997, 1000):
        ids = scramble(np.arange(1, n + 1), n)
        assert sorted(ids.tolist()) == list(range(1, n + 1))


def test_nurand_stays_in_range_and_is_skewed():
    rng = np.random.default_rng(0)
    values = nurand(rng, 1023, 1, 3000, 123, size=100_000)
    assert values.min() >= 1 and values.max() <= 3000
    counts = np.bincount(values)
    assert counts.max() > 3 * np.median(counts[1:])


def test_random_strings_and_sysbench_patterns():
    rng = np.random.default_rng(0)
    assert [len(s) for s in random_strings(rng, 5, 7)] == [7] * 5 and random_strings(rng, 2, 0) == ["", ""]
    (c,) = sysbench_pattern(rng, 1, 10)
    assert len(c) == 119 and all(g.isdigit() and len(g) == 11 for g in c.split("-"))


def test_int_stream_is_uniform_and_repeatable():
    a = IntStream(np.random.default_rng(3), 1, 6, chunk=10)
    values = [a.next() for _ in range(6000)]
    assert set(values) == {1, 2, 3, 4, 5, 6}
    b = IntStream(np.random.default_rng(3), 1, 6, chunk=10)
    assert [b.next() for _ in range(6000)] == values
    with pytest.raises(ValueError, match="empty range"):
        IntStream(np.random.default_rng(0), 2, 1)


@given(lengths=st.lists(st.integers(0, 25), max_size=40), chunk=st.integers(1, 16))
def test_text_stream_cuts_the_drawn_characters_in_order_across_chunks(lengths, chunk):
    """Strings are consecutive slices of one character stream, whatever the chunk: a string longer than the chunk,
    or ending exactly at the chunk's end (N) or one before it (N-1), loses and repeats nothing."""
    cut = TextStream(np.random.default_rng(5), DIGITS, chunk=chunk)
    strings = [cut.string(n) for n in lengths]
    assert [len(s) for s in strings] == lengths and all(s.isdigit() or s == "" for s in strings)
    whole = TextStream(np.random.default_rng(5), DIGITS, chunk=chunk)
    assert "".join(strings) == "".join(whole.string(1) for _ in range(sum(lengths)))


def test_text_stream_lengths_are_uniform_between_the_bounds_and_repeatable():
    a = TextStream(np.random.default_rng(3), chunk=64)
    texts = [a.between(2, 5) for _ in range(4000)]
    assert {len(t) for t in texts} == {2, 3, 4, 5} and all(t.isalpha() for t in texts)
    assert max(sum(len(t) == n for t in texts) for n in range(2, 6)) < 1.15 * 1000
    b = TextStream(np.random.default_rng(3), chunk=64)
    assert [b.between(2, 5) for _ in range(4000)] == texts


# -- the driver -------------------------------------------------------------------------------------------------------
def test_device_models_by_name_or_object():
    assert device_model("gp2").name == "gp2"
    ssd = preset("slow-ssd")
    assert device_model(ssd) is ssd
    with pytest.raises(ValueError, match="unknown device preset"):
        device_model("floppy")


def test_result_needs_a_measured_phase(dict_opener):
    sizes = scales.engine_sizes("lsm", 1e6, scales.INSERT_BENCHMARK)
    drv = Driver(RunSetup(DataSetup(dict_opener)), sizes, Host())
    with pytest.raises(ValueError, match="start_measuring"):
        drv.result("x", ops=1)
    drv.start_measuring()
    with pytest.raises(ValueError, match="ops >= 1"):
        drv.result("x", ops=0)
    result = drv.result("x", ops=1)
    assert result.summary["seconds"] == 0 and math.isinf(result.summary["ops_per_sec"])
    assert math.isnan(result.summary["write_amp"])  # nothing was written


def test_a_third_engine_needs_only_a_registry_entry(monkeypatch):
    """What the registry promises: a new engine (here the test double) runs every workload once registered."""
    from minidb.workloads import insert_benchmark, sysbench

    double = engines.EngineSpec(
        name="double", title="the dict test double", module="table.kv_double", function="open_dict_engine",
        cache_option="cache_bytes", page_option="page_size", size_options=lambda s: {"cache_bytes": s.cache_bytes},
        marker_files=("double.log",), sized_as="lsm")
    monkeypatch.setitem(REGISTRY, "double", double)
    result = insert_benchmark(RunSetup(DataSetup("double", scale="tiny")), 3000)
    assert result.summary["engine"] == "double" and result.summary["rows"] == 3000
    lsm = insert_benchmark(RunSetup(DataSetup("lsm", scale="tiny")), 3000)
    assert result.summary["cache_bytes"] == lsm.summary["cache_bytes"]
    assert sysbench(RunSetup(DataSetup("double")), 500, 50).summary["ops"] == 50
    assert engines.detect(["double.log"]) == "double"
    assert engines.sized_as("double") == "lsm"
