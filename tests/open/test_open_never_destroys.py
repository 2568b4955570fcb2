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
