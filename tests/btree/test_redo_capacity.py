"""The finite redo log: the async, sync and checkpoint points at their boundaries, adaptive flushing's pace rising
with the log's age, stalls on a clock, the log kept within its capacity, and crashes during forced checkpoints."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.btree import PageCleanerOptions, open_btree
from minidb.btree import checkpoint as ckpt
from minidb.btree.page_cleaner import PageCleaner
from minidb.errors import CorruptionError, DeviceCrashed
from minidb.sim import Clock
from minidb.storage import IOStats, SimDevice
from minidb.storage.models import nvme

from .helpers import create_insert_benchmark_schema, insert_benchmark_batches, small_engine

CAPACITY = 1 << 20  # bytes of redo in the boundary tests


# -- the points, on a model of the pool and the log ---------------------------------------------------------------------
class Frame:
    def __init__(self, oldest_lsn):
        self.oldest_lsn = oldest_lsn


class Pool:
    """The flush list of a buffer pool: dirty frames by oldest change."""

    def __init__(self, lsns):
        self.frames = [Frame(lsn) for lsn in sorted(lsns)]

    @property
    def oldest_lsn(self):
        return self.frames[0].oldest_lsn if self.frames else None

    @property
    def dirty_count(self):
        return len(self.frames)

    def __len__(self):
        return len(self.frames)

    def oldest_dirty(self, limit, below=(1 << 64) - 1):
        return [f for f in self.frames if f.oldest_lsn < below][:limit]


class Pager:
    def __init__(self, pool, stats):
        self.pool, self.stats = pool, stats

    def write(self, frames):
        for f in frames:
            self.pool.frames.remove(f)
            self.stats.record("write", "data", 4096)

    def stamp_flushed(self, lsn):
        pass  # page 0's flushed LSN (fsp.py): this model has no page 0


class Redo:
    def __init__(self, lsn, checkpoint_lsn=0):
        self.lsn, self.checkpoint_lsn, self.capacity = lsn, checkpoint_lsn, CAPACITY
        self.checkpoints = []

    @property
    def age(self):
        return self.lsn - self.checkpoint_lsn

    def write_checkpoint(self, lsn, page_size):
        self.checkpoints.append(lsn)
        self.checkpoint_lsn = lsn


def free_check(modified_age, checkpoint_age=None, lsn=10 * CAPACITY, clock=None):
    """A LogFreeCheck over a pool whose oldest change is ``modified_age`` bytes old (more pages after it)."""
    stats = IOStats()
    pool = Pool([lsn - modified_age] + [lsn - modified_age + 1000 * i for i in range(1, 8)])
    redo = Redo(lsn, lsn - (modified_age if checkpoint_age is None else checkpoint_age))
    counters = dict.fromkeys(("checkpoints", "async_flushes", "async_flush_pages", "sync_flushes",
                              "sync_flush_pages", "redo_waits"), 0)
    check = ckpt.LogFreeCheck(pool, Pager(pool, stats), redo, None, doublewrite=True, page_size=4096, stats=stats,
                              clock=clock, counters=counters)
    return check, counters, stats, redo


def test_the_points_are_innodbs_margins():
    assert ckpt.point(ckpt.ASYNC, 1600) == int(1600 * 0.9 * 7 / 8)
    assert ckpt.point(ckpt.SYNC, 1600) == int(1600 * 0.9 * 15 / 16)
    assert ckpt.ASYNC < ckpt.SYNC < ckpt.CHECKPOINT_ASYNC < ckpt.MARGIN < 1


def test_below_the_async_point_nothing_is_written():
    check, counters, stats, _ = free_check(ckpt.point(ckpt.ASYNC, CAPACITY) - 1)
    check.run()
    assert counters["async_flushes"] == counters["sync_flushes"] == 0 and stats.total().writes == 0


def test_at_the_async_point_background_writes_bring_the_age_below_it():
    check, counters, stats, _ = free_check(ckpt.point(ckpt.ASYNC, CAPACITY))
    check.run()
    assert counters["async_flushes"] == 1 and counters["async_flush_pages"] == 1 and counters["sync_flushes"] == 0
    assert stats.total(cause="checkpoint").writes == 1 and check.modified_age() < ckpt.point(ckpt.ASYNC, CAPACITY)


def test_below_the_sync_point_the_client_does_not_flush():
    check, counters, stats, _ = free_check(ckpt.point(ckpt.SYNC, CAPACITY) - 1)
    check.run()
    assert counters["sync_flushes"] == 0 and stats.total(cause="sync-flush").writes == 0
    assert counters["async_flushes"] == 1  # past the async point, so the background flushes


def test_at_the_sync_point_the_client_flushes_under_its_own_cause():
    check, counters, stats, _ = free_check(ckpt.point(ckpt.SYNC, CAPACITY))
    check.run()
    assert counters["sync_flushes"] == 1 and counters["sync_flush_pages"] >= 1
    assert stats.total(cause="sync-flush").writes == counters["sync_flush_pages"]
    assert check.modified_age() < ckpt.point(ckpt.ASYNC, CAPACITY)  # and then the background did the rest


@pytest.mark.parametrize("below", [True, False], ids=["just-under", "at"])
def test_the_checkpoint_is_written_at_its_point(below):
    age = ckpt.point(ckpt.CHECKPOINT_ASYNC, CAPACITY) - (1 if below else 0)
    check, counters, _, redo = free_check(modified_age=1000, checkpoint_age=age)
    check.run()
    assert counters["checkpoints"] == (0 if below else 1)
    if not below:
        assert redo.checkpoint_lsn == redo.lsn - 1000  # the oldest change still only in the pool


def test_an_async_job_in_flight_holds_the_log_and_the_client_waits_for_it():
    clock = Clock(model=nvme())
    check, counters, _, redo = free_check(ckpt.point(ckpt.ASYNC, CAPACITY), clock=clock)
    check.run()
    assert check.job is not None and clock.now == 0  # the job takes time; the client does not wait for it
    age = check.modified_age()
    assert age >= ckpt.point(ckpt.ASYNC, CAPACITY)  # its page counts as unwritten until it is written
    redo.lsn += ckpt.point(ckpt.SYNC, CAPACITY) - age  # the client catches up with the sync point
    check.run()
    assert counters["redo_waits"] == 1 and clock.stalls == 1 and clock.now > 0  # it stalled until its page was written
    assert counters["sync_flushes"] == 0 and counters["async_flushes"] == 2  # the job freed enough; the next began


def test_an_async_job_writes_its_pages_oldest_first_and_frees_the_log_page_by_page():
    clock = Clock(model=nvme())
    check, _, _, redo = free_check(ckpt.point(ckpt.ASYNC, CAPACITY) + 5000, clock=clock)
    oldest = check.oldest()
    check.run()
    job = check.job
    assert job.lsns == tuple(oldest + 1000 * i for i in range(6))  # the six pages first changed before the point
    assert check.oldest() == oldest  # at its start none is written
    clock.advance(job.start + (job.end - job.start) * 3 / 6 - clock.now)
    assert job.written(clock.now) == 3 and check.oldest() == job.lsns[3]  # halfway, half its pages
    clock.advance(job.end - clock.now)
    assert check.oldest() == oldest + 6000  # all written: the oldest change is the first page it left


@pytest.mark.parametrize("start", [1.0, 1000.3, 123456.789])
@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, 5, 6])
def test_a_job_knows_when_the_pages_below_an_lsn_are_written(k, start):
    job = ckpt.FlushJob((10, 20, 30, 40, 50, 60), start=start, end=start + 6e-5)
    t = job.time_written_below(10 * (k + 1))  # pages 0 .. k-1 are below this LSN
    assert t == job.time_of(k) and (k < 6 or t == job.end)
    assert job.written(t) >= k  # however the sums round, at that time they are written
    assert k == 0 or job.written(math.nextafter(t, 0)) == k - 1  # and not a moment before


def test_at_the_sync_point_the_client_waits_only_for_the_pages_it_needs():
    clock = Clock(model=nvme())
    check, counters, _, redo = free_check(ckpt.point(ckpt.ASYNC, CAPACITY) + 5000, clock=clock)
    check.run()
    job = check.job
    redo.lsn += ckpt.point(ckpt.SYNC, CAPACITY) - check.modified_age()  # the client reaches the sync point exactly
    check.run()
    assert counters["redo_waits"] == 1 and counters["sync_flushes"] == 0
    assert clock.now == pytest.approx(job.time_written_below(job.lsns[0] + 1))  # its oldest page, one of six
    assert clock.now < job.end and check.modified_age() < ckpt.point(ckpt.SYNC, CAPACITY)


@pytest.mark.parametrize("write", [20_000, 50_000])
@pytest.mark.parametrize("short", [1, 0], ids=["one-byte-short", "at"])
def test_the_background_flush_starts_one_client_write_early(short, write):
    check, counters, _, redo = free_check(ckpt.point(ckpt.ASYNC, CAPACITY) - 2 * write - short)
    check.run()  # the first check: no write before it to reserve for, and below the async point
    assert counters["async_flushes"] == 0
    redo.lsn += write
    check.run()  # the log after another write as large would reach the async point, or fall one byte short
    assert counters["async_flushes"] == (0 if short else 1) and counters["sync_flushes"] == 0
    if not short:
        assert check.modified_age() < ckpt.point(ckpt.ASYNC, CAPACITY) - write  # and it flushed that far below


def test_the_reserve_is_at_most_half_the_async_point():
    check, counters, _, redo = free_check(8000)  # eight pages changed in the last 8 KB of log
    check.run()
    redo.lsn += ckpt.point(ckpt.ASYNC, CAPACITY)  # one huge client write, which changed three more pages at its end
    check.pool.frames += [Frame(redo.lsn - age) for age in (30, 20, 10)]
    check.run()
    # its reserve is capped at half the point, so the flush writes the eight old pages, not every dirty page
    assert counters["async_flushes"] == 1 and counters["async_flush_pages"] == 8 and len(check.pool) == 3


# -- adaptive flushing ------------------------------------------------------------------------------------------------
def test_adaptive_flushing_starts_at_its_low_water_mark_and_rises_faster_than_the_age():
    cleaner = PageCleaner(PageCleanerOptions(), None)
    lwm = math.ceil(CAPACITY * cleaner.options.adaptive_flushing_lwm / 100)
    assert cleaner.pct_for_lsn(lwm - 1, CAPACITY) == 0 and cleaner.pct_for_lsn(lwm, CAPACITY) > 0
    ages = [lwm, 2 * lwm, 4 * lwm, ckpt.point(ckpt.ASYNC, CAPACITY)]
    pcts = [cleaner.pct_for_lsn(a, CAPACITY) for a in ages]
    assert pcts == sorted(pcts) and pcts[2] / pcts[1] > 2 * 1.4  # the power 3/2 of the age
    # at the async point, (io_capacity_max / io_capacity) * 100 ** 1.5 / 7.5 % of io_capacity
    assert pcts[-1] == pytest.approx(10 * 1000 / 7.5)


def test_without_adaptive_flushing_the_age_asks_nothing_until_the_async_point():
    cleaner = PageCleaner(PageCleanerOptions(adaptive_flushing=False), None)
    at = ckpt.point(ckpt.ASYNC, CAPACITY)
    assert cleaner.pct_for_lsn(at - 1, CAPACITY) == 0 and cleaner.pct_for_lsn(at, CAPACITY) > 0


@pytest.mark.parametrize("option, value, message", [
    ("io_capacity_max", 100, "bad page_cleaner.io_capacity_max 100"),
    ("adaptive_flushing", "yes", "bad page_cleaner.adaptive_flushing 'yes'"),
    ("adaptive_flushing_lwm", 71, "bad page_cleaner.adaptive_flushing_lwm 71"),
])
def test_bad_adaptive_flushing_options_are_named(option, value, message):
    with pytest.raises(ValueError, match=message):
        PageCleanerOptions(**{option: value})


def page_cleaner_writes(modified_age):
    """Pages one page cleaner run writes from a pool of 2000 dirty frames (1% of 200,000) for a log this old."""
    cleaner = PageCleaner(PageCleanerOptions(lru_scan_depth=0.0, change_buffer_merge_pages=0), None)
    pool = Pool(range(2000))
    pool.capacity = 200_000
    pager = Pager(pool, IOStats())
    cleaner.run(pool, pager, None, _NoChangeBuffer(), modified_age, CAPACITY)
    return cleaner.flush_list_pages


class _NoChangeBuffer:
    def candidates(self, n):
        return []


def test_the_page_cleaner_writes_more_as_the_log_ages_up_to_io_capacity_max():
    ages = [0, CAPACITY // 8, CAPACITY // 5, CAPACITY // 2, ckpt.point(ckpt.ASYNC, CAPACITY)]
    pages = [page_cleaner_writes(a) for a in ages]
    assert pages[0] == 0 and pages[1] > 0  # the pool is 1% dirty, below dirty_pct_lwm: only the log asks
    assert pages == sorted(pages) and pages[-1] == 2000 > pages[-2]  # io_capacity_max, the default 2000


# -- the engine -------------------------------------------------------------------------------------------------------
def insert_load(device=None, clock=None, rows=6000, redo_sync="none"):
    """An insert benchmark in a pool that holds it all, with a log of 256 KiB: only the log forces page writes."""
    engine, device = small_engine(device, buffer_pool_bytes=1024 * 4096, redo_sync=redo_sync, clock=clock)
    create_insert_benchmark_schema(engine)
    ages = []
    for batch in insert_benchmark_batches(rows, 100):
        engine.write(batch)
        ages.append(engine.redo.age)
    return engine, device, ages


def test_in_memory_the_log_forces_page_writes_and_stays_within_its_capacity():
    engine, device, ages = insert_load()
    redo_per_batch = engine.redo.lsn / len(ages)
    assert engine.redo.lsn > 4 * engine.redo.capacity  # the log wrapped several times
    assert max(ages) < engine.redo.capacity + redo_per_batch  # checked before each write: one batch may overshoot
    redo_files = sum(device.size(n) for n in engine.redo.file_names())
    assert redo_files <= engine.redo.capacity + engine.redo.file_bytes + redo_per_batch
    io = device.stats
    assert io.total(kind="data", cause="eviction").writes == 0  # the pool never needed a frame
    assert io.total(kind="data", cause="checkpoint").writes > 0 and engine.counters["checkpoints"] > 10


def test_on_a_clock_a_full_log_stalls_the_client_and_counts_it():
    clock = Clock(model=nvme())
    engine, _, _ = insert_load(clock=clock)
    assert engine.counters["redo_waits"] + engine.counters["sync_flushes"] > 0
    assert clock.stalls > 0 and clock.stalled > 0 and len(clock.stall_log) == clock.stalls


def test_the_same_seed_gives_the_same_counts_and_times():
    runs = []
    for _ in range(2):
        clock = Clock(model=nvme())
        engine, device, ages = insert_load(clock=clock, rows=3000)
        runs.append((device.stats.to_frame().to_dict("records"), dict(engine.counters), clock.now, clock.stalled,
                     ages))
    assert runs[0] == runs[1]


def test_read_only_open_and_damage_detection_are_unaffected():
    engine, device, _ = insert_load(rows=3000, redo_sync="commit")
    expected = {name: dict(engine.scan(name)) for name in engine.keyspaces()}
    device.crash()  # the log since the last forced checkpoint is replayed
    ro = open_btree(device, page_size=4096, buffer_pool_bytes=1024 * 4096, read_only=True)
    assert {name: dict(ro.scan(name)) for name in ro.keyspaces()} == expected and ro.recovery["groups"] > 0
    names = device.list()
    ro.close()
    assert device.list() == names  # nothing written, renamed or deleted
    files = ro.redo.file_names()
    assert len(files) > 2  # the log since the checkpoint spans files synced in full
    f = device.open(files[0], "redo")
    f.write(f.size // 2, b"\xff" * 16)  # damage a group in a synced file
    f.sync()
    with pytest.raises(CorruptionError, match=files[0]):
        open_btree(device, page_size=4096, buffer_pool_bytes=1024 * 4096)


@settings(max_examples=25, deadline=None)
@given(point=st.integers(1, 400), torn=st.booleans(), seed=st.integers(0, 3), clocked=st.booleans())
def test_a_crash_during_forced_checkpoints_loses_no_acknowledged_write(point, torn, seed, clocked):
    device = SimDevice()
    clock = Clock(model=nvme()) if clocked else None  # with a clock, async flushes are in flight at the crash
    engine, _ = small_engine(device, buffer_pool_bytes=256 * 4096, redo_sync="commit", clock=clock)
    create_insert_benchmark_schema(engine)
    model, acked = {}, {}
    device.crash_at_io(point, torn=torn, seed=point)
    try:
        for batch in insert_benchmark_batches(3000, 100, seed=seed + 1):
            for keyspace, key, value in batch.ops:
                model.setdefault(keyspace, {})[key] = value
            engine.write(batch)
            acked = {k: dict(v) for k, v in model.items()}
        device.clear_faults()
        assert engine.counters["async_flushes"] + engine.counters["sync_flushes"] > 0  # the log forced writes
        device.crash(torn=torn, seed=point)
    except DeviceCrashed:
        pass
    engine = small_engine(device, buffer_pool_bytes=256 * 4096, redo_sync="commit")[0]
    got = {name: dict(engine.scan(name)) for name in model}
    in_flight = {name: model[name] for name in model}
    assert got in ({name: acked.get(name, {}) for name in model}, in_flight)  # the batch in flight: all or none
    engine.check()
