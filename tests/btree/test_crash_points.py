"""Crash at every IO point of a small workload, then reopen: no synced commit lost, no partial batch visible, the
tree valid. With doublewrite off and torn writes, recovery either succeeds or reports CorruptionError."""

import random

import pytest

from minidb.btree import PageCleanerOptions, open_btree
from minidb.errors import CorruptionError, DeviceCrashed
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

OPTIONS = dict(page_size=4096, buffer_pool_bytes=16 * 4096, redo_log_bytes=64 * 4096,
               page_cleaner=PageCleanerOptions(every_commits=7, io_capacity=4, change_buffer_merge_pages=2))


def workload(engine, states, acked):
    """Batches of puts and deletes on a unique and a non-unique keyspace; ``states[i]`` is the expected content
    after i batches, ``acked`` counts the batches whose write() returned."""
    rng = random.Random(11)
    model = {"p": {}, "s": {}}
    for step in range(120):
        batch = WriteBatch()
        for _ in range(rng.randrange(1, 10)):
            name, key = rng.choice("ps"), b"%04d" % rng.randrange(500)
            if rng.random() < 0.75:
                value = bytes([65 + step % 26]) * rng.randrange(0, 300)
                batch.put(name, key, value)
                model[name][key] = value
            else:
                batch.delete(name, key)
                model[name].pop(key, None)
        states.append({name: dict(m) for name, m in model.items()})
        engine.write(batch)
        acked.append(step + 1)
        if step == 60:
            engine.flush()


def crash_everywhere(torn: bool, doublewrite: bool, redo_sync="commit", **extra):
    """Run the workload crashing at IO point 1, 2, ... until it completes; check every recovery. ``extra``
    options override the engine's (a compressed tablespace's, say)."""
    options = dict(OPTIONS, doublewrite=doublewrite, redo_sync=redo_sync, **extra)
    outcomes = {"recovered": 0, "corruption": 0, "rolled_back": 0}
    n = 1
    while True:
        device = SimDevice()
        engine = open_btree(device, **options)
        engine.create_keyspace("s", unique=False)
        device.crash_at_io(n, torn=torn, seed=n)
        states, acked = [{"p": {}, "s": {}}], []
        try:
            workload(engine, states, acked)
            return n, outcomes
        except DeviceCrashed:
            pass
        done = acked[-1] if acked else 0
        try:
            engine = open_btree(device, **options)
            got = {name: dict(engine.scan(name)) for name in ("p", "s")}
            engine.check()
        except CorruptionError:
            assert torn and not doublewrite, f"crash at IO point {n}: corruption despite doublewrite"
            outcomes["corruption"] += 1
        else:
            # With sync on commit every acknowledged batch is there; the one in flight may or may not be.
            # With a weaker policy any prefix of the batches may survive, never part of a batch.
            allowed = states[done:done + 2] if redo_sync == "commit" else states[:done + 2]
            assert got in allowed, f"crash at IO point {n}: state is not that after a whole number of batches"
            outcomes["recovered"] += 1
            outcomes["rolled_back"] += engine.recovery["rolled_back"] > 0
        n += 1


@pytest.mark.parametrize("torn, doublewrite", [(False, True), (True, True), (False, False)],
                         ids=["clean-crash", "torn-crash", "clean-crash-no-doublewrite"])
def test_crash_at_every_io_point_recovers(torn, doublewrite):
    points, outcomes = crash_everywhere(torn=torn, doublewrite=doublewrite)
    assert points > 350 and outcomes["corruption"] == 0
    assert outcomes["rolled_back"] > 10  # batches spanning several mtrs were cut and rolled back from their undo


def test_torn_crashes_without_doublewrite_recover_or_report():
    points, outcomes = crash_everywhere(torn=True, doublewrite=False)
    assert points > 300 and outcomes["recovered"] > 50
    assert outcomes["corruption"] > 0  # torn pages were detected (and never read as data)


def test_crash_at_every_io_point_with_lazy_redo_sync():
    points, outcomes = crash_everywhere(torn=False, doublewrite=True, redo_sync=("every", 4))
    assert points > 350 and outcomes["corruption"] == 0


def test_a_crash_while_creating_the_database_leaves_no_half_database():
    n = 1
    while True:
        device = SimDevice()
        device.crash_at_io(n, torn=True, seed=n)
        try:
            open_btree(device, **OPTIONS)
            break
        except DeviceCrashed:
            pass
        engine = open_btree(device, **OPTIONS)  # starts over with a new database
        engine.put("t", b"k", b"v")
        assert engine.recovery == {} and engine.check()["keyspaces"]["t"]["records"] == 1
        n += 1
    assert n > 8
