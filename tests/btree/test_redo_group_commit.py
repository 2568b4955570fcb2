"""The redo log under a server's group commit, where the B+tree differs from the contract's common behaviour
(tests/kv/test_contract.py): taking the syncs back, and a failed group write, which stops the engine."""

import errno

import pytest

from minidb.errors import EngineStopped
from minidb.kv import WriteBatch

from .helpers import small_engine


def batch_of(i):
    batch = WriteBatch()
    batch.put("t", b"%06d" % i, b"v%d" % i)
    return batch


def grouped(device=None):
    engine, device = small_engine(device, buffer_pool_bytes=256 * 4096)  # no page leaves the pool: no WAL rule
    engine.write(batch_of(-1))
    engine.set_group_commit(True)
    return engine, device


def keys(device, n):
    engine, _ = small_engine(device, buffer_pool_bytes=256 * 4096)
    return [engine.get("t", b"%06d" % i) is not None for i in range(n)]


def test_without_group_commit_every_commit_syncs():
    engine, device = grouped()
    engine.set_group_commit(False)
    before = device.stats.total(kind="redo")
    for i in range(3):
        engine.write(batch_of(i))
    assert (device.stats.total(kind="redo") - before).syncs == 3


def test_a_failed_group_write_stops_the_engine_and_loses_nothing_acknowledged():
    engine, device = grouped()
    engine.write(batch_of(0))
    engine.sync_log()
    engine.write(batch_of(1))
    device.fail_io(1, ops=("write",), err=errno.ENOSPC)
    with pytest.raises(OSError):
        engine.sync_log()
    with pytest.raises(EngineStopped):  # InnoDB cannot run without its redo log
        engine.write(batch_of(2))
    device.crash()
    assert keys(device, 2) == [True, False]  # the synced batch; the one whose group failed was never acknowledged
