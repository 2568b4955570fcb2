"""The insert benchmark (PK-order rows, three non-unique secondary indexes) on counted IO, as in seeds 000/002:
a pool larger than the data reads nothing; a pool of 5% of the data reads secondary-index leaves, more and more
as the data grows, and writes more per insert; larger pages write more bytes per insert."""

import pytest

from minidb.btree import open_btree
from minidb.storage import SimDevice

from .helpers import SECONDARIES, create_insert_benchmark_schema, insert_benchmark_batches

pytestmark = pytest.mark.xdist_group("insert-benchmark-io")  # its module fixtures run once, on one worker

ROWS = 30000  # about 6 MB of pages: a 5% pool is 19 pages of 16 KiB
PHASES = 4


def load(page_size, pool_bytes, rows_per_batch=1000, **options):
    """Run the load in PHASES equal parts; per part: page reads and KB written per insert."""
    device = SimDevice()
    engine = open_btree(device, page_size=page_size, buffer_pool_bytes=pool_bytes, redo_sync="none",
                        redo_log_bytes=1 << 20, **options)
    create_insert_benchmark_schema(engine)
    part = ROWS // PHASES
    phases = []
    for k in range(PHASES):
        before = device.stats.snapshot()
        for batch in insert_benchmark_batches(part, rows_per_batch, start=k * part):
            engine.write(batch)
        io = device.stats - before
        phases.append({
            "reads": io.total(kind="data").reads / part,
            "wkb": io.total().write_bytes / 1024 / part,
            "page_wkb": (io.total(kind="data").write_bytes + io.total(kind="doublewrite").write_bytes) / 1024 / part,
        })
    return engine, device, phases


@pytest.fixture(scope="module")
def big_pool():
    return load(16384, 64 << 20)


@pytest.fixture(scope="module")
def db_bytes(big_pool):
    engine, _, _ = big_pool
    return engine.stats(trees=False)["space"]["used_pages"] * 16384


@pytest.fixture(scope="module")
def small_pool(db_bytes):
    return load(16384, db_bytes // 20)


def test_a_pool_larger_than_the_data_reads_nothing(big_pool):
    engine, device, phases = big_pool
    assert all(p["reads"] == 0 for p in phases)
    assert device.stats.total(kind="data").reads == 0
    stats = engine.stats()
    assert stats["buffer_pool"]["reads"] == 0 and stats["buffer_pool"]["hit_rate"] == 1.0
    assert stats["keyspaces"]["primary"]["leaf_fill_mean"] > 0.9  # PK order: leaves at the fill factor
    assert all(0.55 < stats["keyspaces"][n]["leaf_fill_mean"] < 0.8 for n in SECONDARIES)  # random: ~2/3


def test_a_small_pool_reads_more_per_insert_as_the_data_grows(small_pool, db_bytes):
    engine, device, phases = small_pool
    assert engine.pool.capacity * 16384 <= db_bytes // 19  # the pool holds about 5% of the data
    reads = [p["reads"] for p in phases]
    assert 0 < reads[0] and reads[-1] > 3 * reads[0]
    sec = sum(device.stats.total(kind="data", tag=n).reads for n in SECONDARIES)
    assert sec > 10 * device.stats.total(kind="data", tag="primary").reads  # reads are secondary leaves


def test_without_change_buffer_nearly_every_secondary_change_reads_a_leaf(db_bytes):
    _, _, phases = load(16384, db_bytes // 20, change_buffer=False)
    assert phases[-1]["reads"] > 2.0  # three secondary indexes, one random leaf each, few of them cached


def test_a_small_pool_writes_more_per_insert(small_pool, big_pool):
    small, big = small_pool[2], big_pool[2]
    assert all(s["wkb"] > 2 * b["wkb"] for s, b in zip(small, big))
    assert small[-1]["wkb"] > small[0]["wkb"]
    engine, device, _ = small_pool
    assert device.stats.total(kind="data", cause="eviction").writes > 0


def test_larger_pages_write_more_bytes_per_insert_with_a_small_pool(db_bytes):
    pool = db_bytes // 20
    per_insert = {ps: load(ps, pool)[2][-1]["page_wkb"] for ps in (4096, 16384)}
    assert per_insert[16384] > 1.3 * per_insert[4096]


def test_io_is_attributed_per_index_in_stats(small_pool):
    engine, device, _ = small_pool
    io = engine.stats(trees=False)["io"]
    for name in SECONDARIES:
        assert io[name]["page_reads"]["foreground"] == device.stats.total(kind="data", tag=name,
                                                                          cause="foreground").reads
    assert set(io["primary"]["page_writes"]) <= {"eviction", "page-cleaner", "checkpoint", "sync-flush", "foreground"}
