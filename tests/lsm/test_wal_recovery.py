"""WAL recovery modes (RocksDB's WALRecoveryMode) and the LSM's three disk-full behaviours on the WAL path."""

import errno

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.errors import CorruptionError, EngineStopped, ReadOnlyError
from minidb.kv import WriteBatch
from minidb.lsm import open_lsm
from minidb.lsm.log_reader import Record, scan
from minidb.lsm.wal import is_batch
from minidb.lsm.wal_recovery import MODES, Problem, check_mode, decide
from minidb.storage import SimDevice

from .lsm_helpers import TINY

BIG = dict(TINY, memtable_bytes=1 << 20)  # nothing is flushed: every write stays in the WAL


def batch(i, size=50):
    b = WriteBatch()
    b.put("t", b"%05d" % i, b"v" * size)
    return b


def keys(db):
    return [k for k, _ in db.scan("t")]


# -- the modes, one problem at a time -------------------------------------------------------------------------------
TAIL = Problem("000001.log", 10, "truncated", corruption=False)
CORRUPT = Problem("000001.log", 10, "checksum mismatch", corruption=True, evidence="synced records follow")


@pytest.mark.parametrize("mode, tail, corrupt", [
    ("kTolerateCorruptedTailRecords", "stop", None),
    ("kAbsoluteConsistency", None, None),
    ("kPointInTimeRecovery", "stop", "stop"),
    ("kSkipAnyCorruptedRecords", "skip", "skip"),
])
def test_each_mode_decides_as_rocksdb_documents(mode, tail, corrupt):
    for problem, want in ((TAIL, tail), (CORRUPT, corrupt)):
        if want is None:
            with pytest.raises(CorruptionError, match=rf"WAL 000001.log offset 10: .*wal_recovery_mode={mode}"):
                decide(mode, problem)
        else:
            assert decide(mode, problem) == want


def test_modes_are_named_or_numbered_like_myrocks():
    assert [check_mode(i) for i in range(4)] == list(MODES)
    assert check_mode("kPointInTimeRecovery") == "kPointInTimeRecovery"
    for bad in (4, -1, True, "point_in_time", None):
        with pytest.raises(ValueError, match="bad option wal_recovery_mode"):
            check_mode(bad)
    with pytest.raises(ValueError, match="bad option wal_recovery_mode=7"):
        open_lsm(SimDevice(), wal_recovery_mode=7)


# -- the modes on real WALs -----------------------------------------------------------------------------------------
def torn_tail_device():
    """Three batches synced, then a fourth whose append the full disk cut short, left in the WAL (2018 engine)."""
    dev = SimDevice()
    dev.short_writes = True
    db = open_lsm(dev, reproduce_2018_disk_full_bug=True, **BIG)
    for i in range(3):
        db.write(batch(i))
    dev.capacity = dev.used + 20  # the next record (~90 bytes) is cut after 20
    db.write(batch(3))  # "acknowledged"
    assert db.stats()["lost_acked_writes"] == 1 and db.stats()["read_only"]
    db.close()
    dev.capacity = None
    return dev


@pytest.mark.parametrize("mode", ["kTolerateCorruptedTailRecords", "kPointInTimeRecovery",
                                  "kSkipAnyCorruptedRecords"])
def test_a_torn_tail_opens_in_every_mode_but_absolute_consistency(mode):
    dev = torn_tail_device()
    db = open_lsm(dev, wal_recovery_mode=mode, **BIG)
    assert keys(db) == [b"00000", b"00001", b"00002"]
    assert db.recovery["records_replayed"] == 3 and "torn tail" in db.recovery["problems"][0]


def test_absolute_consistency_refuses_the_torn_tail_the_2018_bug_leaves():
    dev = torn_tail_device()
    with pytest.raises(CorruptionError, match="kAbsoluteConsistency refuses to open"):
        open_lsm(dev, wal_recovery_mode="kAbsoluteConsistency", **BIG)
    assert keys(open_lsm(dev, wal_recovery_mode=3, **BIG)) == [b"00000", b"00001", b"00002"]


def corrupted_middle_device():
    """Five synced records in one WAL, the second one's payload damaged."""
    dev = SimDevice()
    db = open_lsm(dev, **BIG)
    for i in range(5):
        db.write(batch(i))
    name = db.wal_files.writer.name
    dev.crash()  # the server dies; every record was synced
    f = dev.open(name, kind="wal")
    data = f.read(0, f.size)
    second = [e for e in scan(data) if isinstance(e, Record) and is_batch(e.payload)][1]
    f.write(second.end - 1, bytes([data[second.end - 1] ^ 0xFF]))  # one flipped bit-pattern in its payload
    f.sync()
    return dev


