"""A full device: short writes (what fits is written, then ENOSPC) and allocation (posix_fallocate), on both
implementations."""

import errno

import pytest


def test_a_short_write_keeps_exactly_the_bytes_that_fit(make_device):
    dev = make_device(capacity=100)
    dev.short_writes = True
    f = dev.open("a.log", "wal", create=True)
    f.append(b"a" * 60)
    with pytest.raises(OSError) as info:
        f.append(b"b" * 41)  # one byte too many
    assert info.value.errno == errno.ENOSPC
    assert f.size == 100 and f.read(60, 40) == b"b" * 40 and dev.free == 0
    assert dev.stats.total(kind="wal").write_bytes == 100  # the partial write is counted as written
    with pytest.raises(OSError):
        f.append(b"c")  # nothing fits: nothing written
    assert f.size == 100


def test_a_write_that_fits_exactly_is_whole(make_device):
    dev = make_device(capacity=100)
    dev.short_writes = True
    f = dev.open("a.log", "wal", create=True)
    f.append(b"a" * 100)
    assert f.size == 100


def test_without_short_writes_a_failed_write_changes_nothing(make_device):
    dev = make_device(capacity=100)
    f = dev.open("a.log", "wal", create=True)
    f.append(b"a" * 60)
    with pytest.raises(OSError):
        f.append(b"b" * 41)
    assert f.size == 60


def test_allocate_reserves_zeros_counts_no_io_and_fails_whole(make_device):
    dev = make_device(capacity=8192)
    f = dev.open("t.ibd", "data", create=True)
    f.append(b"x" * 100)
    before = dev.stats.total()
    f.allocate(4096)
    assert dev.stats.total() == before
    assert f.size == 4096 and f.read(100, 3996) == bytes(3996) and dev.used == 4096
    f.allocate(1000)  # already that long: nothing to do
    assert f.size == 4096
    f.allocate(8192)  # exactly the capacity: fits
    with pytest.raises(OSError) as info:
        f.allocate(8193)
    assert info.value.errno == errno.ENOSPC and "t.ibd" in str(info.value)
    assert f.size == 8192
    f.write(5000, b"y" * 100)  # writing inside the allocated room needs no space
    assert f.read(5000, 100) == b"y" * 100
