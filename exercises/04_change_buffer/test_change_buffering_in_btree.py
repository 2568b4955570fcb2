"""Graded tests of exercise 04 inside the B+tree engine: an insert benchmark, and random changes against a dict.

Chapter 3's insert benchmark (iibench) inserts rows in primary-key order into a table with secondary indexes on
random columns. The secondary leaves are scattered and the pool holds few of them, so without a change buffer each
row costs about one page read per secondary index; with one, most changes wait in the buffer and a leaf read applies
many. The engine runs the benchmark with your policy (``open_btree(device,
change_buffer_policy=ChangeBufferPolicy())``) and must read as few pages per inserted row as with its own, and far
fewer than with no change buffer. Then Hypothesis drives the engine with random puts, deletes, gets
and scans over unique and non-unique keyspaces and compares every answer with a dict.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from minidb.btree import open_btree
from minidb.grading.repeatable import repeatable
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

PAGE = 4096
OPTIONS = dict(page_size=PAGE, buffer_pool_bytes=48 * PAGE, page_cleaner=None)
ROWS = 4000
INDEXES = ("idx_a", "idx_b", "idx_c")  # non-unique secondary indexes, as iibench's three
TOLERANCE = 0.02  # your reads per row within 2% of the engine's own policy's


def insert_benchmark(**options) -> dict:
    """Insert ROWS rows in PK order, 10 per batch, each with an entry in every secondary index; the data reads per
    row, the changes buffered, and whether every entry is found afterwards."""
    device = SimDevice()
    engine = open_btree(device, **OPTIONS, **options)
    for name in INDEXES:
        engine.create_keyspace(name, unique=False)
    rng = random.Random(22)
    entries = {name: [] for name in INDEXES}
    for start in range(0, ROWS, 10):
        batch = WriteBatch()
        for pk in range(start, start + 10):
            batch.put("primary", b"%08d" % pk, b"r" * 80)
            for name in INDEXES:
                key = b"%08d%08d" % (rng.randrange(10**8), pk)  # a random column, then the PK: non-unique index
                batch.put(name, key, b"")
                entries[name].append(key)
        engine.write(batch)
    reads = device.stats.total(kind="data").reads
    buffered = engine.change_buffer.stats()["buffered"]
    complete = all([key for key, _ in engine.scan(name)] == sorted(keys) for name, keys in entries.items())
    engine.check()
    engine.close()
    return {"reads_per_row": reads / ROWS, "buffered": buffered, "complete": complete}


@pytest.fixture(scope="module")
def baselines() -> dict:
    """The benchmark with the engine's own policy and with no change buffer."""
    return {"own": insert_benchmark(), "off": insert_benchmark(change_buffer=False)}


@pytest.mark.points(5)
def test_insert_benchmark_reads_per_row(change_buffering, baselines):
    """With your policy the benchmark finds every entry, buffers changes, and reads about as few pages per row as
    the engine's own policy (and fewer than with no change buffer)."""
    policy = change_buffering.ChangeBufferPolicy()
    yours, own, off = insert_benchmark(change_buffer_policy=policy), baselines["own"], baselines["off"]
    assert yours["complete"], "after the benchmark a secondary index does not hold exactly the entries inserted"
    assert yours["buffered"] > 0, "your can_buffer never let a change wait in the buffer"
    assert yours["reads_per_row"] <= own["reads_per_row"] * (1 + TOLERANCE), (
        f"{yours['reads_per_row']:.3f} page reads per row with your policy, {own['reads_per_row']:.3f} with the "
        f"engine's, {off['reads_per_row']:.3f} with no change buffer: your can_buffer refuses changes it could take")
    assert own["reads_per_row"] < off["reads_per_row"]


LOADED = 900  # keys loaded into each keyspace first: about 20 leaves each, more than the pool's 16 frames
operations = st.lists(st.tuples(st.sampled_from(["put", "delete", "delete", "get", "scan", "commit"]),
                                st.sampled_from(["p", "s", "t"]), st.integers(0, LOADED - 1), st.integers(0, 120)),
                      min_size=1, max_size=300)


@pytest.mark.points(5)
@settings(repeatable, max_examples=30, phases=(Phase.explicit, Phase.generate))  # no shrinking: a run of an engine
@given(ops=operations)
def test_random_changes_match_a_dict(change_buffering, ops):
    """Random puts, deletes, gets and scans over a unique (p) and two non-unique (s, t) keyspaces, in batches, with
    a pool small enough that leaves come and go: every answer is the dict's, and the tree passes its check."""
    policy = change_buffering.ChangeBufferPolicy()
    engine = open_btree(SimDevice(), page_size=PAGE, buffer_pool_bytes=16 * PAGE, page_cleaner=None,
                        change_buffer_policy=policy)
    engine.create_keyspace("s", unique=False)
    engine.create_keyspace("t", unique=False)
    # A first load, so that the trees outgrow the pool: later changes find their leaves evicted.
    model = {name: {b"%04d" % i: bytes([97 + i % 26]) * 60 for i in range(LOADED)} for name in "pst"}
    for name, rows in model.items():
        load = WriteBatch()
        for key, value in rows.items():
            load.put(name, key, value)
        engine.write(load)
    batch = WriteBatch()
    for step, (op, name, k, size) in enumerate(ops):
        key = b"%04d" % k
        if op == "put":
            value = bytes([65 + step % 26]) * size
            batch.put(name, key, value)
            model[name][key] = value
        elif op == "delete":
            batch.delete(name, key)
            model[name].pop(key, None)
        else:
            engine.write(batch)
            batch = WriteBatch()
            if op == "get":
                assert engine.get(name, key) == model[name].get(key), f"step {step}: get({name!r}, {key!r})"
            elif op == "scan":
                assert dict(engine.scan(name)) == model[name], f"step {step}: a scan of {name!r} differs from the dict"
    engine.write(batch)
    for name in "pst":
        assert dict(engine.scan(name)) == model[name], f"at the end: a scan of {name!r} differs from the dict"
    engine.check()
    engine.close()
