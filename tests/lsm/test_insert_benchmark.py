"""Seed 000's insert benchmark on the LSM: PK-order rows with 3 random non-unique secondary indexes."""

from minidb.storage import SimDevice

from .lsm_helpers import insert_benchmark_batches, open_tiny

ROWS = 20_000


def run(cache_bytes):
    dev = SimDevice()
    db = open_tiny(dev, block_cache_bytes=cache_bytes, max_bytes_for_level_multiplier=4)
    for b in insert_benchmark_batches(ROWS):
        db.write(b)
    db.flush()
    return dev, db


def test_foreground_inserts_read_nothing():
    dev, db = run(1 << 30)
    assert dev.stats.total(cause="foreground").reads == 0  # secondary index entries are blind puts
    assert dev.stats.total(cause="flush").reads == 0
    assert dev.stats.total(cause="compaction").reads > 0  # the only reads: compaction inputs


def test_write_cost_per_insert_barely_depends_on_the_cache():
    dev_big, db_big = run(1 << 30)  # larger than the database
    size = db_big.stats()["sst_bytes"]
    dev_small, _ = run(max(1, size // 20))  # 5% of the database
    big = dev_big.stats.total().per_op(ROWS)["wkb_per_op"]
    small = dev_small.stats.total().per_op(ROWS)["wkb_per_op"]
    assert abs(big - small) / big < 0.05
    assert dev_small.stats.total(cause="foreground").reads == 0
