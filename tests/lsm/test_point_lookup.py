"""A point lookup's walk over the SSTs (point_lookup.pyx): newest L0 file first, then one file per deeper level,
each behind its filter; what it counts is the same whether the filters are pinned or read through the cache."""

import pytest

from minidb.storage import SimDevice

from .lsm_helpers import open_tiny

COUNTED = ("get_tables_probed", "bloom_checked", "bloom_useful", "bloom_positive", "bloom_true_positive",
           "page_visits")


def two_l0_files_over_l1(cached_meta: bool):
    """Key b"k" in L1 and in two L0 files (values v1 < v2 < v3 by age), key b"a" in L1 only, keys b"j" and
    b"l" bounding every L0 file."""
    db = open_tiny(SimDevice(), disable_auto_compactions=True, cache_index_and_filter_blocks=cached_meta,
                   block_cache_bytes=1 << 20)
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
def test_the_newest_l0_file_answers_first_and_the_walk_stops_there(cached_meta):
    db = two_l0_files_over_l1(cached_meta)
    value, counts = counted(db, b"k")
    assert value == b"v3"
    assert counts["get_tables_probed"] == 1 and counts["bloom_true_positive"] == 1


@pytest.mark.parametrize("cached_meta", [False, True], ids=["pinned", "cached"])
def test_a_key_below_every_l0_file_costs_one_l1_file_and_one_filter_visit(cached_meta):
    db = two_l0_files_over_l1(cached_meta)
    value, counts = counted(db, b"a")
    assert value == b"only in L1"
    assert counts["get_tables_probed"] == 1 and counts["bloom_checked"] == 1


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
