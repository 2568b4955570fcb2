"""The fast path's look-ahead (tree_core.pyx, ``leaf_ahead`` / ``try_peek``): it finds the leaf a later op will
change without counting or moving anything, so loading ahead changes the time of a batch and nothing else."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.btree.page import Page
from minidb.btree.tree_core import DONE

from .helpers import small_engine
from .test_split import load

KEYS = [b"%0200d" % (i * 7) for i in range(3000)]  # 200-byte keys: a few per 4 KiB page, a tree of height 3


def engine_with_tree(frames: int):
    engine, _ = small_engine(buffer_pool_bytes=frames * 4096)
    load(engine, KEYS, value=b"v", per_batch=50)
    return engine, engine.trees["t"]


CACHED, CACHED_TREE = engine_with_tree(4096)  # every page in the pool


def state(engine, tree):
    """Everything a lookup may count or move: the pool's counters, its LRU order and the tree's comparisons."""
    pool = engine.pool
    return pool.counters(), [f.page_no for f in pool.frames()], tree.compares


def separators(engine, tree):
    """Every key of every internal page of the tree (the boundaries a descent chooses between)."""
    out, todo = [], [tree.root]
    while todo:
        page = Page(engine.pool.peek(todo.pop()).buf)
        if page.is_leaf:
            continue
        out += [page.key(i) for i in range(1, page.nrecs)]
        todo += [page.child(i) for i in range(page.nrecs)]
    return out


def neighbours(key: bytes) -> list[bytes]:
    """``key``, a key just below it and one just above it."""
    below = key[:-1] + bytes([key[-1] - 1]) + b"\xff" if key[-1] else key[:-1]
    return [key, below, key + b"\0"]


def test_the_tree_is_tall_enough_to_have_internal_levels():
    assert CACHED.check()["keyspaces"]["t"]["height"] == 3


def test_peek_finds_the_leaf_a_descent_reaches_at_every_separator_boundary():
    seps = separators(CACHED, CACHED_TREE)
    assert len(seps) > 100
    for sep in seps:
        for key in neighbours(sep):
            before = state(CACHED, CACHED_TREE)
            frame = CACHED_TREE.try_peek(key)
            assert state(CACHED, CACHED_TREE) == before  # nothing counted, nothing moved
            assert CACHED_TREE.try_seek(key) == DONE
            assert frame is CACHED_TREE.leaf_frame


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=210))
def test_peek_finds_the_leaf_of_any_key(key):
    before = state(CACHED, CACHED_TREE)
    frame = CACHED_TREE.try_peek(key)
    assert state(CACHED, CACHED_TREE) == before
    assert CACHED_TREE.try_seek(key) == DONE and frame is CACHED_TREE.leaf_frame


def test_peek_is_none_when_a_page_on_the_way_is_not_cached():
    engine, tree = engine_with_tree(16)  # 16 frames: most leaves are on disk only
    rng = random.Random(3)
    outcomes = set()
    for key in rng.sample(KEYS, 300):
        before = state(engine, tree)
        frame = tree.try_peek(key)
        assert state(engine, tree) == before
        cached = tree.try_seek(key) == DONE
        assert frame is (tree.leaf_frame if cached else None)
        outcomes.add(cached)
        engine.pager.release()
    assert outcomes == {True, False}  # both cases met
