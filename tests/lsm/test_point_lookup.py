"""A point lookup's walk over the SSTs (point_lookup.pyx): newest L0 file first, then one file per deeper level,
each behind its filter; what it counts is the same whether the filters are pinned or read through the cache. And the
files a scan reads in a deeper level, found by binary search."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.lsm.bloom import BloomFilterPolicy
from minidb.lsm.dbformat import pack_internal_key
from minidb.lsm.version import Version
from minidb.lsm.version_edit import FileMeta
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny

COUNTED = ("get_tables_probed", "bloom_checked", "bloom_useful", "bloom_positive", "bloom_true_positive",
           "page_visits")


def two_l0_files_over_l1(cached_meta: bool, **options):
    """Key b"k" in L1 and in two L0 files (values v1 < v2 < v3 by age), key b"a" in L1 only, keys b"j" and
    b"l" bounding every L0 file."""
    db = open_tiny(SimDevice(), disable_auto_compactions=True, cache_index_and_filter_blocks=cached_meta,
                   block_cache_bytes=1 << 20, **options)
    for value in (b"v1", b"v2", b"v3"):
        db.put("t", b"j", b"x")
        db.put("t", b"k", value)
        db.put("t", b"l", b"x")
        if value == b"v1":
            db.put("t", b"a", b"only in L1")
            db.flush()
            db.compact_range()  # L1
        else:
            db.flush()  # L0
    return db


def counted(db, key):
    before = dict(db.work(), **db.stats())
    value = db.get("t", key)
    after = dict(db.work(), **db.stats())
    return value, {name: after[name] - before[name] for name in COUNTED}


@pytest.mark.parametrize("cached_meta", [False, True], ids=["pinned", "cached"])
@pytest.mark.parametrize("key, value, asked", [
    (b"k", b"v3", "bloom_true_positive"),  # in both L0 files: the newest answers, and the walk stops there
    (b"a", b"only in L1", "bloom_checked"),  # below every L0 file: one L1 file, one filter asked
])
def test_a_lookup_asks_one_table_when_the_first_it_may_be_in_holds_it(cached_meta, key, value, asked):
    db = two_l0_files_over_l1(cached_meta)
    found, counts = counted(db, key)
    assert found == value
    assert counts["get_tables_probed"] == 1 and counts[asked] == 1


def test_pinned_and_cached_filters_count_the_same_walk():
    """An absent key inside every file's range: both L0 files and the L1 file are asked, each filter once."""
    walks = []
    for cached_meta in (False, True):
        db = two_l0_files_over_l1(cached_meta)
        db.get("t", b"k")  # the cached filters and index blocks are in the cache from here on
        value, counts = counted(db, b"k0")
        assert value is None
        walks.append(counts)
    assert walks[0] == walks[1]
    assert walks[0]["get_tables_probed"] == walks[0]["bloom_checked"] == 3
    assert walks[0]["bloom_useful"] + walks[0]["bloom_positive"] == 3


class AskedBloom:
    """A filter policy of its own (as exercise 01 plugs one in) that answers as the built-in bloom, and counts the
    keys it is asked about."""

    name = BloomFilterPolicy(10).name  # the built-in's format: the same filters are written and read

    def __init__(self):
        self.bloom, self.asked = BloomFilterPolicy(10), 0

    def create_filter(self, keys):
        return self.bloom.create_filter(keys)

    def key_may_match(self, key, filter):
        self.asked += 1
        return self.bloom.key_may_match(key, filter)


@pytest.mark.parametrize("key", [b"k", b"a", b"k0"], ids=["in-two-l0", "in-l1", "absent"])
def test_a_plugged_in_filter_answers_the_walk_as_the_built_in_would(key):
    """The walk asks the built-in bloom in C and any other policy through its ``key_may_match``: the same files
    are asked, counted alike, and a plugged-in policy is the one asked."""
    plugged = AskedBloom()
    built_in = counted(two_l0_files_over_l1(False), key)
    assert counted(two_l0_files_over_l1(False, filter_policy=plugged), key) == built_in
    assert plugged.asked == built_in[1]["bloom_checked"] > 0


@given(st.lists(st.binary(min_size=1, max_size=3), min_size=0, max_size=24, unique=True),
       st.binary(max_size=3), st.binary(max_size=3))
def test_a_scan_reads_the_files_of_a_level_whose_keys_meet_its_range(bounds, start, end):
    """``Version.in_range`` (binary search) finds the files a filter over the whole level would: those with a key
    in ``[start, end)``, including when the range is empty or reversed."""
    keys = sorted(bounds)
    v = Version.empty(7)
    for number, (lo, hi) in enumerate(zip(keys[::2], keys[1::2]), 1):  # sorted, disjoint files
        v.add(1, FileMeta(number, 100, pack_internal_key(lo, 1, 1), pack_internal_key(hi, 1, 1), 1, 1, 1, 0))
    every = [f for f in v.levels[1] if f.largest_user >= start and f.smallest_user < end]
    assert v.in_range(1, start, end) == every
