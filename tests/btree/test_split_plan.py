"""split_plan.pyx: the engine's default split computed on the page's bytes must give the answer the default policy
gives from the list of sizes (tree.py takes one or the other), and ``middle_split`` in C must be the byte-balanced
rule it documents."""

import random
from bisect import bisect_left
from itertools import accumulate

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.btree import page as pg
from minidb.btree.buffer_pool import Frame
from minidb.btree.page import Page
from minidb.btree.split_plan import default_split, middle_split
from minidb.btree.split_policy import DEFAULT_POLICY
from minidb.btree.tree import sizes_with


def middle_split_in_python(sizes, capacity):
    """The rule as it reads in Python: the oracle for the C version."""
    cum = list(accumulate(sizes))
    total, n = cum[-1], len(sizes)
    k = bisect_left(cum, total / 2) + 1

    def fits(j):
        return 1 <= j <= n - 1 and cum[j - 1] <= capacity and total - cum[j - 1] <= capacity

    for j in (k, k - 1):
        if fits(j):
            return j
    for j in sorted(range(1, n), key=lambda j: (abs(2 * cum[j - 1] - total), j)):
        if fits(j):
            return j
    return None


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(1, 1200), min_size=1, max_size=40), st.integers(100, 4000))
def test_middle_split_is_the_byte_balanced_rule(sizes, capacity):
    expected = middle_split_in_python(sizes, capacity)
    if expected is None:
        with pytest.raises(ValueError, match="cannot be split into two pages"):
            middle_split(sizes, capacity)
    else:
        assert middle_split(sizes, capacity) == expected


def test_two_halves_of_exactly_the_capacity_fit_and_one_byte_more_does_not():
    assert middle_split([500, 500, 500, 500], 1000) == 2
    with pytest.raises(ValueError, match="4 records of 2001 bytes cannot be split into two pages of 1000 bytes"):
        middle_split([500, 501, 500, 500], 1000)


def test_very_large_records_take_the_most_balanced_split_that_fits():
    # Half the bytes would put 900 + 100 on the left: too much; the first that fits is k = 1.
    assert middle_split([900, 100, 100, 100, 700], 1000) == middle_split_in_python([900, 100, 100, 100, 700], 1000)


def full_leaf(keys, ascending, page_size=4096):
    """A frame whose leaf holds as many of ``keys`` (with values of their own length) as fit, in that order unless
    ``ascending`` (then sorted); returns (frame, keys in the page)."""
    frame = Frame(1, bytearray(page_size))
    page = Page(frame.buf)
    page.init(1, pg.INDEX_PAGE, 0, 3)
    held = []
    for key in sorted(keys) if ascending else keys:
        if page.put(key, key, page_size) == pg.FULL:
            break
        held.append(key)
    return frame, held


def policy_answer(frame, key, value):
    """What tree.py computed before split_plan.pyx: the search, then the policy on the list of sizes."""
    page = Page(frame.buf)
    pos, found, ascending, sizes = sizes_with(page, key, value)
    return pos, found, DEFAULT_POLICY.choose_split(sizes, pos, page.page_size - pg.HEADER_BYTES, 15 / 16, ascending)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.booleans(), st.sampled_from(["new", "existing", "above"]), st.integers(0, 300))
def test_default_split_gives_the_default_policys_answer(seed, ascending, which, vlen):
    rng = random.Random(seed)
    keys = list({b"%0*d" % (rng.randrange(4, 40), rng.randrange(10**6)) for _ in range(400)})
    frame, held = full_leaf(keys, ascending)
    if which == "existing":
        key = rng.choice(held)
    elif which == "above":
        key = max(held) + b"\xff"  # at the end: an ascending insert if the page was filled in order
    else:
        key = b"%07d" % rng.randrange(10**7)
    value = b"v" * vlen
    capacity = len(frame.buf) - pg.HEADER_BYTES
    assert default_split(frame, key, len(value), capacity) == policy_answer(frame, key, value)


def test_an_ascending_insert_keeps_every_old_record_left_a_random_one_splits_in_the_middle():
    frame, held = full_leaf([b"%08d" % i for i in range(1000)], ascending=True)
    n = len(held)
    capacity = len(frame.buf) - pg.HEADER_BYTES
    assert default_split(frame, b"%08d" % 5000, 8, capacity) == (n, False, n)  # after the last: a new right page
    pos, found, k = default_split(frame, held[n // 3] + b"0", 8, capacity)  # inside the page: in the middle
    assert (pos, found) == (n // 3 + 1, False) and abs(k - (n + 1) // 2) <= 1
