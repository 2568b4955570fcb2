"""The OS page cache: which reads it spares the device, how it fills and empties, and how its hits are counted."""

import pytest

from minidb.storage.page_cache import PAGE_BYTES, PageCache
from minidb.storage.sim_device import SimDevice


def device_with_cache(pages: int) -> SimDevice:
    device = SimDevice()
    device.page_cache = PageCache(pages * PAGE_BYTES)
    return device


def sst(device: SimDevice, name: str = "000001.sst", pages: int = 4):
    f = device.open(name, kind="sst", create=True)
    f.append(bytes(range(256)) * (pages * PAGE_BYTES // 256))
    return f


def test_a_read_of_pages_just_written_never_reaches_the_device():
    device = device_with_cache(8)
    f = sst(device)
    assert f.read(PAGE_BYTES, 100) == (bytes(range(256)) * 16)[:100]
    assert device.stats.total().reads == 0
    hits = device.page_cache.hits.total()
    assert (hits.reads, hits.read_bytes) == (1, 100)


def test_a_read_with_one_page_missing_goes_to_the_device_whole_and_caches_its_pages():
    device = device_with_cache(2)  # holds the last two of the four pages written
    f = sst(device)
    f.read(PAGE_BYTES, 2 * PAGE_BYTES)  # pages 1 and 2: page 1 was evicted
    assert (device.stats.total().reads, device.stats.total().read_bytes) == (1, 2 * PAGE_BYTES)
    f.read(PAGE_BYTES, 2 * PAGE_BYTES)
    assert device.stats.total().reads == 1 and device.page_cache.hits.total().reads == 1


def test_the_least_recently_used_page_goes_first_at_capacity_and_not_before():
    device = device_with_cache(3)
    f = sst(device, pages=3)  # pages 0, 1, 2: exactly the capacity
    f.read(0, 1)  # page 0 is now the most recently used
    assert device.stats.total().reads == 0
    f.append(bytes(PAGE_BYTES))  # page 3 evicts page 1, the least recently used
    f.read(0, 1)
    f.read(2 * PAGE_BYTES, 1)
    assert device.stats.total().reads == 0
    f.read(PAGE_BYTES, 1)
    assert device.stats.total().reads == 1


def test_what_the_engines_cache_has_not_taken_holds_pages_until_it_fills():
    """RocksDB's block cache takes memory only as blocks enter it: until then the OS may cache more file pages."""
    device = device_with_cache(2)
    unused = [2 * PAGE_BYTES]  # the engine's cache has two pages' worth free
    device.page_cache.lent = lambda: unused[0]
    f = sst(device)  # four pages: all held, in two pages of its own and two lent
    assert device.page_cache.capacity() == 4
    f.read(0, 1)
    assert device.stats.total().reads == 0
    unused[0] = PAGE_BYTES - 1  # the engine's cache filled: less than a page is left to lend
    f.append(bytes(PAGE_BYTES))  # the next page cached evicts down to the two pages of its own
    assert device.page_cache.capacity() == 2 and device.page_cache.nbytes == 2 * PAGE_BYTES
    f.read(PAGE_BYTES, 1)  # page 1 was evicted
    assert device.stats.total().reads == 1


def test_a_driver_lends_the_lsms_unfilled_block_cache_to_the_page_cache_and_nothing_of_the_btrees_pool():
    from minidb.workloads import DataSetup, Driver, RunSetup
    from minidb import scales
    from minidb.sim.bottleneck import Host

    for engine, lends in (("lsm", True), ("btree", False)):
        setup = RunSetup(DataSetup(engine), cache_bytes=1 << 20, page_cache_bytes=1 << 20)
        drv = Driver.sized(setup, 1 << 20, scales.reference("INSERT_BENCHMARK"), Host())
        cache = drv.storage.page_cache
        assert cache.capacity_pages == (1 << 20) // PAGE_BYTES
        if lends:
            block_cache = drv.engine.cache
            assert cache.capacity() * PAGE_BYTES == (1 << 20) + block_cache.capacity - block_cache.usage
        else:
            assert cache.capacity() == cache.capacity_pages
        drv.engine.close()


@pytest.mark.parametrize("n", [10, 0])
def test_a_page_cache_of_no_pages_counts_as_no_cache_at_all(n):
    counted = []
    for device in (SimDevice(), device_with_cache(0)):
        sst(device).read(0, n)
        counted.append(device.stats)
    assert counted[0] == counted[1] and counted[0].total().reads == 1


def test_a_file_made_again_under_a_deleted_ones_name_is_read_from_the_device():
    device = device_with_cache(8)
    f = sst(device)
    device.delete(f.name)
    f = device.open(f.name, kind="sst", create=True)
    f.allocate(PAGE_BYTES)  # bytes the new file has without a write through the cache
    f.read(0, 1)
    assert device.stats.total().reads == 1


def test_only_the_kinds_read_with_buffered_io_are_cached():
    device = device_with_cache(8)
    f = device.open("ibdata", kind="data", create=True)  # the B+tree's pages: O_DIRECT
    f.append(bytes(PAGE_BYTES))
    f.read(0, PAGE_BYTES)
    assert device.stats.total().reads == 1 and device.page_cache.nbytes == 0


def test_a_hit_is_counted_under_the_cause_and_tag_the_device_had():
    device = device_with_cache(8)
    f = sst(device)
    with device.stats.cause("compaction"), device.stats.tag("t.primary"):
        f.read(0, 10)
    assert device.page_cache.hits.total(cause="compaction", tag="t.primary").read_bytes == 10
    assert device.stats.total().reads == 0


@pytest.mark.parametrize("drop", ["delete", "crash"])
def test_a_deleted_or_crashed_files_pages_leave_the_cache(drop):
    device = device_with_cache(8)
    f = sst(device)
    f.sync()
    device.delete(f.name) if drop == "delete" else device.crash()
    assert device.page_cache.nbytes == 0
    if drop == "crash":  # the file survived; its pages come from the device again
        device.open(f.name, kind="sst").read(0, 1)
        assert device.stats.total().reads == 1


def test_truncating_forgets_only_the_pages_past_the_new_end():
    device = device_with_cache(8)
    f = sst(device)
    f.truncate(PAGE_BYTES + 1)  # page 1 keeps one byte: its page stays, pages 2 and 3 go
    assert device.page_cache.nbytes == 2 * PAGE_BYTES
    f.read(0, PAGE_BYTES + 1)
    assert device.stats.total().reads == 0


def test_a_renamed_file_keeps_its_cached_pages_and_replaces_the_targets():
    device = device_with_cache(8)
    sst(device, "a.sst", pages=1)
    sst(device, "b.sst", pages=2)
    device.rename("a.sst", "b.sst")
    assert device.page_cache.nbytes == PAGE_BYTES
    device.open("b.sst", kind="sst").read(0, PAGE_BYTES)
    assert device.stats.total().reads == 0


@pytest.mark.parametrize("size", [-1, True, 1.5])
def test_a_bad_size_is_refused_with_its_unit(size):
    with pytest.raises(ValueError, match="bytes"):
        PageCache(size)
