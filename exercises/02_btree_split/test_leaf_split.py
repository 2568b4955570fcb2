"""Graded tests of exercise 02, the leaf split policy, on its own. Run them with ``pytest exercises/02_btree_split``.

Hypothesis builds overfull leaves of every shape (small pages and large, many small records or a few large ones,
fill factors from 1/2 to 1) and pairs of keys with long common prefixes, and checks the invariants the engine relies
on. The ``leaf_split`` fixture is your module (``--student PATH`` grades another file or folder instead).
"""

from __future__ import annotations

import os
from itertools import accumulate

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable

MIN_RECORD = 8  # bytes of the smallest record: 4-byte record header, 2-byte slot, a 1-byte key and value
PAGE_CAPACITIES = [4096 - 40, 8192 - 40, 16384 - 40]  # the engine's pages minus their 40-byte header

# Explicit first examples (Hypothesis runs them before generating any): a 4 KiB leaf of 40 rows of 100 bytes,
# overfilled by a 41st at the end (ascending load) or in the middle (random load); a pair of keys like an index's.
ASCENDING_LEAF = ([100] * 41, 40, 4056, 15 / 16, True)
RANDOM_LEAF = ([100] * 41, 17, 4056, 15 / 16, False)
KEY_PAIR = (b"user#00041", b"user#00100")


