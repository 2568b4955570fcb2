"""Batches that change more pages than the buffer pool holds: their pages are written before they commit (steal),
and a batch that does not commit is rolled back from its undo, after an error, a full disk or a crash."""

import errno
import random

import pytest

from minidb.errors import DeviceCrashed
from minidb.kv import WriteBatch

from .helpers import contents, small_engine

ROWS = 2000


def loaded(**options):
    """(engine, device, model): 2,000 rows in a unique and a non-unique keyspace, far more than 16 pages."""
    engine, device = small_engine(**options)
    engine.create_keyspace("s", unique=False)
    model = {"s": {}, "t": {}}
    for start in range(0, ROWS, 50):
        batch = WriteBatch()
        for i in range(start, start + 50):
            for name in model:
                key, value = b"%06d" % (i * 97 % ROWS), b"x" * 60
                batch.put(name, key, value)
                model[name][key] = value
        engine.write(batch)
    return engine, device, model


def big_batch(model, seed=3, n=300):
    """A batch of ``n`` scattered puts and deletes over both keyspaces (it touches every leaf) and the model after
    it."""
    rng = random.Random(seed)
    batch, after = WriteBatch(), {name: dict(m) for name, m in model.items()}
    for i in range(n):
        name, key = rng.choice("st"), b"%06d" % rng.randrange(ROWS + 200)
        if rng.random() < 0.3:
            batch.delete(name, key)
            after[name].pop(key, None)
        else:
            value = b"new%d" % i * rng.randrange(1, 20)
            batch.put(name, key, value)
            after[name][key] = value
    return batch, after


def test_a_batch_larger_than_the_pool_commits_as_a_whole():
    engine, device, model = loaded()
    batch, after = big_batch(model)
    before = device.stats.snapshot()
    engine.write(batch)
    io = device.stats - before
    assert engine.counters["continued_mtrs"] > 10  # the batch ran as a sequence of mini-transactions ...
    assert io.total(kind="data", cause="eviction").writes > 0  # ... whose pages were written before the commit
    assert io.total(kind="redo").syncs > 1  # the write-ahead rule made the log durable before those writes
    assert contents(engine) == after
    engine.check()
    device.crash()  # the commit was synced: a crash keeps all of it
    engine, _ = small_engine(device)
    assert engine.recovery["rolled_back"] == 0
    assert contents(engine) == after
    engine.check()


def test_a_batch_that_fits_is_one_group_and_logs_no_undo():
    engine, device, model = loaded(buffer_pool_bytes=1024 * 4096)
    batch, after = big_batch(model, n=20)
    before = engine.redo.groups
    engine.write(batch)
    assert engine.redo.groups == before + 1 and engine.counters["continued_mtrs"] == 0
    assert contents(engine) == after


@pytest.mark.parametrize("ops", [("write",), ("read",), ("sync",)])
def test_an_io_error_in_the_middle_of_a_large_batch_rolls_it_back(ops):
    engine, device, model = loaded()
    batch, after = big_batch(model)
    failed_after_steal = 0
    nth = 1
    while True:
        continued = engine.counters["continued_mtrs"]
        device.fail_io(nth, ops)
        try:
            engine.write(batch)
        except OSError as exc:
            assert exc.errno == errno.EIO
            device.clear_faults()
            engine.resume()  # a failed redo write stopped the engine (as InnoDB aborts): recover it in place
            assert contents(engine) == model, f"IO error at {ops[0]} {nth}: the failed batch left a trace"
            failed_after_steal += engine.counters["continued_mtrs"] > continued
            nth += 7
            continue
        device.clear_faults()
        break
    assert contents(engine) == after
    assert engine.counters["rollbacks"] + engine.counters["resumes"] > 3 and failed_after_steal > 0
    engine.check()


def test_a_full_disk_in_the_middle_of_a_large_batch_loses_nothing():
    engine, device, model = loaded(redo_log_bytes=1 << 20)
    engine.flush()
    batch, after = big_batch(model, n=2000)  # grows the tablespace by many pages
    device.capacity = device.used + 40 * 4096
    with pytest.raises(OSError) as info:
        engine.write(batch)
    assert info.value.errno == errno.ENOSPC
    device.capacity = None  # the administrator frees space
    engine.close()  # and restarts the server (a second engine may not open the database while this one lives)
    engine, _ = small_engine(device, redo_log_bytes=1 << 20)
    assert contents(engine) == model
    engine.check()
    engine.write(batch)
    assert contents(engine) == after


@pytest.mark.parametrize("torn", [False, True], ids=["clean", "torn"])
def test_a_crash_in_the_middle_of_a_large_batch_is_rolled_back_by_recovery(torn):
    rolled_back = committed = 0
    for n in range(1, 400, 9):
        engine, device, model = loaded()
        batch, after = big_batch(model)
        device.crash_at_io(n, torn=torn, seed=n)
        try:
            engine.write(batch)
            device.clear_faults()
            break
        except DeviceCrashed:
            pass
        engine, _ = small_engine(device)
        got = contents(engine)
        assert got == model, f"crash at IO point {n} of the batch: it is partly there"
        rolled_back += engine.recovery["rolled_back"] > 0
        engine.check()
    assert rolled_back > 5


def test_a_crash_during_the_rollback_is_finished_by_the_next_recovery():
    engine, device, model = loaded()
    batch, _ = big_batch(model, n=600)
    device.crash_at_io(60)  # late in the batch: many stolen pages and much undo
    with pytest.raises(DeviceCrashed):
        engine.write(batch)
    interrupted = 0
    k = 1
    while True:
        device.crash_at_io(k, torn=True, seed=k)
        try:
            engine, _ = small_engine(device)
            device.clear_faults()
            break
        except DeviceCrashed:
            interrupted += 1
            k += 3
    assert interrupted > 3
    assert contents(engine) == model
    engine.check()
