"""Opening on a full disk: a database opens and reads with no free byte; ENOSPC names the file and the operation."""

import errno
import os

import pytest

from minidb.errors import NoSpaceError
from minidb.storage import DirDevice, SimDevice

from .engines import load, open_engine


def test_lsm_reopens_read_write_on_a_full_disk_without_flushing_its_wals():
    dev = SimDevice()
    db = open_engine("lsm", dev, memtable_bytes=1 << 20)  # nothing flushed: everything is in the WAL
    rows = load(db, 2000)
    dev.crash()
    wal_bytes = sum(dev.size(n) for n in dev.list() if n.endswith(".log"))
    assert wal_bytes > 100_000
    dev.capacity = dev.used  # 100% full: not one byte for an SST of the WAL's records
    io = dev.stats.snapshot()
    db = open_engine("lsm", dev, memtable_bytes=1 << 20)
    assert (dev.stats.snapshot() - io).total().write_bytes == 0
    assert dict(db.scan("t")) == rows
    with pytest.raises(NoSpaceError):  # writing still needs space...
        load(db, 1, 5000)
    dev.capacity = None  # ...and works once some is freed and the engine resumed (on_wal_write_error="read_only")
    db.resume()
    rows.update(load(db, 10, 5000))
    db.close()
    db = open_engine("lsm", dev)
    assert dict(db.scan("t")) == rows


def test_lsm_replayed_wals_stay_until_a_flush_makes_them_obsolete():
    dev = SimDevice()
    db = open_engine("lsm", dev, memtable_bytes=1 << 20)
    rows = load(db, 300)
    dev.crash()
    old_wals = [n for n in dev.list() if n.endswith(".log")]
    db = open_engine("lsm", dev, memtable_bytes=1 << 20)
    assert set(old_wals) < set(n for n in dev.list() if n.endswith(".log"))  # kept, plus the new one
    db.flush()
    assert not set(old_wals) & set(dev.list())
    db.close()
    assert dict(open_engine("lsm", dev).scan("t")) == rows


def test_lsm_a_torn_wal_tail_is_cut_so_the_kept_wal_reads_cleanly_next_time():
    dev = SimDevice()
    db = open_engine("lsm", dev, memtable_bytes=1 << 20)
    rows = load(db, 300)
    (wal,) = [n for n in dev.list() if n.endswith(".log")]
    f = dev.open(wal, kind="wal")
    f.append(b"\x12\x34\x56\x78\x40\x00\x01torn")  # a record cut short by a crash
    f.sync()
    dev.crash()
    db = open_engine("lsm", dev, memtable_bytes=1 << 20)
    assert dict(db.scan("t")) == rows
    rows.update(load(db, 10, 1000))  # into the new WAL, after the kept one
    dev.crash()
    assert dict(open_engine("lsm", dev).scan("t")) == rows  # no "damage in a WAL that is not the last"


def test_btree_reopens_read_write_on_a_full_disk_after_a_clean_close():
    dev = SimDevice()
    db = open_engine("btree", dev)
    rows = load(db, 1000)
    db.close()
    dev.capacity = dev.used
    io = dev.stats.snapshot()
    db = open_engine("btree", dev)
    assert dict(db.scan("t")) == rows
    assert (dev.stats.snapshot() - io).total().write_bytes == 0
    db.close()


def test_no_space_names_the_file_and_the_operation_and_stays_an_oserror():
    dev = SimDevice(capacity=10)
    f = dev.open("000001.log", kind="wal", create=True)
    with pytest.raises(OSError) as info:
        f.append(b"x" * 11)
    e = info.value
    assert isinstance(e, NoSpaceError) and e.errno == errno.ENOSPC and e.filename == "000001.log"
    assert "write of '000001.log'" in str(e) and e.operation == "write"


def test_a_real_enospc_in_a_dir_device_is_named_and_changes_nothing(tmp_path, monkeypatch):
    dev = DirDevice(tmp_path)
    f = dev.open("tablespace.ibd", kind="data", create=True)
    f.append(b"a" * 100)
    real = os.pwrite

    def full(fd, data, offset):
        real(fd, bytes(data[:10]), offset)  # some bytes land, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "pwrite", full)
    with pytest.raises(NoSpaceError, match=r"write of 'tablespace.ibd' \(50 bytes at offset 100"):
        f.append(b"b" * 50)
    monkeypatch.setattr(os, "pwrite", real)
    assert f.read(0, f.size) == b"a" * 100

    def fsync_full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync_full)
    with pytest.raises(NoSpaceError, match="sync of 'tablespace.ibd'") as info:
        f.sync()
    assert info.value.errno == errno.ENOSPC


def test_btree_recovers_on_a_full_disk_when_its_pool_holds_the_replayed_pages():
    dev = SimDevice()
    pool = dict(buffer_pool_bytes=256 * 4096)
    db = open_engine("btree", dev, **pool)
    rows = load(db, 400)
    db.flush()
    rows.update(load(db, 1200, 400))  # only in the redo log
    dev.crash()
    dev.capacity = dev.used
    io = dev.stats.snapshot()
    db = open_engine("btree", dev, **pool)
    assert dict(db.scan("t")) == rows
    assert (dev.stats.snapshot() - io).total().write_bytes == 0  # replayed into the pool: nothing written


def test_btree_recovery_that_must_write_names_the_file_when_the_disk_is_full():
    dev = SimDevice()
    db = open_engine("btree", dev)  # a 16-page pool: replay must write pages back, some past the file's end
    load(db, 400)
    db.flush()
    load(db, 1200, 400)
    dev.crash()
    dev.capacity = dev.used
    with pytest.raises(NoSpaceError, match="write of 'tablespace.ibd'"):
        open_engine("btree", dev)
    dev.capacity = None  # space freed: the same recovery now succeeds, nothing lost
    assert len(dict(open_engine("btree", dev).scan("t"))) == 1600


def test_no_space_error_survives_pickling_to_and_from_a_worker_process():
    import pickle

    e = pickle.loads(pickle.dumps(NoSpaceError("sync", "000007.log", "detail")))
    assert (type(e), e.errno, e.filename, e.operation, str(e)) == (
        NoSpaceError, errno.ENOSPC, "000007.log", "sync", str(NoSpaceError("sync", "000007.log", "detail")))
