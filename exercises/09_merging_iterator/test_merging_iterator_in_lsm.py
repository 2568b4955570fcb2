"""Graded tests of exercise 09 inside the LSM engine: every scan goes through your merge and visible.

The engine opened with ``merging_iterator=`` hands your ``merge`` one list per source of the scan (the memtable, each
L0 file, each deeper level) and gives the client what your ``visible`` yields. The scans are compared with a dict
that saw the same puts and deletes.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable
from minidb.storage import SimDevice

lsm = pytest.importorskip("minidb.lsm")

KEYSPACE = "primary"
RANGES = [(None, None), (b"k02", b"k12"), (b"k04", None), (None, b"k03"), (b"k07", b"k07")]  # scans checked


def scans(engine, model: dict) -> list[str]:
    """What differs between the engine's scans and the model's, one line per range."""
    wrong = []
    for lo, hi in RANGES:
        got = list(engine.scan(KEYSPACE, lo, hi))
        expected = sorted((k, v) for k, v in model.items() if (lo is None or k >= lo) and (hi is None or k < hi))
        if got != expected:
            wrong.append(f"scan({lo!r}, {hi!r}) gave {got[:6]}{'...' if len(got) > 6 else ''}, "
                         f"expected {expected[:6]}{'...' if len(expected) > 6 else ''}")
    return wrong


def files_per_level(engine) -> list[int]:
    return [len(files) for files in engine.column_family("default").version.levels]


@pytest.mark.points(4)
def test_scans_across_memtable_l0_and_levels(merging_iterator):
    """Versions of keys spread over the levels, two L0 files and the memtable, with tombstones in each."""
    scan_merge = merging_iterator.ScanMerge()
    engine = lsm.open_lsm(SimDevice(), merging_iterator=scan_merge, level0_file_num_compaction_trigger=8)
    model = {}

    def put(i, tag):
        key = b"k%02d" % i
        engine.put(KEYSPACE, key, tag + key)
        model[key] = tag + key

    def delete(i):
        engine.delete(KEYSPACE, b"k%02d" % i)
        model.pop(b"k%02d" % i, None)

    try:
        for i in range(20):
            put(i, b"level-")
        engine.flush()
        engine.compact_range()  # everything into the levels
        for i in range(0, 20, 3):
            put(i, b"l0a-")
        delete(1)
        engine.flush()
        for i in range(0, 20, 4):
            put(i, b"l0b-")  # k00, k12 ... are now in both L0 files (and in a level)
        delete(3)  # a tombstone in L0 over a level's put
        engine.flush()
        for i in range(0, 20, 5):
            put(i, b"mem-")
        delete(6)  # a tombstone in the memtable over an L0 put
        put(1, b"mem-")  # a put in the memtable over an L0 tombstone
        put(25, b"mem-")
        shape = files_per_level(engine)
        assert shape[0] == 2 and sum(shape[1:]) >= 1, f"the test's load should leave 2 L0 files and levels: {shape}"
        wrong = scans(engine, model)
        assert not wrong, "scans through your merging iterator differ from the model:\n" + "\n".join(wrong)
    finally:
        engine.close()


OPS = st.lists(st.one_of(
    st.tuples(st.just("put"), st.integers(0, 5), st.binary(max_size=3)),
    st.tuples(st.just("delete"), st.integers(0, 5), st.just(b"")),
    st.tuples(st.just("flush"), st.just(0), st.just(b"")),
    st.tuples(st.just("compact"), st.just(0), st.just(b"")),
), max_size=40)


@pytest.mark.points(4)
@repeatable
@given(ops=OPS)
def test_scans_equal_a_dict_model(merging_iterator, ops):
    """Any mix of puts, deletes, flushes (new L0 files) and compactions (into the levels): scans equal the model."""
    scan_merge = merging_iterator.ScanMerge()
    engine = lsm.open_lsm(SimDevice(), merging_iterator=scan_merge, level0_file_num_compaction_trigger=8)
    model = {}
    try:
        for op, i, value in ops:
            key = b"k%02d" % i
            if op == "put":
                engine.put(KEYSPACE, key, value)
                model[key] = value
            elif op == "delete":
                engine.delete(KEYSPACE, key)
                model.pop(key, None)
            elif op == "flush":
                engine.flush()
            else:
                engine.compact_range()
        wrong = scans(engine, model)
        assert not wrong, (f"after {ops} (files per level {files_per_level(engine)}):\n" + "\n".join(wrong))
    finally:
        engine.close()
