"""Point lookups: what they cost depends on the LSM's shape (seed 000: memtable and L0 state make read-only
results vary); bloom filters keep absent keys cheap."""

import random

from minidb.storage import SimDevice

from .lsm_helpers import open_tiny


def shaped(l0_files):
    """A database with its data spread over ``l0_files`` overlapping L0 files (compactions off)."""
    dev = SimDevice()
    db = open_tiny(dev, disable_auto_compactions=True, block_cache_bytes=0)
    for f in range(l0_files):
        for i in range(f, 2000, l0_files):
            db.put("t", b"%06d" % i, b"v" * 20)
        db.flush()
    return dev, db


def probe(db, keys):
    before = dict(db.stats())
    for k in keys:
        db.get("t", k)
    after = db.stats()
    return {name: after[name] - before[name] for name in ("get_tables_probed", "blocks_read", "bloom_checked",
                                                           "bloom_useful")}


def test_lookup_cost_tracks_l0_files_and_compaction_removes_it():
    keys = [b"%06d" % i for i in random.Random(1).sample(range(2000), 200)]
    costs = {}
    for n in (1, 4, 8):
        _, db = shaped(n)
        costs[n] = probe(db, keys)
    # Every L0 file overlaps every key: a lookup asks the files newest first until one has the key, (n+1)/2 of
    # them on average...
    for n in (1, 4, 8):
        assert abs(costs[n]["get_tables_probed"] - 200 * (n + 1) / 2) <= 0.1 * 200 * (n + 1) / 2
        # ...but the filters say "no" for the files without the key: still about one block read per lookup.
        assert 200 <= costs[n]["blocks_read"] <= 200 * 1.1
        assert costs[n]["bloom_useful"] >= 0.95 * (costs[n]["get_tables_probed"] - 200)
    _, db = shaped(8)
    db.compact_range()
    assert probe(db, keys)["get_tables_probed"] == 200  # one sorted run: one table per lookup


def test_absent_keys_cost_almost_no_reads():
    _, db = shaped(4)
    absent = [b"%06dx" % i for i in range(2000)]
    cost = probe(db, absent)
    rate = (cost["bloom_checked"] - cost["bloom_useful"]) / cost["bloom_checked"]
    assert rate < 0.03  # ~1% false positives at 10 bits per key
    assert cost["blocks_read"] == cost["bloom_checked"] - cost["bloom_useful"]
    assert db.stats()["bloom_false_positive"] >= cost["blocks_read"]


def test_a_get_and_a_scan_count_their_block_reads_under_their_keyspace():
    # As the B+tree's pager tags a page read with its index, the LSM tags the blocks a lookup reads: which index's
    # reads miss the cache (the TPC-C chapters count them per table).
    dev, db = shaped(2)
    db.put("u", b"000001", b"w" * 20)
    db.flush()
    db.get("t", b"000007")
    list(db.scan("u"))
    fg = dev.stats.to_frame().query("cause == 'foreground' and reads > 0").set_index("tag").reads
    assert fg["t"] >= 1 and fg["u"] >= 1
    assert fg.get("", 0) == 0  # no foreground block read goes untagged
