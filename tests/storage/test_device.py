"""The Device contract, checked on both SimDevice and DirDevice: bytes, errors, capacity, injected failures."""

import errno

import pytest


def test_write_read_append_and_holes(make_device):
    dev = make_device()
    f = dev.open("t.sst", "sst", create=True)
    assert f.append(b"hello") == 0
    assert f.append(b"world") == 5
    f.write(12, b"!")  # a gap past the end reads as zeros
    assert f.size == 13
    assert f.read(0, 13) == b"helloworld\x00\x00!"
    f.write(0, b"J")
    assert f.read(0, 5) == b"Jello"
    assert dev.size("t.sst") == 13
    assert dev.used == 13


def test_files_listing_rename_delete(make_device):
    dev = make_device()
    for name in ("b.sst", "a.sst", "MANIFEST-1"):
        dev.open(name, "sst", create=True).append(b"x" * 3)
    assert dev.list() == ["MANIFEST-1", "a.sst", "b.sst"]
    assert dev.list(prefix="a") == ["a.sst"]
    dev.rename("a.sst", "b.sst")  # replaces b.sst
    assert dev.list() == ["MANIFEST-1", "b.sst"]
    assert dev.used == 6
    dev.delete("b.sst")
    assert not dev.exists("b.sst")
    assert dev.used == 3


def test_reading_past_end_names_file_and_values(make_device):
    f = make_device().open("w.log", "wal", create=True)
    f.append(b"abc")
    with pytest.raises(ValueError, match=r"read past end of 'w.log': offset 2 \+ 5 bytes > size 3"):
        f.read(2, 5)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda f: f.read(-1, 1), "bad offset -1"),
        (lambda f: f.read(0, -2), "bad size -2"),
        (lambda f: f.write(-5, b"x"), "bad offset -5"),
        (lambda f: f.truncate(10), "holds only 3"),
    ],
)
def test_bad_arguments(make_device, call, message):
    f = make_device().open("w.log", "wal", create=True)
    f.append(b"abc")
    with pytest.raises(ValueError, match=message):
        call(f)


def test_closed_file_refuses_io(make_device):
    f = make_device().open("w.log", "wal", create=True)
    f.close()
    with pytest.raises(ValueError, match="cannot append 'w.log': the file is closed"):
        f.append(b"x")


def test_open_checks_name_kind_and_existence(make_device):
    dev = make_device()
    with pytest.raises(ValueError, match="bad file name"):
        dev.open("../etc/passwd", "data", create=True)
    with pytest.raises(ValueError, match="unknown file kind 'swap'"):
        dev.open("x", "swap", create=True)
    with pytest.raises(FileNotFoundError, match="no file 'missing'"):
        dev.open("missing", "data")
    with pytest.raises(FileNotFoundError):
        dev.delete("missing")


def test_enospc_changes_nothing(make_device):
    dev = make_device(capacity=100)
    f = dev.open("d.ibd", "data", create=True)
    f.append(b"a" * 60)
    with pytest.raises(OSError) as info:
        f.write(50, b"b" * 60)  # would grow to 110 bytes
    assert info.value.errno == errno.ENOSPC
    assert "d.ibd" in str(info.value)
    assert f.read(0, 60) == b"a" * 60 and f.size == 60
    f.write(0, b"c" * 60)  # overwriting in place needs no space
    f.append(b"d" * 40)  # exactly fills the device
    assert dev.free == 0
    dev.capacity = 200  # "free space"
    f.append(b"e" * 10)
    assert f.size == 110


def test_delete_frees_space(make_device):
    dev = make_device(capacity=10)
    dev.open("a", "other", create=True).append(b"x" * 10)
    with pytest.raises(OSError):
        dev.open("b", "other", create=True).append(b"y")
    dev.delete("a")
    dev.open("b", "other").append(b"y" * 10)
    assert dev.used == 10


def test_fail_nth_io_raises_and_changes_nothing(make_device):
    dev = make_device()
    f = dev.open("x.log", "wal", create=True)
    dev.fail_io(2, ops=("write",))
    f.append(b"one")
    with pytest.raises(OSError, match="injected .* on write of 'x.log'") as info:
        f.append(b"two")
    assert info.value.errno == errno.EIO
    f.append(b"three")
    assert f.read(0, f.size) == b"onethree"


def test_fail_sync_and_read(make_device):
    dev = make_device()
    f = dev.open("x.log", "wal", create=True)
    f.append(b"abc")
    dev.fail_io(1, ops=("sync",), err=errno.EIO)
    with pytest.raises(OSError):
        f.sync()
    dev.fail_io(1, ops=("read",))
    with pytest.raises(OSError):
        f.read(0, 1)
    assert f.read(0, 3) == b"abc"
    with pytest.raises(ValueError, match="bad fault position"):
        dev.fail_io(0)
    with pytest.raises(ValueError, match="unknown IO point"):
        dev.fail_io(1, ops=("erase",))


def test_io_points_count_metadata_operations(make_device):
    dev = make_device()
    f = dev.open("a", "other", create=True)
    f.append(b"x")
    f.sync()
    f.read(0, 1)
    f.truncate(0)
    dev.rename("a", "b")
    dev.delete("b")
    assert dev.io_points == 6


def test_dir_device_undoes_a_real_partial_write(tmp_path, monkeypatch):
    """A real ENOSPC in the middle of a write (simulated by a pwrite that writes half, then fails) changes nothing."""
    import os

    from minidb.storage import DirDevice

    dev = DirDevice(tmp_path / "db")
    f = dev.open("d.ibd", "data", create=True)
    f.append(b"a" * 100)
    real_pwrite = os.pwrite
    calls = []

    def half_then_enospc(fd, data, offset):
        calls.append(offset)
        if len(calls) == 1:
            return real_pwrite(fd, bytes(data[: len(data) // 2]), offset)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_pwrite(fd, data, offset)  # the undo itself rewrites within the old size

    monkeypatch.setattr(os, "pwrite", half_then_enospc)
    with pytest.raises(OSError) as info:
        f.write(50, b"b" * 100)
    monkeypatch.undo()
    assert info.value.errno == errno.ENOSPC
    assert f.size == 100 and f.read(0, 100) == b"a" * 100
    assert dev.used == 100
    assert dev.stats.total().writes == 1  # only the first append was counted
    dev.close()
