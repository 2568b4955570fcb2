"""A read-only open, for tools: recovery into memory only; no file created, written, renamed or deleted."""

import pytest

from minidb.errors import DatabaseMissingError, ReadOnlyError
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

from .engines import files, load, open_engine

ENGINES = ["lsm", "btree"]


@pytest.fixture(params=ENGINES)
def kind(request):
    return request.param


def crashed_database(kind):
    """A device whose engine crashed with acknowledged writes only in the WAL/redo log: recovery has work to do."""
    dev = SimDevice()
    db = open_engine(kind, dev)
    rows = load(db, 400)
    if kind == "btree":
        db.flush()
    rows.update(load(db, 1200, 400))  # replayed from the log at the next open
    dev.crash()
    return dev, rows


def test_read_only_recovers_into_memory_and_changes_no_file(kind):
    dev, rows = crashed_database(kind)
    before = files(dev)
    io = dev.stats.snapshot()
    db = open_engine(kind, dev, read_only=True)
    assert dict(db.scan("t")) == rows
    assert db.get("t", b"k001599") == rows[b"k001599"]
    db.close()
    done = dev.stats.snapshot() - io
    assert done.total().writes == 0 and done.total().syncs == 0
    assert files(dev) == before  # nothing created, written, renamed or deleted
    # ...and a read-write open afterwards recovers the same state.
    db = open_engine(kind, dev)
    assert dict(db.scan("t")) == rows


def test_read_only_refuses_writes(kind):
    dev, rows = crashed_database(kind)
    db = open_engine(kind, dev, read_only=True)
    with pytest.raises(ReadOnlyError, match="read_only=True"):
        db.put("t", b"x", b"y")
    batch = WriteBatch()
    batch.put("t", b"x", b"y")
    with pytest.raises(ReadOnlyError, match="read_only=True"):
        db.write(batch)
    with pytest.raises(ReadOnlyError):
        db.flush()
    assert db.get("t", b"x") is None


def test_read_only_on_a_device_without_a_database_creates_nothing(kind):
    dev = SimDevice()
    with pytest.raises(DatabaseMissingError, match="read_only=True"):
        open_engine(kind, dev, read_only=True)
    assert dev.list() == []


def test_read_only_opens_on_a_full_device(kind):
    dev, rows = crashed_database(kind)
    dev.capacity = dev.used  # 100% full
    db = open_engine(kind, dev, read_only=True)
    assert dict(db.scan("t")) == rows
    db.close()


def test_btree_read_only_rolls_back_an_open_batch_in_memory():
    """A batch cut by a crash after some of its groups reached the log: the read-only open takes it back in memory
    (the rollback's own log and pages never reach the device) and shows the state before the batch."""
    from minidb.errors import DeviceCrashed

    rolled_back = 0
    for n in range(5, 80, 15):
        dev = SimDevice()
        db = open_engine("btree", dev)
        rows = load(db, 300)
        db.flush()
        batch = WriteBatch()
        for i in range(3000):  # far more pages than a quarter of the 16-page pool: many groups
            batch.put("t", b"z%06d" % i, b"w" * 40)
        dev.crash_at_io(n, ops=("write", "sync"))
        with pytest.raises(DeviceCrashed):
            db.write(batch)
        before = files(dev)
        ro = open_engine("btree", dev, read_only=True)
        assert dict(ro.scan("t")) == rows
        rolled_back += ro.recovery["rolled_back"] > 0
        ro.close()
        assert files(dev) == before
        assert dict(open_engine("btree", dev).scan("t")) == rows  # the read-write recovery agrees
    assert rolled_back > 0