def test_corruption_in_the_middle_fails_stops_or_is_skipped_by_mode():
    dev = corrupted_middle_device()
    for mode in ("kTolerateCorruptedTailRecords", "kAbsoluteConsistency"):
        with pytest.raises(CorruptionError, match="corruption, in records that were synced"):
            open_lsm(dev, wal_recovery_mode=mode, **BIG)
    # Point in time keeps the prefix before the damage; skip keeps every intact record. Each open rewrites the
    # database (the WAL is cut where replay stopped, or flushed to L0 and deleted after a skip), so each mode gets
    # its own copy of the damaged device.
    db = open_lsm(corrupted_middle_device(), wal_recovery_mode="kPointInTimeRecovery", **BIG)
    assert keys(db) == [b"00000"] and db.recovery["records_not_replayed"] == 3
    db = open_lsm(corrupted_middle_device(), wal_recovery_mode="kSkipAnyCorruptedRecords", **BIG)
    assert keys(db) == [b"00000", b"00002", b"00003", b"00004"] and db.recovery["problems_skipped"] == 1


# -- the three behaviours on a WAL write error --------------------------------------------------------------------
def full_after(dev, db, n):
    for i in range(n):
        db.write(batch(i))
    dev.capacity = dev.used + 10  # the next WAL record does not fit


def test_read_only_refuses_writes_after_a_wal_error_and_resumes_once_space_is_back():
    dev = SimDevice()
    dev.short_writes = True
    db = open_lsm(dev, **BIG)
    full_after(dev, db, 3)
    with pytest.raises(OSError) as info:
        db.write(batch(3))
    assert info.value.errno == errno.ENOSPC
    assert dev.size(db.wal_files.writer.name) == db.wal_files.writer.size  # the short write was cut back
    with pytest.raises(ReadOnlyError):
        db.write(batch(3))
    assert keys(db) == [b"00000", b"00001", b"00002"]  # reads still work
    dev.capacity = None
    db.resume()
    db.write(batch(3))
    db.close()
    assert keys(open_lsm(dev, wal_recovery_mode="kAbsoluteConsistency", **BIG)) == [b"%05d" % i for i in range(4)]


def test_abort_stops_every_call_until_reopen_and_loses_nothing_acknowledged():
    dev = SimDevice()
    dev.short_writes = True
    db = open_lsm(dev, on_wal_write_error="abort", **BIG)
    full_after(dev, db, 3)
    with pytest.raises(EngineStopped, match="aborts on a WAL write error"):
        db.write(batch(3))
    for call in (lambda: db.write(batch(4)), lambda: db.get("t", b"00000"), lambda: list(db.scan("t")),
                 db.flush, db.resume):
        with pytest.raises(EngineStopped, match="reopen the database"):
            call()
    written = dev.stats.total().writes
    db.close()  # a dead process: writes nothing
    assert dev.stats.total().writes == written
    dev.capacity = None
    db = open_lsm(dev, on_wal_write_error="abort", wal_recovery_mode="kAbsoluteConsistency", **BIG)
    assert keys(db) == [b"00000", b"00001", b"00002"]
    db.write(batch(3))
    assert keys(db)[-1] == b"00003"


def test_the_2018_bug_and_abort_cannot_be_chosen_together():
    with pytest.raises(ValueError, match="choose one"):
        open_lsm(SimDevice(), reproduce_2018_disk_full_bug=True, on_wal_write_error="abort")
    with pytest.raises(ValueError, match="bad option on_wal_write_error='crash'"):
        open_lsm(SimDevice(), on_wal_write_error="crash")


@settings(max_examples=40, deadline=None)
@given(behaviour=st.sampled_from(["read_only", "abort", "bug"]), extra=st.integers(0, 40_000),
       sizes=st.lists(st.integers(1, 400), min_size=1, max_size=40), torn=st.booleans())
def test_against_a_dict_model_only_the_2018_bug_loses_acknowledged_writes(behaviour, extra, sizes, torn):
    """Writes of random sizes on a device that fills at a random point; the client frees space and recovers as the
    behaviour requires. After a restart every acknowledged write is there, except in the teaching mode, which
    loses exactly what it counted (or more, when its torn WAL record hides a block of records from mode 3)."""
    options = dict(TINY, reproduce_2018_disk_full_bug=True) if behaviour == "bug" else dict(
        TINY, on_wal_write_error=behaviour)
    dev = SimDevice()
    dev.short_writes = torn
    db = open_lsm(dev, **options)
    dev.capacity = dev.used + extra
    acked = {}
    for i, size in enumerate(sizes):
        b = WriteBatch()
        b.put("t", b"%05d" % i, b"v" * size)
        try:
            db.write(b)
            acked[b"%05d" % i] = b"v" * size
        except EngineStopped:
            db.close()
            dev.capacity = None
            db = open_lsm(dev, **options)
        except (OSError, ReadOnlyError):
            dev.capacity = None
            db.resume()
    dev.capacity = None
    db.close()
    try:
        db = open_lsm(dev, **dict(options, wal_recovery_mode="kAbsoluteConsistency"))
    except CorruptionError:
        assert behaviour == "bug" and torn  # only the 2018 engine leaves a torn record behind
        db = open_lsm(dev, **dict(options, wal_recovery_mode="kSkipAnyCorruptedRecords"))
    found = dict(db.scan("t"))
    missing = {k for k in acked if found.get(k) != acked[k]}
    if behaviour == "bug":
        assert set(found.items()) <= set(acked.items())
    else:
        assert missing == set()
