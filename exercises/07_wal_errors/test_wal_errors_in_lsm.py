"""Graded test of exercise 07 inside the LSM engine: a capacity sweep with your handler, as chapter 7 runs one.

The same load runs again and again, the disk filling up before a different write each time (another program took
the space): the write's WAL append finds room for half its record, or the flush that the write starts first fails.
At each point the load goes on until the disk is full; then the administrator frees space, and the database is
reopened (recovery replays the WAL). With your handler plugged in (``on_wal_write_error=``):

* every row whose write was acknowledged is found after the reopen;
* once a write has failed, every later write is refused (ReadOnlyError) until the reopen, even after space is freed:
  the engine cannot know what the failed append left in the WAL, so it must not add to it.
"""

from __future__ import annotations

import pytest

from minidb.errors import ReadOnlyError
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

lsm = pytest.importorskip("minidb.lsm")
f7 = pytest.importorskip("minidb.experiments.f7_disk_full")

KEYSPACE = "primary"
BATCHES = 40  # writes in the load
ROWS_PER_BATCH = 10  # rows per write (a multi-row INSERT)
VALUE = b"v" * 100  # each row's value
STEP = 3  # the disk fills up before every STEP-th write, one sweep point each
HALF_RECORD = (ROWS_PER_BATCH * (len(VALUE) + 10)) // 2  # bytes: about half of one write's WAL record
AFTER_ERROR = 3  # writes tried after the first failure, the last one with space freed


def _batch(i: int) -> tuple[WriteBatch, list[bytes]]:
    keys = [b"row%06d" % (i * ROWS_PER_BATCH + r) for r in range(ROWS_PER_BATCH)]
    batch = WriteBatch()
    for key in keys:
        batch.put(KEYSPACE, key, VALUE)
    return batch, keys


def _open(device, handler=None):
    options = dict(f7.LSM_OPTIONS)
    if handler is not None:
        options["on_wal_write_error"] = handler
    return lsm.open_lsm(device, **options)


def cut_points() -> list[int]:
    """The writes before which the disk is filled up: every STEP-th write of the load."""
    return list(range(0, BATCHES, STEP))


def sweep_point(module, cut: int) -> dict:
    """The load with a handler of ``module``, the disk filled up before write ``cut`` (only half a WAL record
    fits); what the client saw and what the reopened database holds."""
    device = SimDevice()
    device.short_writes = True  # a full disk writes what fits first, as write(2) does
    engine = _open(device, module.StopOnWalError())
    acked: set[bytes] = set()
    refused: set[bytes] = set()
    first_error = None
    after = []  # what each write after the first failure raised (None: it was acknowledged)
    for i in range(BATCHES):
        batch, keys = _batch(i)
        if i == cut:
            device.capacity = device.used + HALF_RECORD  # another program fills the disk
        if first_error is not None and len(after) == AFTER_ERROR - 1:
            device.capacity = None  # the administrator frees space: the handler must still refuse
        try:
            engine.write(batch)
        except (OSError, ReadOnlyError) as exc:
            if first_error is None:
                first_error = exc
                continue
            after.append(exc)
            refused.update(keys)
            if len(after) == AFTER_ERROR:
                break
            continue
        if first_error is not None:
            after.append(None)
            break
        acked.update(keys)
    device.capacity = None
    engine.close()
    engine = _open(device)  # the restart: recovery replays the WAL
    present = {key for key, _ in engine.scan(KEYSPACE)}
    engine.close()
    return {"first_error": first_error, "after": after, "lost": sorted(acked - present),
            "refused_present": sorted(refused & present), "acked": len(acked)}


@pytest.mark.points(5)
def test_capacity_sweep_loses_no_acknowledged_row(wal_errors):
    """At every point of the sweep, every row acknowledged before the disk filled up is there after the reopen."""
    for cut in cut_points():
        p = sweep_point(wal_errors, cut)
        assert not p["lost"], (
            f"disk full before write {cut}: {len(p['lost'])} of {p['acked']} acknowledged rows are gone after the "
            f"reopen, e.g. {p['lost'][0]!r}: the client was told they were written (the first error was "
            f"{p['first_error']!r})"
        )


@pytest.mark.points(4)
def test_writes_after_a_failure_are_refused(wal_errors):
    """After the first failed write every write is refused with ReadOnlyError, even once space is freed."""
    for cut in cut_points():
        p = sweep_point(wal_errors, cut)
        for n, exc in enumerate(p["after"], 1):
            assert isinstance(exc, ReadOnlyError), (
                f"disk full before write {cut}: write {n} after the failed one ({p['first_error']!r}) "
                + ("was acknowledged" if exc is None else f"raised {exc!r}")
                + (", after space was freed" if n == AFTER_ERROR else "")
                + "; it must be refused (ReadOnlyError) until the database is reopened"
            )
        assert not p["refused_present"], (
            f"disk full before write {cut}: rows of refused writes are in the database: {p['refused_present'][:3]}"
        )
