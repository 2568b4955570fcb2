"""The change buffer: changes to uncached leaves of non-unique indexes are buffered, merged on read or in the
background, survive crashes, and save page reads."""

import random
import types

import pytest

from minidb.btree import PageCleanerOptions
from minidb.btree.change_buffer_policy import DEFAULT_POLICY, DefaultChangeBufferPolicy
from minidb.kv import WriteBatch

from .helpers import create_insert_benchmark_schema, insert_benchmark_batches, small_engine


def secondary_engine(device=None, **options):
    """A non-unique index 'sec' of 4000 keys (about 60 leaves) behind a 16-page pool."""
    engine, device = small_engine(device, **options)
    if "sec" not in engine.keyspaces():
        engine.create_keyspace("sec", unique=False)
        for i in range(0, 4000, 20):
            batch = WriteBatch()
            for j in range(i, i + 20):
                batch.put("sec", b"%08d" % (j * 1000), b"v" * 40)
            engine.write(batch)
    return engine, device


def scatter(engine, n, seed=1, value=b"new"):
    """n puts at random places of 'sec' (most leaves are not in the pool); returns them."""
    rng = random.Random(seed)
    done = {}
    for _ in range(n):
        key = b"%08d" % (rng.randrange(4000) * 1000 + 1 + rng.randrange(998))
        engine.put("sec", key, value)
        done[key] = value
    return done


def test_changes_to_uncached_leaves_are_buffered_instead_of_read():
    engine, device = secondary_engine()
    before = device.stats.snapshot()
    done = scatter(engine, 300)
    cb = engine.stats(trees=False)["change_buffer"]
    assert cb["buffered_puts"] > 150 and cb["pending_entries"] > 0
    reads = (device.stats - before).total(kind="data", tag="sec").reads
    assert reads < 300 - cb["buffered_puts"] + 30  # the buffered puts read nothing
    assert all(engine.get("sec", k) == v for k, v in done.items())  # reading a leaf merges its changes
    assert engine.stats(trees=False)["change_buffer"]["merged"] >= cb["pending_entries"]
    engine.check()


def test_change_buffer_saves_reads_compared_with_none():
    reads = {}
    for on in (True, False):
        engine, device = secondary_engine(change_buffer=on)
        before = device.stats.snapshot()
        scatter(engine, 400)
        reads[on] = (device.stats - before).total(kind="data").reads
    assert reads[True] < reads[False] / 2


def test_scans_see_buffered_changes_and_deletes():
    engine, _ = secondary_engine()
    expected = {k: v for k, v in engine.scan("sec")}
    expected.update(scatter(engine, 200))
    rng = random.Random(9)
    for key in rng.sample(sorted(expected), 300):
        engine.delete("sec", key)
        del expected[key]
    assert engine.stats(trees=False)["change_buffer"]["buffered_deletes"] > 0
    assert dict(engine.scan("sec")) == expected
    engine.check()


def test_buffered_changes_survive_a_crash():
    engine, device = secondary_engine()
    done = scatter(engine, 300)
    pending = engine.stats(trees=False)["change_buffer"]["pending_entries"]
    assert pending > 0
    device.crash()
    engine, _ = secondary_engine(device)
    cb = engine.stats(trees=False)["change_buffer"]
    # Leaves that the redo replay brought into the pool were merged at once; the rest wait in the buffer.
    assert cb["pending_entries"] + cb["merged"] == pending and cb["pending_entries"] > 0
    engine.check()
    assert all(engine.get("sec", k) == v for k, v in done.items())


def test_page_cleaner_merges_in_the_background():
    cleaner = PageCleanerOptions(every_commits=5, change_buffer_merge_pages=4)
    engine, device = secondary_engine(page_cleaner=cleaner)
    scatter(engine, 150)
    pending = engine.stats(trees=False)["change_buffer"]["pending_pages"]
    for i in range(100):
        engine.put("other", b"%04d" % i, b"x")  # commits let the page cleaner run
    stats = engine.stats(trees=False)
    assert stats["change_buffer"]["pending_pages"] < pending
    assert stats["page_cleaner"]["change_buffer_merged_pages"] > 0
    assert device.stats.total(kind="data", cause="page-cleaner", tag="sec").reads > 0


def test_the_buffer_is_limited_to_its_share_of_the_pool():
    engine, _ = secondary_engine(change_buffer_max_size=0.02)  # 2% of 64 KiB: a few entries
    scatter(engine, 300)
    cb = engine.stats(trees=False)["change_buffer"]
    assert cb["refused_full"] > 0
    assert cb["bytes"] <= cb["max_bytes"] == int(0.02 * 16 * 4096)


