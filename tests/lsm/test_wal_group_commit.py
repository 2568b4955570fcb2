"""The WAL under a server's group commit, where the LSM differs from the contract's common behaviour
(tests/kv/test_contract.py): a sealed memtable's WAL is written in full first, a failed group write loses nothing,
and group commit needs the default disk-full behaviour."""

import errno

import pytest

from minidb.errors import ReadOnlyError
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny

BIG = dict(memtable_bytes=1 << 20)  # nothing is flushed: every write stays in the WAL


def batch(i):
    b = WriteBatch()
    b.put("t", b"%05d" % i, b"v%d" % i)
    return b


def grouped(dev=None):
    """An engine on ``dev`` whose WAL syncs wait for the server's group commit, with keyspace t created."""
    dev = dev if dev is not None else SimDevice()
    db = open_tiny(dev, **BIG)
    db.write(batch(-1))  # creates the keyspace (a MANIFEST edit and its mark) before the counts start
    db.set_group_commit(True)
    return db, dev


def present(dev, n):
    db = open_tiny(dev, **BIG)
    return [db.get("t", b"%05d" % i) is not None for i in range(n)]


def test_sealing_a_memtable_writes_and_syncs_the_waiting_records_first():
    dev = SimDevice()
    db = open_tiny(dev)  # a small memtable: writes seal it and start new WALs
    db.write(batch(-1))
    db.set_group_commit(True)
    first = db.wal_files.writer
    i = 0
    while db.wal_files.writer is first:
        db.write(batch(i))
        i += 1
    assert first.size == first.synced_size > 0  # every record that waited went to the old WAL before the switch
    assert db.wal_files.writer.group_commit  # and the new WAL waits for the group too
    db.sync_log()
    dev.crash()
    assert all(present(dev, i))


def test_a_wal_started_under_group_commit_writes_its_header_with_the_first_group():
    dev = SimDevice()
    db = open_tiny(dev)
    db.write(batch(-1))
    db.set_group_commit(True)
    first, i = db.wal_files.writer, 0
    while db.wal_files.writer is first:
        db.write(batch(i))
        i += 1
    new = db.wal_files.writer
    assert dev.open(new.name, kind="wal").size == 0 and new.size > 0  # its header and first record wait
    before = dev.stats.total(kind="wal")
    db.sync_log()
    io = dev.stats.total(kind="wal") - before
    assert (io.writes, io.syncs) == (1, 1) and new.synced_size == new.size
    db.write(batch(i))  # never synced: lost in the crash, as the server never acknowledged it
    dev.crash()
    assert present(dev, i + 1) == [True] * i + [False]


def test_a_failed_group_write_is_cut_back_and_written_by_the_next_sync():
    db, dev = grouped()
    for i in range(3):
        db.write(batch(i))
    dev.fail_io(1, ops=("write",), err=errno.ENOSPC)
    with pytest.raises(OSError) as info:
        db.sync_log()
    assert info.value.errno == errno.ENOSPC
    with pytest.raises(ReadOnlyError, match="WAL write to"):  # a hard error, as a failed WAL write
        db.write(batch(3))
    db.resume()
    db.write(batch(3))
    db.sync_log()  # the records that waited go first
    dev.crash()
    assert present(dev, 4) == [True] * 4


def test_group_commit_can_be_taken_back():
    db, dev = grouped()
    db.set_group_commit(False)
    before = dev.stats.total(kind="wal")
    db.write(batch(0))
    assert (dev.stats.total(kind="wal") - before).syncs == 1


@pytest.mark.parametrize("options", [dict(on_wal_write_error="abort"), dict(reproduce_2018_disk_full_bug=True)])
def test_group_commit_needs_the_default_disk_full_behaviour(options):
    db = open_tiny(SimDevice(), **options)
    with pytest.raises(ValueError, match="default disk-full behaviour"):
        db.set_group_commit(True)
