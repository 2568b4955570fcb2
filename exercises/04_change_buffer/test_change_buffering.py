"""Graded tests of exercise 04, the change buffer's decisions, on their own. Run them with
``pytest exercises/04_change_buffer``.

Each rule of ``can_buffer`` is tested at its boundary (the change that just fits, and one byte more); Hypothesis
checks ``merge`` against a dict on leaves and changes of every shape. The ``change_buffering`` fixture is your module
(``--student PATH`` grades another file or folder instead).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable

# A put of a 60-byte record into a leaf with 500 bytes free and 30 records, the entry taking 80 of 4000 bytes left.
PUT = dict(unique=False, op="put", record_bytes=60, leaf=(500, 30), entry_bytes=80, buffer_free=4000)
DELETE = dict(PUT, op="delete", record_bytes=0)


def answer(change_buffering, **change) -> bool:
    """``can_buffer`` on ``change``, checked to be a bool."""
    policy = change_buffering.ChangeBufferPolicy()
    result = policy.can_buffer(**change)
    assert isinstance(result, bool), f"can_buffer must return True or False, got {result!r}"
    return result


@pytest.mark.points(1)
def test_an_ordinary_change_is_buffered(change_buffering):
    """A put or a delete into a known leaf of a non-unique index, with room everywhere, is buffered."""
    assert answer(change_buffering, **PUT) is True, f"can_buffer({PUT}) should be True: nothing stops it"
    assert answer(change_buffering, **DELETE) is True, f"can_buffer({DELETE}) should be True: nothing stops it"


@pytest.mark.points(1)
def test_unique_indexes_are_never_buffered(change_buffering):
    """A unique index must read its leaf: the key may already be there."""
    for change in (PUT, DELETE):
        assert answer(change_buffering, **dict(change, unique=True)) is False, (
            f"a {change['op']} into a unique index: the leaf must be read to check the key")


@pytest.mark.points(1)
def test_unknown_leaves_are_read(change_buffering):
    """Without the leaf's free space and records (leaf=None) nothing can be promised about the merge."""
    for change in (PUT, DELETE):
        assert answer(change_buffering, **dict(change, leaf=None)) is False, (
            f"a {change['op']} into a leaf whose free space is unknown (leaf=None) must read the leaf")


@pytest.mark.points(2)
def test_the_put_must_fit_in_the_leaf(change_buffering):
    """A put fits exactly (record_bytes == free bytes): buffered; one byte more: the leaf is read (it would split)."""
    assert answer(change_buffering, **dict(PUT, record_bytes=500)) is True, "500 bytes fit in 500 free bytes"
    assert answer(change_buffering, **dict(PUT, record_bytes=501)) is False, (
        "a 501-byte record does not fit in 500 free bytes: merging it would split the leaf")


@pytest.mark.points(2)
def test_a_delete_must_not_empty_the_leaf(change_buffering):
    """A delete from a leaf of 2 records: buffered; of 1 record: the leaf is read (it could become empty)."""
    assert answer(change_buffering, **dict(DELETE, leaf=(500, 2))) is True, "a leaf of 2 records keeps one"
    assert answer(change_buffering, **dict(DELETE, leaf=(500, 1))) is False, (
        "deleting from a leaf with one record left may empty it: the tree must merge it with a sibling")


@pytest.mark.points(2)
def test_the_buffer_has_a_size(change_buffering):
    """An entry that fills the buffer exactly is buffered; one byte over, it is not."""
    for change in (PUT, DELETE):
        assert answer(change_buffering, **dict(change, entry_bytes=4000)) is True, (
            f"a {change['op']} of 4000 bytes fits in the 4000 bytes the buffer has left")
        assert answer(change_buffering, **dict(change, entry_bytes=4001)) is False, (
            f"a {change['op']} of 4001 bytes does not fit in the 4000 bytes the buffer has left")


@pytest.mark.points(2)
def test_merge_by_example(change_buffering):
    """Puts insert and replace, deletes remove, the last change to a key wins, keys stay in order."""
    policy = change_buffering.ChangeBufferPolicy()
    records = [(b"b", b"1"), (b"d", b"2"), (b"f", b"3")]
    entries = [("put", b"a", b"new"), ("put", b"d", b"replaced"), ("delete", b"f", None), ("put", b"e", b"x"),
               ("delete", b"e", None), ("put", b"c", b"9"), ("delete", b"zz", None)]
    merged = policy.merge(list(records), list(entries))
    expected = [(b"a", b"new"), (b"b", b"1"), (b"c", b"9"), (b"d", b"replaced")]
    assert merged == expected, f"merge({records}, {entries}) = {merged!r}, expected {expected}"


keys = st.binary(min_size=1, max_size=4)
values = st.binary(max_size=6)
changes = st.lists(st.one_of(st.tuples(st.just("put"), keys, values), st.tuples(st.just("delete"), keys, st.none())),
                   max_size=40)


@pytest.mark.points(3)
@repeatable
@given(leaf=st.dictionaries(keys, values, max_size=30), entries=changes)
@example(leaf={b"k": b"v"}, entries=[("delete", b"k", None), ("put", b"k", b"w"), ("delete", b"k", None)])
def test_merge_is_a_dict_replaying_the_changes(change_buffering, leaf, entries):
    """On any leaf and any changes, merge gives what a dict replaying the changes in order holds, in key order, and
    leaves its arguments alone."""
    policy = change_buffering.ChangeBufferPolicy()
    records = sorted(leaf.items())
    model = dict(leaf)
    for op, key, value in entries:
        if op == "put":
            model[key] = value
        else:
            model.pop(key, None)
    given_records, given_entries = list(records), list(entries)
    merged = policy.merge(given_records, given_entries)
    assert merged == sorted(model.items()), (
        f"merge({records}, {entries}) = {merged!r}; the records after the changes are {sorted(model.items())}")
    assert given_records == records and given_entries == entries, "merge changed the lists it was given"