def test_unique_keyspaces_are_never_buffered():
    engine, _ = small_engine()
    for i in range(4000):
        engine.put("u", b"%08d" % (i * 1000), b"v" * 40)
    rng = random.Random(2)
    for _ in range(200):
        engine.put("u", b"%08d" % (rng.randrange(4000) * 1000 + 1), b"n")
    assert engine.stats(trees=False)["change_buffer"]["buffered"] == 0


def test_entries_left_by_an_earlier_open_are_merged_with_the_buffer_off():
    engine, device = secondary_engine()
    done = scatter(engine, 300)
    engine.close()
    engine, _ = secondary_engine(device, change_buffer=False)
    assert engine.stats(trees=False)["change_buffer"]["pending_entries"] > 0
    assert all(engine.get("sec", k) == v for k, v in done.items())
    scatter(engine, 50, seed=5)
    assert engine.stats(trees=False)["change_buffer"]["buffered"] == 0


def test_insert_benchmark_with_change_buffer_reads_less():
    reads = {}
    for on in (True, False):
        engine, device = small_engine(change_buffer=on, buffer_pool_bytes=32 * 4096)
        create_insert_benchmark_schema(engine)
        for batch in insert_benchmark_batches(6000, 2):
            engine.write(batch)
        reads[on] = device.stats.total(kind="data", tag="idx_a").reads
        engine.check()
    assert reads[True] < reads[False]


@pytest.mark.parametrize("value", [None, b"x" * 2000])
def test_changes_that_might_not_fit_are_not_buffered(value):
    engine, _ = secondary_engine()
    scatter(engine, 50)  # evict leaves, so their free space is known
    before = engine.stats(trees=False)["change_buffer"]["buffered"]
    rng = random.Random(4)
    for _ in range(100):
        key = b"%08d" % (rng.randrange(4000) * 1000)
        if value is None:
            engine.delete("sec", key)
        else:
            engine.put("sec", key, value)  # larger than a leaf's free space
    cb = engine.stats(trees=False)["change_buffer"]
    if value is None:
        assert cb["buffered_deletes"] > 0  # deletes are buffered while leaves keep records
    else:
        assert cb["buffered"] == before
    engine.check()


class GreedyPolicy(DefaultChangeBufferPolicy):
    """Buffers everything it is asked about, unique indexes included: the engine must refuse."""

    def can_buffer(self, unique, op, record_bytes, leaf, entry_bytes, buffer_free):
        return leaf is not None


class UnsortedMerge(DefaultChangeBufferPolicy):
    """Merges right but returns the records newest key first."""

    def merge(self, records, entries):
        return super().merge(records, entries)[::-1]


def evicting_load(engine, name, rows=2000):
    """Put ``rows`` rows into ``name`` in random order, so that its leaves leave the 16-page pool."""
    rng = random.Random(3)
    for key in rng.sample(range(rows), rows):
        engine.put(name, b"%06d" % key, b"v" * 60)


def test_a_policy_that_buffers_a_unique_index_is_refused():
    engine, _ = small_engine(change_buffer_policy=GreedyPolicy())
    with pytest.raises(ValueError, match="can_buffer said yes to a put that cannot be buffered: the index is unique"):
        evicting_load(engine, "primary")


def test_a_merge_that_breaks_key_order_is_refused():
    engine, _ = small_engine(change_buffer_policy=UnsortedMerge())
    engine.create_keyspace("s", unique=False)
    with pytest.raises(ValueError, match="keys must be strictly ascending"):
        evicting_load(engine, "s")
        engine.check()


def test_a_policy_without_the_two_functions_is_refused():
    with pytest.raises(ValueError, match="bad option change_buffer_policy=.* needs a function merge"):
        small_engine(change_buffer_policy=types.SimpleNamespace(can_buffer=bool))


@pytest.mark.parametrize("unique, op, record_bytes, leaf, entry_bytes, free, expected", [
    (False, "put", 100, (100, 5), 50, 50, True), (False, "put", 101, (100, 5), 50, 50, False),
    (False, "delete", 0, (100, 2), 50, 50, True), (False, "delete", 0, (100, 1), 50, 50, False),
    (False, "put", 10, (100, 5), 51, 50, False), (False, "put", 10, None, 1, 50, False),
    (True, "put", 10, (100, 5), 1, 50, False)])
def test_the_default_policy_at_each_boundary(unique, op, record_bytes, leaf, entry_bytes, free, expected):
    assert DEFAULT_POLICY.can_buffer(unique, op, record_bytes, leaf, entry_bytes, free) is expected
