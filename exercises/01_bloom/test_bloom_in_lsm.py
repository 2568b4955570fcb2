"""Graded test of exercise 01 inside the LSM engine: your filter policy saves the engine's block reads.

The engine builds one filter per table file with your ``create_filter`` and asks ``key_may_match`` before reading a
data block. For a key that is not in the database, a good filter answers "absent" for almost every file, so the
get reads almost nothing; without a filter every file whose key range covers the key costs a block read. For a key
that is, the filter must say "maybe" every time: a false negative hides a stored key, so every key is read back.
"""

from __future__ import annotations

import pytest

from minidb.storage import SimDevice

lsm = pytest.importorskip("minidb.lsm")
if not hasattr(lsm, "open_lsm"):
    pytest.skip("the LSM engine (minidb.lsm.open_lsm) is not built yet", allow_module_level=True)

KEYSPACE = "primary"
FILES = 4  # table files the load leaves, each holding a slice of every key range (one flush each)
KEYS = 2003  # keys stored: 501 or 500 per file, so that some filters' bit counts are not whole bytes
GETS = 400  # gets of absent keys, measured


def _absent_get_reads(policy) -> tuple[float, list[bytes]]:
    """Table-file reads per get of an absent key with ``policy`` (None: no filter at all), and the stored keys
    that were not found (every one is looked up). No block cache, so every block a get looks at is a counted
    read."""
    device = SimDevice()
    no_filter = {"bits_per_key": 0} if policy is None else {}
    engine = lsm.open_lsm(device, filter_policy=policy, block_cache_bytes=0, **no_filter)
    try:
        # Even numbers are stored, odd ones probed: every absent key falls inside every file's key range, so
        # only the filter can spare the engine the block read.
        for f in range(FILES):
            for i in range(f, KEYS, FILES):
                engine.put(KEYSPACE, b"k%08d" % (2 * i), b"v%d" % i)
            engine.flush()
        lost = [b"k%08d" % (2 * i) for i in range(KEYS) if engine.get(KEYSPACE, b"k%08d" % (2 * i)) is None]
        before = device.stats.snapshot()
        for i in range(GETS):
            assert engine.get(KEYSPACE, b"k%08d" % (2 * i + 1)) is None
        reads = (device.stats - before).total(kind="sst").reads
    finally:
        engine.close()
    return reads / GETS, lost


@pytest.mark.points(5)
def test_filter_saves_block_reads(bloom):
    """With your filter at 10 bits per key every stored key is found, and gets of absent keys read under a quarter
    of what they read without."""
    with_filter, lost = _absent_get_reads(bloom.BloomFilterPolicy(10))
    assert not lost, (
        f"{len(lost)} of the {KEYS} keys stored in the engine were not found through your filter (false "
        f"negatives), e.g. {lost[:3]}"
    )
    without_filter, _ = _absent_get_reads(None)
    assert without_filter > 0, "without a filter an absent key should cost block reads: check the test's load"
    assert with_filter <= 0.25 * without_filter, (
        f"table-file reads per absent get: {with_filter:.2f} with your filter, {without_filter:.2f} without"
    )
