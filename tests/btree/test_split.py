"""Splits and merges: leaf fill after ascending and random loads, the split policy plug point, separators, merges."""

import random

import pytest

from minidb.btree import DefaultSplitPolicy, SplitPolicy
from minidb.btree.page import Page
from minidb.btree.split_policy import middle_split, shortest_separator
from minidb.kv import WriteBatch

from .helpers import small_engine


def load(engine, keys, value=b"x" * 40, per_batch=10):
    keys = list(keys)
    for i in range(0, len(keys), per_batch):
        batch = WriteBatch()
        for k in keys[i:i + per_batch]:
            batch.put("t", k, value)
        engine.write(batch)


def leaf_fill(engine, name="t"):
    return engine.stats()["keyspaces"][name]["leaf_fill_mean"]


def test_ascending_load_fills_leaves_to_the_fill_factor():
    engine, _ = small_engine(buffer_pool_bytes=256 * 4096)
    load(engine, (b"%08d" % i for i in range(6000)))
    fills = engine.stats()["keyspaces"]["t"]["leaf_fill"]
    assert all(abs(f - 15 / 16) < 0.02 for f in fills[:-1])  # every leaf but the last, still filling
    assert engine.check()["keyspaces"]["t"]["records"] == 6000


def test_fill_factor_option_changes_ascending_fill():
    engine, _ = small_engine(buffer_pool_bytes=256 * 4096, fill_factor=0.75)
    load(engine, (b"%08d" % i for i in range(6000)))
    assert abs(leaf_fill(engine) - 0.75) < 0.03


def test_random_load_leaves_leaves_about_two_thirds_full():
    engine, _ = small_engine(buffer_pool_bytes=256 * 4096)
    keys = [b"%08d" % i for i in range(8000)]
    random.Random(5).shuffle(keys)
    load(engine, keys)
    assert 0.63 < leaf_fill(engine) < 0.75  # ln 2 = 0.69 in theory
    assert dict(engine.scan("t")).keys() == set(keys)


def test_descending_load_splits_in_the_middle():
    engine, _ = small_engine(buffer_pool_bytes=256 * 4096)
    load(engine, (b"%08d" % i for i in reversed(range(4000))))
    assert 0.45 < leaf_fill(engine) < 0.6


def test_tree_grows_in_height_and_stays_valid():
    engine, _ = small_engine(buffer_pool_bytes=512 * 4096)
    rng = random.Random(1)
    keys = [b"%040d" % rng.randrange(10**40) for _ in range(30000)]
    load(engine, keys, value=b"v" * 8, per_batch=50)
    report = engine.check()["keyspaces"]["t"]
    assert report["height"] >= 3 and report["internal_pages"] > 1
    assert engine.counters["root_splits"] == report["height"] - 1
    assert [k for k, _ in engine.scan("t")] == sorted(set(keys))


def test_shortest_separator():
    assert shortest_separator(b"apple", b"apricot") == b"apr"
    assert shortest_separator(b"ab", b"abc") == b"abc"
    assert shortest_separator(b"a", b"b") == b"b"
    assert shortest_separator(b"\x00\x01", b"\x01") == b"\x01"


def test_separators_in_internal_pages_are_short():
    engine, _ = small_engine(buffer_pool_bytes=256 * 4096)
    load(engine, (b"%05d-%s" % (i, b"long suffix " * 3) for i in range(3000)))
    root = engine.pool.peek(engine.trees["t"].root)
    seps = Page(root.buf).keys()[1:]
    assert seps and all(len(s) <= 6 for s in seps)  # keys differ within 5 bytes; the rest never goes up


def test_middle_split_balances_bytes_and_respects_capacity():
    assert middle_split([10] * 10, 100) == 5
    assert middle_split([10, 10, 10, 60], 70) == 3  # only k=3 leaves both halves within 70 bytes
    with pytest.raises(ValueError):
        middle_split([60, 60, 60], 100)


