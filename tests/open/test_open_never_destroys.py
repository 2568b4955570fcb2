"""Opening never destroys: files without the database's marker are an error, never an empty database over them;
``create_if_missing`` and ``error_if_exists`` as RocksDB has them."""

import pytest

from minidb.errors import CorruptionError, DatabaseExistsError, DatabaseMissingError, NotADatabaseError
from minidb.storage import SimDevice

from .engines import MARKER, files, load, open_engine

ENGINES = ["lsm", "btree"]


@pytest.fixture(params=ENGINES)
def kind(request):
    return request.param


def test_a_database_without_its_marker_file_is_an_error_and_nothing_is_deleted(kind):
    dev = SimDevice()
    db = open_engine(kind, dev)
    load(db, 500)
    db.close()
    dev.delete(MARKER[kind])
    before = files(dev)
    with pytest.raises(NotADatabaseError, match=rf"SimDevice.*holds files .* but no {MARKER[kind]}") as info:
        open_engine(kind, dev)
    assert isinstance(info.value, CorruptionError)  # damage, for whoever catches by that
    assert files(dev) == before  # not one file deleted, written or created


def test_another_engines_database_is_not_overwritten(kind):
    other = "btree" if kind == "lsm" else "lsm"
    dev = SimDevice()
    db = open_engine(other, dev)
    load(db, 100)
    db.close()
    before = files(dev)
    with pytest.raises(NotADatabaseError):
        open_engine(kind, dev)
    assert files(dev) == before


def test_create_if_missing_false_on_an_empty_device_creates_nothing(kind):
    dev = SimDevice()
    with pytest.raises(DatabaseMissingError, match="create_if_missing=False"):
        open_engine(kind, dev, create_if_missing=False)
    assert dev.list() == []
    open_engine(kind, dev).close()  # the default creates it
    db = open_engine(kind, dev, create_if_missing=False)  # and now it exists
    db.close()


def test_error_if_exists(kind):
    dev = SimDevice()
    db = open_engine(kind, dev, error_if_exists=True)  # a new database: fine
    rows = load(db, 100)
    db.close()
    before = files(dev)
    with pytest.raises(DatabaseExistsError, match="already holds"):
        open_engine(kind, dev, error_if_exists=True)
    assert files(dev) == before
    db = open_engine(kind, dev)
    assert dict(db.scan("t")) == rows


@pytest.mark.parametrize("option", ["create_if_missing", "error_if_exists", "read_only"])
def test_the_options_are_checked(kind, option):
    with pytest.raises(ValueError, match=option):
        open_engine(kind, SimDevice(), **{option: "yes"})


def debris(kind, dev):
    """Files an open that succeeds would delete as obsolete: for the LSM a stray ``CURRENT.tmp``, an SST no version
    names and an old MANIFEST; for the B+tree a newest redo file whose header never reached the disk, and the
    doublewrite file (the open below is without doublewrite)."""
    names = {"lsm": ("CURRENT.tmp", "999990.sst", "MANIFEST-999991"),
             "btree": ("redo-99999999.log",)}[kind]
    for name in names:
        f = dev.open(name, kind="data", create=True)
        f.write(0, bytes(100) if name.startswith("redo-") else b"x" * 100)
        f.sync()
        f.close()
    return names


def flip(dev, name, offset, n=64):
    """Invert ``n`` bytes of file ``name`` from ``offset`` on, durably."""
    f = dev.open(name, kind="data")
    f.write(offset, bytes(b ^ 0xFF for b in f.read(offset, min(n, f.size - offset))))
    f.sync()
    f.close()


def cut(dev, name):
    f = dev.open(name, kind="data")
    f.truncate(f.size // 2)
    f.close()


def newest(dev, prefix, suffix=""):
    return max(n for n in dev.list() if n.startswith(prefix) and n.endswith(suffix))


DAMAGE = {  # engine -> damage the open itself finds, one kind of file each
    "lsm": {
        "an SST cut short": lambda dev: cut(dev, newest(dev, "0", ".sst")),
        "the newest WAL damaged before synced batches": lambda dev: flip(dev, newest(dev, "0", ".log"), 100),
        "the MANIFEST's first edit": lambda dev: flip(dev, newest(dev, "MANIFEST-"), 10),
    },
    "btree": {
        "page 0 of the tablespace": lambda dev: flip(dev, "tablespace.ibd", 100),
        "the newest redo file": lambda dev: flip(dev, newest(dev, "redo-0"), 100),
        "both checkpoint blocks": lambda dev: (flip(dev, "redo-checkpoint", 10), flip(dev, "redo-checkpoint", 522)),
    },
}


@pytest.mark.parametrize("which", range(3))
def test_a_failed_open_deletes_nothing_whichever_file_is_damaged(kind, which):
    # debris an open would clean up, and damage the open finds in one file of each kind: the open fails, and every
    # file is still there (the engines check everything before they delete anything)
    dev = SimDevice()
    db = open_engine(kind, dev, **({"wal_sync": "write"} if kind == "lsm" else {}))
    load(db, 500)
    dev.crash()
    list(DAMAGE[kind].values())[which](dev)
    debris(kind, dev)
    before = sorted(dev.list())
    with pytest.raises(CorruptionError):
        open_engine(kind, dev, **({"doublewrite": False} if kind == "btree" else {}))
    assert sorted(dev.list()) == before
