"""The loaders of ``minidb.real``: the same entries reach every engine, and each engine's counts are its own."""

from __future__ import annotations

import pytest

from minidb.real import (MinidbLoader, RocksDBLoader, SQLiteLoader, insert_benchmark_batches, logical_bytes)
from minidb.real.loader import load
from minidb.real.rocksdb import statistics
from minidb.real.rows import keyspaces
from minidb.real.sqlite import file_role

ROWS = 3000
LSM_SHAPE = dict(memtable_bytes=256 << 10, max_bytes_for_level_base=1 << 20, target_file_size_base=256 << 10)


@pytest.fixture(scope="module")
def batches():
    return list(insert_benchmark_batches(ROWS, rows_per_commit=500))


def test_batches_hold_one_primary_entry_per_row_and_one_per_secondary_index(batches):
    assert len(batches) == ROWS // 500
    entries = [e for b in batches for e in b]
    primary, *secondary = [ks for ks, _ in keyspaces()]
    assert sum(ks == primary for ks, _, _ in entries) == ROWS
    for ks in secondary:
        assert sum(e[0] == ks for e in entries) == ROWS
    assert logical_bytes(batches) == sum(len(k) + len(v) for _, k, v in entries)


def test_the_same_seed_gives_the_same_entries():
    assert list(insert_benchmark_batches(100)) == list(insert_benchmark_batches(100))
    assert list(insert_benchmark_batches(100)) != list(insert_benchmark_batches(100, seed=1))


@pytest.mark.parametrize("rows, per_commit", [(0, 10), (10, 0)])
def test_bad_load_sizes_are_refused(rows, per_commit):
    with pytest.raises(ValueError, match="rows >= 1"):
        next(insert_benchmark_batches(rows, rows_per_commit=per_commit))


def test_every_loader_sees_the_same_logical_bytes(batches):
    ks = keyspaces()
    loaders = [MinidbLoader("lsm", ks, **LSM_SHAPE), RocksDBLoader(ks, **LSM_SHAPE),
               MinidbLoader("btree", ks, page_size=4096, buffer_pool_bytes=1 << 20),
               SQLiteLoader(ks, page_size=4096, cache_bytes=1 << 20)]
    results = [load(loader, batches, ROWS) for loader in loaders]
    assert {r.logical_bytes for r in results} == {logical_bytes(batches)}
    for r in results:
        assert r.rows == ROWS and r.seconds > 0
        # every engine logs what it is told, at least once, and keeps at least the data it was given
        assert r.bytes_written >= r.logical_bytes, r.engine
        assert r.size_bytes > 0.5 * r.logical_bytes, r.engine
        assert sum(r.written.values()) <= r.bytes_written, r.engine


def test_our_loader_counts_are_the_devices(batches):
    loader = MinidbLoader("lsm", keyspaces(), **LSM_SHAPE)
    counts = load(loader, batches, ROWS)
    total = loader.device.stats.total()
    assert counts.bytes_written == total.write_bytes and counts.read_requests == total.reads
    assert counts.written["log"] == loader.device.stats.total(kind="wal").write_bytes
    assert "Compaction Stats" in counts.report


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="unknown engine 'hash'"):
        MinidbLoader("hash", keyspaces())


def test_sqlite_counts_every_byte_of_its_main_file(batches):
    loader = SQLiteLoader(keyspaces(), page_size=4096, cache_bytes=1 << 20)
    counts = load(loader, batches, ROWS)
    # after the final checkpoint the main file holds every page, each written at least once through the shim
    assert counts.written["pages"] >= counts.size_bytes
    assert "main" in counts.report and "wal" in counts.report


def test_sqlite_page_reads_grow_when_the_cache_shrinks(batches):
    big = load(SQLiteLoader(keyspaces(), page_size=4096, cache_bytes=8 << 20), batches, ROWS)
    small = load(SQLiteLoader(keyspaces(), page_size=4096, cache_bytes=64 << 10), batches, ROWS)
    assert small.read_requests > big.read_requests


@pytest.mark.parametrize("name, role", [(None, "temp"), ("/x/db.sqlite", "main"), ("/x/db.sqlite-wal", "wal"),
                                        ("/x/db.sqlite-journal", "journal")])
def test_file_roles(name, role):
    assert file_role(name) == role


def test_rocksdb_statistics_parse_tickers_and_histogram_counts():
    dump = ("rocksdb.wal.bytes COUNT : 123\n"
            "rocksdb.sst.read.micros P50 : 1.000000 P95 : 14.000000 P99 : 14.800000 P100 : 15.000000 "
            "COUNT : 4 SUM : 19\n")
    assert statistics(dump) == {"rocksdb.wal.bytes": 123, "rocksdb.sst.read.micros": 4}
