"""Disk full at every point of a load (a capacity sweep): the real engine loses no acknowledged write, the
teaching mode reproduces the 2018 MyRocks bug (seed 004) and counts the writes it lost."""

import errno

import pytest

from minidb.errors import ReadOnlyError
from minidb.lsm import open_lsm
from minidb.storage import SimDevice

from .lsm_helpers import TINY, insert_benchmark_batches

OPTS = dict(TINY, memtable_bytes=4096, wal_sync="write")
BATCHES = list(insert_benchmark_batches(600, batch_rows=20))


def expected(n_batches):
    return {(ks, k): v for b in BATCHES[:n_batches] for ks, k, v in b.ops}


def contents(db):
    return {(ks, k): v for ks in ("pk", "k1", "k2", "k3") for k, v in db.scan(ks)}


def peak_usage():
    dev = SimDevice()
    db = open_lsm(dev, **OPTS)
    peak = 0
    for b in BATCHES:
        db.write(b)
        peak = max(peak, dev.used)
    db.close()
    return max(peak, dev.used)


def capacities(steps=40):
    """From almost nothing (the first WAL records do not fit) to the load's peak usage."""
    peak = peak_usage()
    return [peak * i // steps for i in range(1, steps + 1)]


@pytest.mark.parametrize("capacity", capacities())
def test_real_mode_loses_no_acknowledged_write(capacity):
    dev = SimDevice(capacity=capacity)
    try:
        db = open_lsm(dev, **OPTS)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
        return
    acked = 0
    error = None
    for b in BATCHES:
        try:
            db.write(b)
        except (OSError, ReadOnlyError) as exc:
            error = exc
            break
        acked += 1
    if error is None:
        return  # this capacity was enough
    if isinstance(error, OSError):
        assert error.errno == errno.ENOSPC  # the WAL write failed: this batch was refused
    # Reads still work, and show exactly what was acknowledged.
    assert contents(db) == expected(acked)
    # Until space is freed, writes keep failing loudly: nothing is acknowledged that could be lost.
    with pytest.raises((OSError, ReadOnlyError)):
        db.write(BATCHES[acked])
    dev.capacity = None  # free space (resize the volume)
    db.resume()
    for b in BATCHES[acked:]:
        db.write(b)
    assert contents(db) == expected(len(BATCHES))
    db.close()
    db = open_lsm(dev, **OPTS)
    assert contents(db) == expected(len(BATCHES))


def test_resume_fails_while_the_disk_is_still_full():
    dev = SimDevice(capacity=capacities()[8])
    db = open_lsm(dev, **OPTS)
    with pytest.raises((OSError, ReadOnlyError)):
        for b in BATCHES:
            db.write(b)
    if db.stats()["read_only"]:
        with pytest.raises(ReadOnlyError, match="failed"):
            db.resume()
    # A crash now (the acknowledged writes are in the synced WAL) and a restart with space: nothing lost.
    acked = {k for k in contents(db)}
    dev.crash()
    dev.capacity = None
    db = open_lsm(dev, **OPTS)
    assert acked <= set(contents(db))


def test_the_sweep_meets_both_kinds_of_failure():
    """Some capacities fill the disk during a WAL append (the client's write fails), others during a flush or
    compaction (the engine turns read-only): the sweep above exercises both paths."""
    kinds = set()
    for capacity in capacities():
        dev = SimDevice(capacity=capacity)
        try:
            db = open_lsm(dev, **OPTS)
        except OSError:
            kinds.add("open")
            continue
        for b in BATCHES:
            try:
                db.write(b)
            except ReadOnlyError:
                kinds.add("background")
                break
            except OSError:
                kinds.add("wal")
                break
    assert {"wal", "background"} <= kinds


def test_teaching_mode_reproduces_the_2018_bug():
    """Writes keep being acknowledged after the disk filled; exactly the counted ones are lost, and they stay lost
    after space is freed and after a restart (the 2018 engine had no resume)."""
    lost_somewhere = 0
    for capacity in capacities(12):
        dev = SimDevice(capacity=capacity)
        try:
            db = open_lsm(dev, reproduce_2018_disk_full_bug=True, **OPTS)
        except OSError:
            continue
        for b in BATCHES[:-5]:
            db.write(b)  # never raises: every write is "acknowledged"
        dev.capacity = None  # space freed, as in the seed's online resize...
        for b in BATCHES[-5:]:
            db.write(b)  # ...but after a background error, writes are still dropped
        lost = db.stats()["lost_acked_writes"]
        db.close()
        db = open_lsm(dev, **OPTS)
        missing = sum(1 for b in BATCHES for ks, k, v in b.ops if db.get(ks, k) != v)
        assert missing == lost
        lost_somewhere += lost
    assert lost_somewhere > 0
