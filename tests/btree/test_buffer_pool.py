"""The buffer pool: LRU with midpoint insertion, hit/miss counters, eviction write-back, pins of an open batch."""

import pytest

from minidb.btree import BufferPoolFull
from minidb.btree.buffer_pool import BufferPool

from .helpers import small_engine


def fill(pool, pages):
    return [pool.add(p, bytearray(pool.page_size), True) for p in pages]


def lru_order(pool):
    return [f.page_no for f in pool.frames()]


def test_new_pages_enter_at_the_midpoint_and_old_sublist_is_37_percent():
    pool = BufferPool(4096, 100)
    fill(pool, range(100))
    assert pool.old_count == 37 and pool.young_count == 63
    pool.op += 1
    pool.evict(pool.victims(1)[0])
    pool.add(500, bytearray(4096), True)
    order = lru_order(pool)
    assert order.index(500) in (100 - 37, 100 - 36)  # head of the old sublist, not head of the list
    assert pool.peek(500).old


def test_second_access_promotes_only_in_a_later_operation():
    pool = BufferPool(4096, 10)
    fill(pool, range(10))
    frame = pool.peek(9)
    assert frame.old
    pool.get(9)  # same operation that read it: a scan touching a page twice stays old
    assert frame.old and pool.counters()["not_made_young"] == 1
    pool.op += 1
    pool.get(9)
    assert not frame.old and lru_order(pool)[0] == 9
    assert pool.counters()["made_young"] == 1


def test_victims_come_from_the_tail_and_skip_fixed_frames():
    pool = BufferPool(4096, 8)
    frames = fill(pool, range(8))
    tail = lru_order(pool)[-1]
    pool.peek(tail).fix += 1
    victims = pool.victims(3)
    assert tail not in [f.page_no for f in victims] and len(victims) == 3
    with pytest.raises(RuntimeError, match="in use"):
        pool.evict(pool.peek(tail))
    assert frames[0].fix == 0


def test_the_clean_victim_is_the_first_clean_frame_among_the_victims_and_no_further():
    pool = BufferPool(4096, 8)
    fill(pool, range(8))
    order = lru_order(pool)
    pool.peek(order[-1]).fix += 1  # the tail is in use: not a victim, and not counted against the limit
    pool.commit([pool.peek(p) for p in order[-4:-1]], 1, 2)  # the next three victims are dirty
    assert [f.page_no for f in pool.victims(4)] == order[-2:-6:-1]
    assert pool.clean_victim(3) is None, "the clean frame is the fourth victim: past a limit of three"
    assert pool.clean_victim(4).page_no == order[-5]
    assert pool.clean_victim(4) is next(f for f in pool.victims(4) if not f.dirty)


def test_hits_and_reads_match_counted_io():
    engine, device = small_engine()
    for i in range(3000):
        engine.put("t", b"%06d" % i, b"x" * 60)
    engine.flush()
    before = device.stats.snapshot()
    reads_before = engine.pool.reads
    for i in range(0, 3000, 7):
        assert engine.get("t", b"%06d" % i) == b"x" * 60
    counted = (device.stats - before).total(kind="data").reads
    c = engine.pool.counters()
    assert counted == engine.pool.reads - reads_before > 0
    assert c["read_requests"] == c["hits"] + c["reads"] and 0 < c["hit_rate"] < 1


def test_a_scan_does_not_push_hot_pages_out():
    engine, device = small_engine(buffer_pool_bytes=32 * 4096)
    for i in range(8000):
        engine.put("t", b"%06d" % i, b"x" * 60)
    hot = [b"%06d" % i for i in range(0, 8000, 1000)]  # 8 leaves, plus the internal pages
    for _ in range(3):
        for k in hot:
            engine.get("t", k)  # each get is its own operation: hot pages become young
    assert len(list(engine.scan("t"))) == 8000  # reads ~140 leaves through a 32-page pool
    before = device.stats.snapshot()
    for k in hot:
        engine.get("t", k)
    assert (device.stats - before).total(kind="data").reads == 0


def test_eviction_writes_dirty_pages_back_with_cause_eviction():
    engine, device = small_engine()
    for i in range(3000):
        engine.put("t", b"%06d" % i, b"x" * 60)
    evicted = device.stats.total(kind="data", cause="eviction")
    assert evicted.writes > 0 and evicted.write_bytes == evicted.writes * 4096
    assert engine.pool.counters()["evictions"] > 0
    assert device.stats.total(kind="doublewrite", cause="eviction").write_bytes == evicted.write_bytes


def test_pool_size_is_validated():
    with pytest.raises(ValueError, match=r"bad buffer_pool_bytes 40960: must be an int >= 65536 \(at least 16 pages"):
        small_engine(buffer_pool_bytes=10 * 4096)


def test_a_pool_whose_every_frame_is_in_use_raises_buffer_pool_full():
    engine, _ = small_engine()
    for i in range(2000):
        engine.put("t", b"%06d" % i, b"x" * 100)
    engine.flush()
    for page_no in range(16):
        engine.pager.fetch(page_no, "")  # fixed until release(), as during one operation
    with pytest.raises(BufferPoolFull, match="all 16 frames of 4096 bytes are pinned by the open mini-transaction or"):
        engine.pager.fetch(16, "")
    engine.pager.release()
    assert engine.get("t", b"000001") == b"x" * 100
