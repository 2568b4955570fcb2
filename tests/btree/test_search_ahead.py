"""The fast path's search ahead (tree_core.pyx, ``probe_step``, run here by ``search_ahead``): a leaf search that
runs a step per op before its op, to bring the records the op's own search reads into the CPU's cache.

It must follow the leaf's binary search (page_lower_bound), or it loads the wrong lines; it must stay inside the
page and end when the ops in between change the page; and it must end in time for its op on a leaf of up to 1023
records, the bound ``AHEAD`` was chosen for.
"""

import random
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.btree import page as pg
from minidb.btree.buffer_pool import Frame
from minidb.btree.page import Page
from minidb.btree.tree_core import SEARCH_AHEAD, search_ahead

KEY = struct.Struct(">Q")  # 8-byte keys with empty values: 14 bytes a record, up to 1167 in a 16 KiB leaf


def leaf(keys, ascending: bool = False, page_size: int = 16384) -> Frame:
    """A leaf frame holding ``keys``, inserted in ascending order (the page then has LAST_AT_END set) or shuffled
    (it has not)."""
    frame = Frame(1, bytearray(page_size))
    page = Page(frame.buf)
    page.init(1, pg.INDEX_PAGE, 0, 3)
    order = sorted(keys)
    if not ascending and len(order) > 1:
        random.Random(len(order)).shuffle(order)
        order.append(order.pop(order.index(min(order))))  # the last insert is not at the end
    for key in order:
        assert page.put(key, b"") == pg.INSERTED
    assert bool(page.flags & pg.LAST_AT_END) == (len(order) == 1 or ascending and len(order) > 0)
    return frame


def numbered(n: int) -> list[bytes]:
    return [KEY.pack(10 * i + 10) for i in range(n)]


@settings(max_examples=300, deadline=None)
@given(st.sets(st.binary(min_size=1, max_size=12), max_size=300), st.binary(min_size=1, max_size=12),
       st.booleans())
def test_it_ends_where_the_leafs_own_search_does(keys, key, ascending):
    frame = leaf(keys, ascending)
    position, _ = search_ahead(frame, key)
    assert position == Page(frame.buf).search(key)[0]


def test_a_leaf_of_1023_records_is_searched_in_time_for_its_op_and_one_of_1024_is_one_step_late():
    # A key below every record takes the longest path: bits(n) comparisons, after a step for the frame and one
    # for the header and slots.
    for n, steps in ((1023, SEARCH_AHEAD - 1), (1024, SEARCH_AHEAD)):
        frame = leaf(numbered(n))
        assert Page(frame.buf).nrecs == n
        assert search_ahead(frame, KEY.pack(1)) == (0, steps)


def test_an_ascending_insert_is_found_at_the_end_after_two_steps_one_just_below_the_end_is_searched():
    keys = numbered(500)
    frame = leaf(keys, ascending=True)
    assert search_ahead(frame, KEY.pack(10 * 500 + 11)) == (500, 2)  # above the last key: the end, at once
    position, steps = search_ahead(frame, KEY.pack(10 * 500 - 1))  # just below it: a binary search
    assert position == 499 and steps > 2


def test_an_empty_leaf_ends_at_position_zero():
    assert search_ahead(leaf([]), b"k") == (0, 2)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 800), st.integers(0, 50))
def test_it_stays_inside_a_page_the_ops_in_between_change_and_ends(seed, n, changes):
    rng = random.Random(seed)
    frame = leaf(numbered(n))
    page = Page(frame.buf)
    left = [changes]

    def change():
        # An op in between: insert or delete a record, or many (the page may even end up empty).
        if left[0] <= 0:
            return
        left[0] -= 1
        if page.nrecs and rng.random() < 0.5:
            for _ in range(rng.choice((1, 1, 1, page.nrecs))):
                page.delete_at(rng.randrange(page.nrecs))
        else:
            page.put(KEY.pack(rng.randrange(10 * n + 20)), b"")

    position, steps = search_ahead(frame, KEY.pack(rng.randrange(10 * n + 20)), change)
    assert 0 <= position <= n + changes  # never past the most records the page held
    assert steps <= 2 + (n + changes).bit_length()  # each comparison halves the range, however the page changes


def test_it_ends_when_the_page_stops_being_a_leaf():
    frame = leaf(numbered(300))
    page = Page(frame.buf)

    steps_before = [3]

    def change():
        steps_before[0] -= 1
        if steps_before[0] == 0:
            page.init(1, pg.FREE_PAGE, 0, 0)

    position, steps = search_ahead(frame, KEY.pack(5), change)
    assert steps == 4  # the frame, the header, one comparison; then the page is free


def loaded_engines(ops_per_batch: int, seed: int):
    """An engine after a random load of puts and deletes (splits and merges among them), written
    ``ops_per_batch`` ops at a time."""
    from minidb.kv import WriteBatch

    from .helpers import small_engine

    engine, _ = small_engine(buffer_pool_bytes=1024 * 4096)
    rng = random.Random(seed)
    ops = []
    for _ in range(6000):
        key = b"%0100d" % rng.randrange(20000)  # long keys: few to a page, a tree of height 3
        ops.append((key, None if rng.random() < 0.2 else b"v" * rng.randrange(1, 60)))
    for start in range(0, len(ops), ops_per_batch):
        batch = WriteBatch()
        for key, value in ops[start:start + ops_per_batch]:
            if value is None:
                batch.delete("t", key)
            else:
                batch.put("t", key, value)
        engine.write(batch)
    return engine


def test_a_batch_through_the_fast_path_ends_as_its_ops_one_by_one_with_the_same_comparisons_counted():
    # One op per batch: no op has another before it in its apply_ops call, so none is searched ahead and every
    # op searches each page on its way. In batches of 500, most ops follow the route found ahead of them and take
    # the position found ahead in their leaf, unless an op in between changed that leaf.
    one_by_one, batched = loaded_engines(1, seed=4), loaded_engines(500, seed=4)
    assert one_by_one.check()["keyspaces"]["t"]["height"] >= 3  # internal pages with separators to choose from
    assert batched.check()["keyspaces"]["t"] == one_by_one.check()["keyspaces"]["t"]
    assert list(batched.scan("t")) == list(one_by_one.scan("t"))
    assert batched.trees["t"].compares == one_by_one.trees["t"].compares
    assert batched.counters["splits"] == one_by_one.counters["splits"] > 0