class CountingPolicy(SplitPolicy):
    """Left keeps a quarter of the records; separators are the full right key. Counts its calls."""

    def __init__(self):
        self.calls = 0
        self.seen_ascending = False

    def choose_split(self, sizes, insert_pos, capacity, fill_factor, ascending):
        self.calls += 1
        self.seen_ascending |= ascending
        assert sum(sizes) > 0 and 0 <= insert_pos < len(sizes) and fill_factor == 15 / 16
        return max(1, len(sizes) // 4)

    def separator(self, left_last, right_first):
        return right_first


def test_plug_in_policy_is_used_for_leaves():
    policy = CountingPolicy()
    engine, _ = small_engine(buffer_pool_bytes=256 * 4096, split_policy=policy)
    keys = [b"%08d" % i for i in range(3000)]
    random.Random(2).shuffle(keys)
    load(engine, keys)
    assert policy.calls > 0
    assert leaf_fill(engine) < 0.6  # quarter splits leave emptier leaves than middle splits
    assert engine.check()["keyspaces"]["t"]["records"] == 3000


class BadSplit(DefaultSplitPolicy):
    def __init__(self, answer):
        self.answer = answer

    def choose_split(self, sizes, insert_pos, capacity, fill_factor, ascending):
        return self.answer(sizes)


class BadSeparator(DefaultSplitPolicy):
    def separator(self, left_last, right_first):
        return left_last  # not greater than the left page's last key


@pytest.mark.parametrize("policy, message", [
    (BadSplit(lambda s: 0), r"choose_split returned 0 for \d+ records; it must be an int with 1 <= k <= \d+"),
    (BadSplit(lambda s: len(s)), r"choose_split returned \d+ for \d+ records; it must be an int"),
    (BadSplit(lambda s: 1.5), r"choose_split returned 1.5"),
    (BadSeparator(), r"separator b'.*' is not in \(b'.*', b'.*'\]"),
])
def test_impossible_policy_answers_are_refused_and_nothing_is_applied(policy, message):
    engine, _ = small_engine(split_policy=policy)
    with pytest.raises(ValueError, match=message):
        load(engine, (b"%06d" % i for i in range(200)), value=b"x" * 100, per_batch=1)
    n = len(list(engine.scan("t")))
    assert n > 0 and engine.get("t", b"%06d" % n) is None  # the failing batch left no trace
    engine.check()


def test_policy_split_that_overflows_a_page_is_refused():
    engine, _ = small_engine(split_policy=BadSplit(lambda sizes: 1))
    for i in range(150):
        engine.put("t", b"%06d" % i, b"x" * 10)  # one leaf, about 80% full
    with pytest.raises(ValueError, match=r"returned 1 for 151 records, which leaves 22 bytes on the left and "
                                         r"\d+ on the right; a page holds 4056"):
        engine.put("t", b"000050a", b"y" * 1500)
    assert engine.get("t", b"000050a") is None and len(list(engine.scan("t"))) == 150


def test_deletes_merge_pages_and_the_root_comes_down():
    engine, _ = small_engine(buffer_pool_bytes=256 * 4096)
    keys = [b"%08d" % i for i in range(5000)]
    load(engine, keys)
    height = engine.check()["keyspaces"]["t"]["height"]
    pages = engine.check()["pages"]
    random.Random(3).shuffle(keys)
    for i in range(0, 4990, 10):
        batch = WriteBatch()
        for k in keys[i:i + 10]:
            batch.delete("t", k)
        engine.write(batch)
    report = engine.check()
    assert engine.counters["merges"] > 50
    assert report["free_pages"] > pages // 2  # merged pages went to the free list
    assert report["keyspaces"]["t"]["height"] < height
    assert sorted(k for k, _ in engine.scan("t")) == sorted(keys[4990:])
    load(engine, (b"new%05d" % i for i in range(2000)))  # freed pages are reused
    assert engine.check()["pages"] == pages


def test_merge_threshold_controls_merging():
    counts = {}
    for threshold in (0.1, 0.5):
        engine, _ = small_engine(buffer_pool_bytes=256 * 4096, merge_threshold=threshold)
        keys = [b"%08d" % i for i in range(4000)]
        load(engine, keys)
        for i in range(4000):
            if i % 3:
                engine.delete("t", keys[i])  # leaves drop to about a third full
        counts[threshold] = engine.counters["merges"]
        engine.check()
    assert counts[0.1] <= 2 and counts[0.5] > 20  # at 10% only the short last leaf may merge
