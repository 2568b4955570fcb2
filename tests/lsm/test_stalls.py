"""Write stalls: with background jobs taking simulated time, writes slow down and stop as RocksDB's write
controller says, and every stall is counted and charged to the clock."""

from minidb.errors import DeviceCrashed
from minidb.sim import Clock
from minidb.storage import SimDevice, preset

from .lsm_helpers import insert_benchmark_batches, open_tiny


def load(db, clock, rows=20_000, think=1e-4):
    """The insert benchmark, the client spending ``think`` seconds of its own per batch."""
    for b in insert_benchmark_batches(rows, batch_rows=50):
        clock.advance(think)
        db.write(b)
    return db.stats()


def test_no_stalls_without_a_device_model():
    db = open_tiny(level0_slowdown_writes_trigger=4, level0_stop_writes_trigger=5)
    s = load(db, db.clock)
    assert s["stall_writes_stopped"] == s["stall_writes_slowed"] == 0 and s["stall_seconds"] == 0


def test_stalls_are_counted_and_charged_to_the_clock():
    clock = Clock(preset("slow-ssd"))
    db = open_tiny(clock=clock, max_bytes_for_level_multiplier=4, max_immutable_memtables=3,
                   level0_slowdown_writes_trigger=8)
    s = load(db, clock)
    assert s["stall_writes_stopped"] > 0 and s["stall_writes_slowed"] > 0
    assert s["stall_writes_stopped"] == sum(v for k, v in s.items() if k.startswith("stall_stop_"))
    assert s["stall_writes_slowed"] == sum(v for k, v in s.items() if k.startswith("stall_slowdown_"))
    client = 400 * 1e-4
    assert clock.now > client  # the client waited for the device
    assert abs(s["stall_seconds"] - (clock.now - client)) < 1e-9  # all of it counted as stall time
    assert clock.stalled > 0  # stops waited with clock.wait_until (the clock logs them)


def test_raising_the_slowdown_trigger_cuts_slowed_writes():
    """Seed 000: level0_slowdown_writes_trigger 10 -> 20 "to reduce compaction stalls"."""
    slowed = {}
    for trigger in (10, 20):
        clock = Clock(preset("slow-ssd"))
        db = open_tiny(clock=clock, level0_slowdown_writes_trigger=trigger, max_immutable_memtables=3,
                       max_bytes_for_level_multiplier=4)
        slowed[trigger] = load(db, clock)["stall_slowdown_level0"]
    assert slowed[10] > 0 and slowed[20] < slowed[10]


def test_full_memtables_stop_writes_until_the_flush_is_done():
    clock = Clock(preset("slow-ssd"))
    db = open_tiny(clock=clock, max_immutable_memtables=1)
    s = load(db, clock, rows=5_000, think=1e-5)
    assert s["stall_stop_memtable"] > 0
    assert s["immutable_memtables"] <= 1


def test_level0_stop_trigger():
    clock = Clock(preset("slow-ssd"))
    db = open_tiny(clock=clock, level0_file_num_compaction_trigger=2, level0_slowdown_writes_trigger=3,
                   level0_stop_writes_trigger=4, max_immutable_memtables=4)
    s = load(db, clock, rows=10_000)
    assert s["stall_stop_level0"] > 0
    assert max(len(db.column_family("default").version.levels[0]), 0) <= 4 + 1


def test_pending_compaction_bytes_slow_writes_down():
    clock = Clock(preset("slow-ssd"))
    db = open_tiny(clock=clock, soft_pending_compaction_bytes_limit=16 << 10,
                   hard_pending_compaction_bytes_limit=1 << 30, max_immutable_memtables=3)
    s = load(db, clock, rows=10_000)
    assert s["stall_slowdown_pending-bytes"] > 0


def test_pending_compaction_bytes_stop_writes_at_the_hard_limit():
    clock = Clock(preset("slow-ssd"))
    db = open_tiny(clock=clock, soft_pending_compaction_bytes_limit=8 << 10,
                   hard_pending_compaction_bytes_limit=32 << 10, max_immutable_memtables=3)
    s = load(db, clock, rows=10_000)
    assert s["stall_stop_pending-bytes"] > 0
    assert all(db.get("pk", i.to_bytes(8, "big")) is not None for i in (0, 5_000, 9_999))


def test_no_level0_stalls_when_auto_compactions_are_disabled():
    clock = Clock(preset("slow-ssd"))
    db = open_tiny(clock=clock, disable_auto_compactions=True, level0_slowdown_writes_trigger=4,
                   level0_stop_writes_trigger=5, max_immutable_memtables=3)
    s = load(db, clock, rows=5_000)
    assert len(db.column_family("default").version.levels[0]) > 5  # nothing compacts L0...
    assert s["stall_writes_slowed"] == 0 and s["stall_stop_level0"] == 0  # ...so its triggers are off


def test_jobs_in_flight_are_crash_safe():
    """A crash while a flush or compaction is computed but not installed: its outputs are orphans, deleted at the
    next open, and the data comes back from the WAL."""
    dev = SimDevice()
    clock = Clock(preset("slow-ssd"))
    db = open_tiny(dev, clock=clock, max_immutable_memtables=3)
    batches = list(insert_benchmark_batches(3000, batch_rows=50))
    for b in batches:
        db.write(b)  # no client time passes: jobs stay in flight
    assert db.stats()["jobs_in_flight"] > 0
    in_flight = {f.number for j in db.scheduler.jobs if j.outputs for f in j.outputs.files}
    assert in_flight and all(dev.exists(f"{n:06d}.sst") for n in in_flight)
    dev.crash()
    db = open_tiny(dev)
    assert not any(dev.exists(f"{n:06d}.sst") for n in in_flight)
    assert all(db.get(ks, k) == v for b in batches for ks, k, v in b.ops)


def test_a_crash_while_stalled_loses_nothing_acknowledged():
    dev = SimDevice()
    clock = Clock(preset("slow-ssd"))
    db = open_tiny(dev, clock=clock, max_immutable_memtables=1)
    dev.crash_at_io(300)
    acked = []
    try:
        for b in insert_benchmark_batches(5_000, batch_rows=50):
            db.write(b)
            acked.append(b)
    except DeviceCrashed:
        pass
    db = open_tiny(dev)
    assert acked and all(db.get(ks, k) == v for b in acked for ks, k, v in b.ops)
