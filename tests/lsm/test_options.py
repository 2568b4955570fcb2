"""Options: RocksDB's names and defaults; a wrong name or value raises ValueError naming it."""

import pytest

from minidb.lsm import open_lsm
from minidb.lsm.options import CFOptions, DBOptions
from minidb.storage import SimDevice


@pytest.mark.parametrize("options,message", [
    ({"memtable_size": 1}, "unknown LSM option memtable_size=1"),
    ({"compression": "snappy"}, "compression='snappy'"),
    ({"compression": ["none", "brotli"]}, "compression=('none', 'brotli')"),
    ({"bottommost_compression": "lzma"}, "bottommost_compression='lzma'"),
    ({"wal_sync": "sometimes"}, "wal_sync='sometimes'"),
    ({"wal_sync": ("every", 0)}, "wal_sync=('every', 0)"),
    ({"memtable_bytes": 0}, "memtable_bytes=0"),
    ({"block_size": -5}, "block_size=-5"),
    ({"bits_per_key": -1}, "bits_per_key=-1"),
    ({"num_levels": 1}, "num_levels=1"),
    ({"max_bytes_for_level_multiplier": 1}, "max_bytes_for_level_multiplier=1"),
    ({"compaction": "fifo"}, "compaction='fifo'"),
    ({"compaction_pri": "oldest"}, "compaction_pri='oldest'"),
    ({"level0_slowdown_writes_trigger": 40}, "level0_slowdown_writes_trigger (40) <= level0_stop_writes_trigger"),
    ({"soft_pending_compaction_bytes_limit": 10, "hard_pending_compaction_bytes_limit": 5},
     "soft_pending_compaction_bytes_limit=10"),
    ({"block_cache_bytes": -1}, "block_cache_bytes=-1"),
    ({"reproduce_2018_disk_full_bug": "yes"}, "reproduce_2018_disk_full_bug='yes'"),
    ({"clock": object()}, "bad option clock="),
    ({"filter_policy": object()}, "filter_policy="),
    ({"column_families": {"cf1": {"memtable_bytes": 0}}}, "memtable_bytes=0 (column family 'cf1')"),
    ({"column_families": {"cf1": {"colour": "red"}}}, "unknown column family option colour='red'"),
    ({"column_families": ["cf1"]}, "column_families=['cf1']"),
    ({"keyspace_cf": {"idx": "cf9"}}, "keyspace 'idx' maps to unknown column family 'cf9'"),
    ({"cache_index_and_filter_blocks": 1}, "cache_index_and_filter_blocks=1"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError) as info:
        open_lsm(SimDevice(), **options)
    assert message in str(info.value)


def test_defaults_follow_rocksdb():
    o, d = CFOptions(), DBOptions()
    assert (o.memtable_bytes, o.block_size, o.bits_per_key) == (64 << 20, 4096, 10)
    assert (o.level0_file_num_compaction_trigger, o.level0_slowdown_writes_trigger,
            o.level0_stop_writes_trigger) == (4, 20, 36)
    assert (o.max_bytes_for_level_base, o.max_bytes_for_level_multiplier, o.target_file_size_base) == (
        256 << 20, 10, 64 << 20)
    assert (o.size_ratio, o.max_size_amplification_percent, o.num_levels) == (1, 200, 7)
    assert (o.soft_pending_compaction_bytes_limit, o.hard_pending_compaction_bytes_limit) == (64 << 30, 256 << 30)
    assert (d.delayed_write_rate, d.max_background_jobs, d.wal_sync) == (16 << 20, 2, "write")
    assert o.compaction_bytes_limit == 25 * (64 << 20)


def test_per_level_compression_is_indexed_from_the_base_level():
    o = CFOptions(compression=("none", "lz4", "zstd"), bottommost_compression="zstd")
    assert o.compression_for(0, 4, False) == "none"
    assert o.compression_for(4, 4, False) == "lz4"  # the base level takes the second entry
    assert o.compression_for(5, 4, False) == "zstd"
    assert o.compression_for(6, 4, False) == "zstd"  # past the list: its last entry
    assert CFOptions(compression="lz4", bottommost_compression="zstd").compression_for(6, 4, True) == "zstd"
