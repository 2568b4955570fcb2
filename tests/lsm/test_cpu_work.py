"""CPU work counts, under the units of minidb.sim's cost model: the simulator charges them, and background jobs
declare theirs to the clock so they are not charged to the client."""

from minidb.sim import Clock, CostModel
from minidb.sim.cpu import io_work
from minidb.storage import preset

from .lsm_helpers import insert_benchmark_batches, open_tiny


def test_work_units_are_the_cost_models():
    db = open_tiny(compression="lz4")
    for b in insert_benchmark_batches(2000):
        db.write(b)
    db.flush()
    db.get("pk", (5).to_bytes(8, "big"))
    work = {unit: n for unit, n in db.work().items() if unit not in ("cache_hits", "cache_misses")}
    assert set(work) <= set(CostModel().units)
    assert work["key_compares"] > 2000 * 4  # every memtable insert compares keys
    assert work["lz4_compress_bytes"] > 0 and work["page_visits"] > 0
    assert CostModel().seconds(work) > 0
    assert all(db.stats()[unit] == n for unit, n in work.items())


def test_jobs_declare_their_work_to_the_clock():
    clock = Clock(preset("slow-ssd"), cost=CostModel())
    db = open_tiny(clock=clock, compression="zstd", max_bytes_for_level_multiplier=4)
    for b in insert_benchmark_batches(5000):
        db.write(b)
    declared = clock.declared_work
    assert declared["zstd_compress_bytes"] > 0 and declared["key_compares"] > 0
    assert declared["zstd_compress_bytes"] == db.work()["zstd_compress_bytes"]  # only jobs compress
    assert declared["key_compares"] < db.work()["key_compares"]  # memtable inserts are the client's own
    # everything a job writes but its MANIFEST edit and that edit's mark in the WAL, written when it is installed
    installing = sum(db.device.stats.total(kind=kind, cause=cause).write_bytes
                     for kind in ("manifest", "wal") for cause in ("flush", "compaction"))
    assert clock.declared_io.write_bytes == (db.device.stats.total(cause="flush").write_bytes
                                             + db.device.stats.total(cause="compaction").write_bytes - installing)


def test_the_serial_work_is_the_write_groups_memtable_inserts_and_wal_bytes_and_nothing_else():
    db = open_tiny(memtable_bytes=1 << 20)  # the first batches fit one memtable
    batches = list(insert_benchmark_batches(20_000))
    db.write(batches[0])
    before, work_before = db.serial_work(), db.work()
    wal_before = db.device.stats.total(kind="wal").write_bytes
    compares_in_memtables = sum(cf.mem.compares for cf in db.cfs.values())
    db.write(batches[1])
    after = db.serial_work()
    assert after["key_compares"] - before["key_compares"] == (
        sum(cf.mem.compares for cf in db.cfs.values()) - compares_in_memtables) > 0
    wal = db.device.stats.total(kind="wal").write_bytes - wal_before
    assert 0 < after["crc32_bytes"] - before["crc32_bytes"] == after["copy_bytes"] - before["copy_bytes"] <= wal
    for b in batches[2:]:
        db.write(b)
    db.flush()  # flushes and compactions add key comparisons to work(), none to the serial write path
    serial, work = db.serial_work(), db.work()
    assert serial["key_compares"] - before["key_compares"] < work["key_compares"] - work_before["key_compares"]


def test_a_flush_counts_the_entries_it_takes_and_a_compaction_those_it_reads():
    db = open_tiny(disable_auto_compactions=True, memtable_bytes=1 << 20)
    batches = list(insert_benchmark_batches(400))  # 4 entries a row
    for b in batches[:2]:
        db.write(b)
    assert db.work()["flush_entries"] == 0  # nothing flushed yet: the memtable holds every entry
    db.flush()
    assert db.work()["flush_entries"] == 800 and db.work()["compaction_entries"] == 0
    for b in batches[2:]:
        db.write(b)
    db.flush()
    assert db.work()["flush_entries"] == 1600
    db.put("k1", batches[0].ops[1][1], b"")  # one key in two L0 files: a compaction reads both entries
    db.flush()
    db.compact_range()
    assert db.work()["compaction_entries"] == 1601
    assert db.work()["flush_entries"] == 1601


def test_a_flush_costs_mostly_its_per_entry_unit_as_rocksdbs_does():
    """Our flush's compares and bytes alone would make it nearly free; RocksDB's flush is not (minidb.sim.cpu)."""
    clock = Clock(preset("nvme"), cost=CostModel())
    db = open_tiny(clock=clock, memtable_bytes=1 << 20, disable_auto_compactions=True)
    for b in insert_benchmark_batches(1000):
        db.write(b)
    db.flush()
    model = CostModel()
    declared = {u: n for u, n in clock.declared_work.items() if u in model.units}
    assert declared["flush_entries"] == 4000
    per_entry = model.breakdown(declared)["flush_entries"]
    rest = model.seconds({u: n for u, n in declared.items() if u != "flush_entries"})
    assert per_entry > rest + model.seconds(io_work(clock.declared_io))
