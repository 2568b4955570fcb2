"""Rolling back a batch larger than the pool while the change buffer holds changes: a batch merges entries buffered
before it (which must stay merged), buffers and merges entries of its own (which must go), and splits and merges
the very leaves those entries name. Random batches, each cut short at a random IO point by an error or a crash,
must leave the database exactly as the batches that committed made it."""

import random

import pytest

from minidb.errors import DeviceCrashed
from minidb.kv import WriteBatch

from .helpers import contents, small_engine

KEYS = 3000


def random_batch(rng, model, n):
    """A batch of ``n`` scattered puts and deletes over every keyspace, and the model after it."""
    batch, after = WriteBatch(), {name: dict(m) for name, m in model.items()}
    for _ in range(n):
        name, key = rng.choice(sorted(model)), b"%06d" % rng.randrange(KEYS)
        if rng.random() < 0.35:
            batch.delete(name, key)
            after[name].pop(key, None)
        else:
            value = bytes([rng.randrange(97, 123)]) * rng.randrange(1, 90)
            batch.put(name, key, value)
            after[name][key] = value
    return batch, after


def new_database():
    engine, device = small_engine()
    engine.create_keyspace("p")  # unique: never buffered
    for name in ("a", "b"):
        engine.create_keyspace(name, unique=False)
    return engine, device, {name: {} for name in ("a", "b", "p")}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_failed_batches_over_buffered_changes_leave_no_trace(seed):
    rng = random.Random(seed)
    engine, device, model = new_database()
    failures = buffered_at_failure = crashes_after_error = 0
    for trial in range(60):
        batch, after = random_batch(rng, model, rng.randrange(50, 500))
        # Two of three batches run clean, without a check (whose scans would merge every buffered change).
        fault = "none" if trial < 8 or trial % 3 else rng.choice(["crash", "error"])
        if fault == "crash":
            device.crash_at_io(rng.randrange(1, 200), torn=rng.random() < 0.5, seed=trial)
        elif fault == "error":
            device.fail_io(rng.randrange(1, 200), rng.choice([("read",), ("write",), ("sync",),
                                                              ("read", "write", "sync")]))
        pending = engine.change_buffer.stats()["pending_entries"]
        try:
            engine.write(batch)
            model = after
        except DeviceCrashed:
            failures += 1
            buffered_at_failure += pending > 0
            device.clear_faults()
            engine, _ = small_engine(device)
            if contents(engine) == after:
                model = after  # the crash hit the commit's own log write, which reached the disk whole anyway
        except OSError:
            failures += 1
            buffered_at_failure += pending > 0
            device.clear_faults()
            if crashes_after_error * 2 < failures:
                # The engine rolled back in place from what it had written: all of that must be durable too.
                device.crash()
                crashes_after_error += 1
                engine, _ = small_engine(device)
        device.clear_faults()
        if fault != "none":
            assert contents(engine) == model, f"trial {trial} ({fault}): the database differs from the commits"
            engine.check()
    assert contents(engine) == model
    assert failures > 10 and buffered_at_failure > 8 and crashes_after_error > 2


def test_a_batch_that_buffers_and_merges_its_own_changes_rolls_them_back():
    engine, device, model = new_database()
    rng = random.Random(5)
    for _ in range(10):
        batch, model = random_batch(rng, model, 300)
        engine.write(batch)
    engine.flush()
    cb = engine.change_buffer
    batch, _ = random_batch(rng, model, 800)
    before = dict(merged=cb.merged, buffered=cb.buffered_puts + cb.buffered_deletes)
    device.crash_at_io(150)
    with pytest.raises(DeviceCrashed):
        engine.write(batch)
    # The batch both buffered changes and merged some into their leaves before the crash.
    assert cb.buffered_puts + cb.buffered_deletes > before["buffered"] and cb.merged > before["merged"]
    engine, _ = small_engine(device)
    assert engine.recovery["rolled_back"] > 0
    assert contents(engine) == model
    engine.check()


def test_a_batch_of_deletes_that_creates_a_keyspace_makes_it_durable():
    engine, device = small_engine()
    batch = WriteBatch()
    batch.delete("fresh", b"k")
    engine.write(batch)
    device.crash()
    engine, _ = small_engine(device)
    assert "fresh" in engine.keyspaces()
