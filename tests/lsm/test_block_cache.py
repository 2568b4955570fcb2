"""The block cache: LRU by bytes, hits and misses per block kind, index/filter blocks pinned or cached."""

from minidb.lsm.block_cache import BlockCache
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny


def test_lru_by_bytes():
    c = BlockCache(100)
    c.insert((1, 0), "a", 40)
    c.insert((1, 40), "b", 40)
    assert c.lookup((1, 0), "data") == "a"  # now the most recently used
    c.insert((2, 0), "c", 40)  # evicts (1, 40), the least recently used
    assert c.lookup((1, 40), "data") is None
    assert c.usage == 80 and len(c) == 2 and c.evictions == 1
    c.insert((3, 0), "too big", 101)  # larger than the whole cache: not cached
    assert c.lookup((3, 0), "index") is None
    c.erase_file(1)
    assert c.lookup((1, 0), "data") is None and c.usage == 40
    counters = c.counters()
    assert counters["block_cache_data_hits"] == 1 and counters["block_cache_data_misses"] == 2
    assert counters["block_cache_index_misses"] == 1


def loaded(dev, **options):
    db = open_tiny(dev, **options)
    for i in range(3000):
        db.put("t", b"%06d" % i, b"v" * 50)
    db.flush()
    return db


def test_a_second_lookup_hits_the_cache():
    dev = SimDevice()
    db = loaded(dev)
    before = dev.stats.total(cause="foreground").reads
    assert db.get("t", b"001234") == b"v" * 50
    first = dev.stats.total(cause="foreground").reads - before
    assert first >= 1
    assert db.get("t", b"001234") == b"v" * 50
    assert dev.stats.total(cause="foreground").reads - before == first  # no new read
    assert db.stats()["block_cache_data_hits"] >= 1


def test_without_a_cache_every_lookup_reads_its_block():
    dev = SimDevice()
    db = loaded(dev, block_cache_bytes=0)
    for _ in range(3):
        db.get("t", b"001234")
    s = db.stats()
    assert s["blocks_read"] == 3 and s["blocks_read_per_get"] == 1.0


def test_index_and_filter_blocks_in_the_cache_compete_with_data():
    dev = SimDevice()
    pinned = loaded(dev)
    pinned.get("t", b"000001")
    assert pinned.stats()["block_cache_index_misses"] == 0  # pinned: never looked up in the cache
    dev2 = SimDevice()
    cached = loaded(dev2, cache_index_and_filter_blocks=True, block_cache_bytes=2048)
    for i in range(0, 3000, 100):
        cached.get("t", b"%06d" % i)
    s = cached.stats()
    assert s["block_cache_index_misses"] > 0 and s["block_cache_filter_misses"] > 0
    assert s["block_cache_evictions"] > 0  # a small cache: index, filter and data blocks evict each other
