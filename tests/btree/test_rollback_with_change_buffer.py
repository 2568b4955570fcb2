"""Rolling back a batch larger than the pool while the change buffer holds changes: a batch merges entries buffered
before it (which must stay merged), buffers and merges entries of its own (which must go), and splits and merges
the very leaves those entries name. Random batches, each cut short at a random IO point by an error or a crash,
must leave the database exactly as the batches that committed made it."""

import random

import pytest

from minidb.btree import page as pg
from minidb.btree.verify import PageReader
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
            if engine.stopped:
                engine.resume()  # a failed redo write stops it: it recovers in place from what reached the disk
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


def test_a_batch_of_deletes_whose_commit_fails_loses_nothing_committed_after_it():
    engine, device = small_engine()
    engine.put("t", b"a", b"1")
    batch = WriteBatch()
    batch.delete("fresh", b"k")  # creates a keyspace, changes nothing else
    device.fail_io(1, ("write",))
    with pytest.raises(OSError):
        engine.write(batch)
    engine.resume()  # the failed redo write stopped the engine, as InnoDB aborts; recover in place
    engine.put("t", b"b", b"2")
    engine.put("t", b"c", b"3")
    device.crash()
    engine, _ = small_engine(device)
    assert contents(engine)["t"] == {b"a": b"1", b"b": b"2", b"c": b"3"}


def sibling_leaves(engine, name):
    """[(page, first key, bytes used)] of each level-1 page's children, from the tablespace or the pool."""
    read = PageReader(engine.pool, engine.tablespace, engine.device.stats)
    out = []

    def walk(page_no):
        page = read(page_no, name)
        if page.level == 1:
            kids = [read(page.child(i), name) for i in range(page.nrecs)]
            out.append([(page.child(i), kid.records()[0][0], kid.used) for i, kid in enumerate(kids)])
        elif page.level > 1:
            for i in range(page.nrecs):
                walk(page.child(i))

    walk(engine.trees[name].root)
    return out


def freeing_setup(seed):
    """(engine, device, model, batch): a batch that buffers a change for leaf L of non-unique "a", then fills
    L's nearly empty left sibling M, which the rollback of that fill merges with L."""
    rng = random.Random(seed)
    engine, device = small_engine(redo_log_bytes=256 * 4096)
    engine.create_keyspace("a", unique=False)
    engine.create_keyspace("p")
    model = {"a": {}, "p": {}}
    keys = list(range(0, 6000, 3))
    rng.shuffle(keys)
    for i in range(0, len(keys), 40):
        batch = WriteBatch()
        for k in keys[i:i + 40]:
            key, value = b"%06d" % k, b"v" * rng.randrange(20, 80)
            for name in model:
                batch.put(name, key, value)
                model[name][key] = value
        engine.write(batch)
    ordered = sorted(model["a"])
    for i in range(0, len(ordered), 40):  # shrink half the values: leaves get small without merging
        batch = WriteBatch()
        for key in ordered[i:i + 40]:
            if rng.random() < 0.5:
                model["a"][key] = b"s" * rng.randrange(1, 20)
                batch.put("a", key, model["a"][key])
        engine.write(batch)
    for _ in engine.scan("p"):  # cycle the pool: the leaves of "a" leave it, so changes to them can be buffered
        pass
    fill = (4096 - pg.HEADER_BYTES) * 15 / 16
    pairs = []
    for kids in sibling_leaves(engine, "a"):
        for i in range(len(kids) - 1):
            (_, _, m_used), (l_page, _, l_used) = kids[i], kids[i + 1]
            left_full = i == 0 or kids[i - 1][2] + m_used > fill + 50  # M cannot merge with its left sibling
            if (m_used < fill - 2100 and m_used + l_used < fill - 300 and left_full
                    and engine.pool.peek(l_page) is None and l_page in engine.change_buffer.estimates):
                pairs.append((kids[i], kids[i + 1]))
    (_, m_first, _), (_, l_first, _) = rng.choice(pairs)
    engine.get("a", m_first)  # M into the pool: the batch's inserts into it are made, not buffered
    batch = WriteBatch()
    batch.put("a", l_first + b"x", b"e1")  # buffered for L
    primary = sorted(model["p"])
    for _ in range(rng.randrange(50, 300)):
        batch.delete("p", rng.choice(primary))
    big = m_first + b"_big"
    batch.put("a", big, b"B" * (engine.max_record - len(big)))  # fills M
    for i in range(3):
        batch.put("a", m_first + b"_%d" % i, b"m" * 10)
    for _ in range(40):  # more pages: M's change is in a group that reaches the log before the commit
        batch.put("p", rng.choice(primary), b"q" * 30)
    return engine, device, model, batch


def test_a_rollback_that_frees_a_leaf_the_batch_buffered_changes_for():
    """Rolling back the fill of M merges L into M and frees L: the entry the batch buffered for L must be gone
    before, or a later reuse of page L is taken for a leaf with buffered changes."""
    engine, device, _, batch = freeing_setup(26)
    start = device.io_points
    engine.write(batch)
    ios = device.io_points - start
    engine, device, model, batch = freeing_setup(26)
    buffered = engine.change_buffer.buffered_puts
    device.crash_at_io(ios - 1, ops=("write", "sync", "truncate", "rename", "delete", "read"))  # at the commit
    with pytest.raises(DeviceCrashed):
        engine.write(batch)
    assert engine.change_buffer.buffered_puts > buffered
    device.clear_faults()
    engine, _ = small_engine(device, redo_log_bytes=256 * 4096)
    assert engine.recovery["rolled_back"] > 0 and engine.counters["merges"] > 0
    assert contents(engine) == model
    engine.check()