@st.composite
def leaves(draw, ascending: bool | None = None):
    """An overfull leaf: (sizes, insert_pos, capacity, fill_factor, ascending).

    The old records fit in the page; the new one (at ``insert_pos``) does not. For an ascending insert the page may
    instead have reached the fill limit, as the engine's sequential loads do: old records within
    ``fill_factor * capacity``, the new one past it.
    """
    capacity = draw(st.sampled_from(PAGE_CAPACITIES) | st.integers(min_value=200, max_value=16344))
    fill_factor = draw(st.sampled_from([0.5, 0.75, 15 / 16, 1.0]) | st.floats(min_value=0.5, max_value=1.0))
    if ascending is None:
        ascending = draw(st.booleans())
    at_fill_limit = ascending and draw(st.booleans())
    limit = int(fill_factor * capacity) if at_fill_limit else capacity
    # Records up to a quarter of the page (the engine allows half): any page then has a split that fits. At
    # least a 64th of it, so that a leaf holds at most 65 records and Hypothesis draws them quickly.
    typical = draw(st.integers(min_value=max(MIN_RECORD, capacity // 32), max_value=capacity // 4))
    smallest = max(MIN_RECORD, typical // 2)
    size = st.integers(min_value=smallest, max_value=min(capacity // 4, typical * 2))
    # Enough records to pass the limit whatever their sizes; the page keeps those that fit, the next one is new.
    drawn = draw(st.lists(size, min_size=limit // smallest + 1, max_size=limit // smallest + 1))
    fitting = [left <= limit for left in accumulate(drawn)].index(False)
    old, new = drawn[:fitting], drawn[fitting]
    insert_pos = len(old) if ascending else draw(st.integers(min_value=0, max_value=len(old)))
    sizes = old[:insert_pos] + [new] + old[insert_pos:]
    return sizes, insert_pos, capacity, fill_factor, ascending


def key_pairs():
    """(left_last, right_first) with left_last < right_first, often sharing a long prefix or being a prefix."""
    prefix = st.binary(max_size=12) | st.sampled_from([b"", b"user#", b"\xff\xff", b"\x00"])
    tail = st.binary(max_size=6) | st.sampled_from([b"", b"\x00", b"\xff", b"\xff\xff\x00"])
    return st.tuples(prefix, tail, tail).map(lambda t: tuple(sorted((t[0] + t[1], t[0] + t[2])))).filter(
        lambda pair: pair[0] < pair[1])


def split_report(sizes: list[int], k: int, capacity: int) -> str:
    """A description of a split, for failure messages."""
    return f"k={k} of {len(sizes)} records: {sum(sizes[:k])} bytes left, {sum(sizes[k:])} right, capacity {capacity}"


def target_of(sizes: list[int], insert_pos: int, capacity: int, fill_factor: float, ascending: bool) -> float:
    """Left bytes the contract aims at: fill_factor of a page for an ascending insert at the end, else half."""
    return fill_factor * capacity if ascending and insert_pos == len(sizes) - 1 else sum(sizes) / 2


def best_distance(sizes: list[int], capacity: int, target: float) -> float:
    """How close to ``target`` the left page of a split that fits can be."""
    total = sum(sizes)
    return min(abs(left - target) for left in accumulate(sizes[:-1]) if left <= capacity and total - left <= capacity)


def check_near_target(leaf_split, leaf) -> None:
    """The split fits and its left page is within one record of the best split for the contract's target."""
    sizes, insert_pos, capacity, fill_factor, ascending = leaf
    k = leaf_split.SplitPolicy().choose_split(list(sizes), insert_pos, capacity, fill_factor, ascending)
    assert isinstance(k, int) and 1 <= k < len(sizes), f"choose_split returned {k!r} for {len(sizes)} records"
    assert sum(sizes[:k]) <= capacity and sum(sizes[k:]) <= capacity, split_report(sizes, k, capacity)
    target = target_of(sizes, insert_pos, capacity, fill_factor, ascending)
    # Rounding either way at the record that straddles the target is fine: one record of slack.
    slack = best_distance(sizes, capacity, target) + max(sizes)
    assert abs(sum(sizes[:k]) - target) <= slack, (
        f"{split_report(sizes, k, capacity)}; the left page should hold about {target:.0f} bytes"
    )


@pytest.mark.points(4)
@repeatable
@given(leaf=leaves())
@example(leaf=ASCENDING_LEAF)
@example(leaf=RANDOM_LEAF)
def test_both_halves_fit(leaf_split, leaf):
    """choose_split keeps at least one record on each side, and both pages within capacity."""
    sizes, insert_pos, capacity, fill_factor, ascending = leaf
    k = leaf_split.SplitPolicy().choose_split(list(sizes), insert_pos, capacity, fill_factor, ascending)
    assert isinstance(k, int) and not isinstance(k, bool), f"choose_split must return an int, got {k!r}"
    assert 1 <= k <= len(sizes) - 1, f"choose_split returned {k} for {len(sizes)} records: a page would be empty"
    assert sum(sizes[:k]) <= capacity and sum(sizes[k:]) <= capacity, split_report(sizes, k, capacity)


@pytest.mark.points(3)
@repeatable
@given(leaf=leaves(ascending=True))
@example(leaf=ASCENDING_LEAF)
def test_ascending_split_keeps_fill_factor(leaf_split, leaf):
    """An ascending insert at the end leaves about fill_factor of a page on the left."""
    check_near_target(leaf_split, leaf)


@pytest.mark.points(3)
@repeatable
@given(leaf=leaves(ascending=False))
@example(leaf=RANDOM_LEAF)
def test_random_split_halves_the_bytes(leaf_split, leaf):
    """Any other insert splits the bytes (not the records) about in half."""
    check_near_target(leaf_split, leaf)


@pytest.mark.points(3)
@repeatable
@given(pair=key_pairs())
@example(pair=KEY_PAIR)
def test_separator_is_between(leaf_split, pair):
    """The separator is bytes, greater than the left page's last key and at most the right page's first."""
    left_last, right_first = pair
    sep = leaf_split.SplitPolicy().separator(left_last, right_first)
    assert isinstance(sep, bytes), f"separator must return bytes, got {type(sep).__name__}"
    assert left_last < sep <= right_first, f"separator({left_last!r}, {right_first!r}) = {sep!r}"


@pytest.mark.points(2)
@repeatable
@given(pair=key_pairs())
@example(pair=KEY_PAIR)
def test_separator_is_shortest(leaf_split, pair):
    """The separator is as short as any key between the two can be: the common prefix plus one byte."""
    left_last, right_first = pair
    sep = leaf_split.SplitPolicy().separator(left_last, right_first)
    shortest = min(len(right_first), len(os.path.commonprefix([left_last, right_first])) + 1)
    assert len(sep) <= shortest, f"separator({left_last!r}, {right_first!r}) = {sep!r}: {shortest} bytes suffice"
