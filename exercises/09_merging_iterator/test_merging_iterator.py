"""Graded tests of exercise 09, the merging iterator, on plain lists. Run them with
``pytest exercises/09_merging_iterator``.

The ``merging_iterator`` fixture is your module (``--student PATH`` grades another file or folder instead). The
tests inside the engine are in ``test_merging_iterator_in_lsm.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable

PUT, DELETE = 1, 0


def put(key: bytes, seq: int, value: bytes = b"") -> tuple:
    return (key, seq, PUT, value or b"v%d" % seq)


def tombstone(key: bytes, seq: int) -> tuple:
    return (key, seq, DELETE, b"")


@pytest.mark.points(2)
def test_merge_examples(merging_iterator):
    """merge interleaves sorted children by key, and puts the newest version of a key (highest seq) first."""
    scan_merge = merging_iterator.ScanMerge()
    memtable = [put(b"b", 9), tombstone(b"d", 8)]
    l0 = [put(b"a", 5), put(b"b", 6), put(b"d", 7)]
    l1 = [put(b"a", 1), put(b"c", 2), put(b"d", 3)]
    got = list(scan_merge.merge([memtable, l0, l1]))
    expected = [put(b"a", 5), put(b"a", 1), put(b"b", 9), put(b"b", 6), put(b"c", 2), tombstone(b"d", 8),
                put(b"d", 7), put(b"d", 3)]
    assert got == expected, f"merge gave\n  {got}\nexpected\n  {expected}"
    assert list(scan_merge.merge([[], [put(b"x", 1)], []])) == [put(b"x", 1)], "empty children"
    assert list(scan_merge.merge([])) == [], "no children at all: nothing"


@pytest.mark.points(2)
def test_visible_examples(merging_iterator):
    """visible keeps each key's newest version and drops keys whose newest version is a tombstone."""
    scan_merge = merging_iterator.ScanMerge()
    merged = [put(b"a", 5, b"new"), put(b"a", 1, b"old"), tombstone(b"b", 9), put(b"b", 6), put(b"c", 2),
              tombstone(b"d", 8), tombstone(b"d", 4), put(b"e", 3)]
    got = list(scan_merge.visible(merged))
    expected = [(b"a", b"new"), (b"c", b"v2"), (b"e", b"v3")]
    assert got == expected, (
        f"visible gave {got}, expected {expected}: b is deleted (its newest entry is a tombstone), d too"
    )


@st.composite
def sources(draw, max_children=5):
    """Children as an LSM holds them: each sorted in internal key order, every sequence number used once."""
    entries = draw(st.lists(st.tuples(st.sampled_from([b"a", b"ab", b"b", b"c", b"c\x00", b"d"]),
                                      st.sampled_from([PUT, DELETE])), max_size=30))
    children = [[] for _ in range(draw(st.integers(1, max_children)))]
    for seq, (key, kind) in enumerate(entries, 1):
        child = draw(st.integers(0, len(children) - 1))
        children[child].append((key, seq, kind, b"v%d" % seq if kind == PUT else b""))
    return [sorted(child, key=lambda e: (e[0], -e[1])) for child in children]


@pytest.mark.points(4)
@repeatable
@given(children=sources())
def test_merge_against_a_sort(merging_iterator, children):
    """For any sources: merge yields every entry once, ordered by key ascending then sequence number descending."""
    scan_merge = merging_iterator.ScanMerge()
    expected = sorted((e for child in children for e in child), key=lambda e: (e[0], -e[1]))
    got = list(scan_merge.merge(children))
    assert got == expected, f"merge({children})\n  gave     {got}\n  expected {expected}"


@pytest.mark.points(3)
@repeatable
@given(children=sources())
def test_merge_then_visible_against_a_dict(merging_iterator, children):
    """For any sources: visible(merge(...)) is what a dict holds after applying every write in sequence order."""
    scan_merge = merging_iterator.ScanMerge()
    model: dict[bytes, bytes] = {}
    for key, _, kind, value in sorted((e for child in children for e in child), key=lambda e: e[1]):
        if kind == PUT:
            model[key] = value
        else:
            model.pop(key, None)
    got = list(scan_merge.visible(scan_merge.merge(children)))
    assert got == sorted(model.items()), f"sources {children}\n  gave     {got}\n  expected {sorted(model.items())}"
