"""One writer per database: the device's LOCK, in this process and against another process."""

import subprocess
import sys
import textwrap

import pytest

from minidb.errors import DatabaseLockedError
from minidb.storage import DirDevice, SimDevice

from .engines import load, open_engine

ENGINES = ["lsm", "btree"]


@pytest.fixture(params=ENGINES)
def kind(request):
    return request.param


def test_a_second_writer_is_refused_until_the_first_closes(kind):
    dev = SimDevice()
    db = open_engine(kind, dev)
    rows = load(db, 100)
    with pytest.raises(DatabaseLockedError, match=r"SimDevice.* is locked: another engine has the database open"):
        open_engine(kind, dev)
    reader = open_engine(kind, dev, read_only=True)  # readers need no lock, as RocksDB's OpenForReadOnly
    reader.close()
    db.close()
    db = open_engine(kind, dev)
    assert dict(db.scan("t")) == rows
    db.close()


def test_a_crash_releases_the_lock_as_process_death_does(kind):
    dev = SimDevice()
    db = open_engine(kind, dev)
    rows = load(db, 100)
    dev.crash()
    db2 = open_engine(kind, dev)  # the restarted server
    assert dict(db2.scan("t")) == rows
    with pytest.raises(DatabaseLockedError):
        open_engine(kind, dev)


def test_a_lock_lost_to_a_crash_cannot_release_the_next_holders():
    dev = SimDevice()
    old = dev.lock()
    dev.crash()
    new = dev.lock()
    old.release()  # stale: the crash took it
    with pytest.raises(DatabaseLockedError):
        dev.lock()
    new.release()
    dev.lock().release()


def test_a_failed_open_releases_the_lock(kind):
    dev = SimDevice()
    with pytest.raises(ValueError):
        open_engine(kind, dev, **({"block_cache_bytes": -1} if kind == "lsm" else {"page_size": 3}))
    open_engine(kind, dev, error_if_exists=True).close()
    from minidb.errors import DatabaseExistsError

    with pytest.raises(DatabaseExistsError):
        open_engine(kind, dev, error_if_exists=True)
    open_engine(kind, dev).close()  # the refused opens left no lock behind


def test_two_dir_devices_on_one_directory_exclude_each_other(tmp_path):
    a, b = DirDevice(tmp_path), DirDevice(tmp_path)
    held = a.lock()
    with pytest.raises(DatabaseLockedError, match=str(tmp_path)):
        b.lock()
    held.release()
    b.lock().release()
    assert "LOCK" not in a.list()  # the lock file is the device's, not an engine's


@pytest.mark.parametrize("device", ["sim", "dir"])
def test_releasing_with_an_old_token_leaves_the_new_holder_locked(tmp_path, device):
    # lock, unlock, lock again: the first holding's token is stale and must not release the second one; the
    # second's own token does
    dev = SimDevice() if device == "sim" else DirDevice(tmp_path)
    first = dev.lock()
    first.release()
    second = dev.lock()
    dev._unlock(first._token)
    with pytest.raises(DatabaseLockedError):
        dev.lock()
    dev._unlock(second._token)
    dev.lock().release()


def test_deleting_the_lock_file_under_a_writer_lets_no_second_writer_in(tmp_path, kind):
    import os

    db = open_engine(kind, DirDevice(tmp_path))
    rows = load(db, 100)
    os.remove(tmp_path / "LOCK")  # the directory stays locked
    with pytest.raises(DatabaseLockedError, match=str(tmp_path)):
        open_engine(kind, DirDevice(tmp_path))
    rows.update(load(db, 100, start=100))  # the writer goes on
    db.close()
    db = open_engine(kind, DirDevice(tmp_path))
    assert dict(db.scan("t")) == rows
    db.close()


HOLDER = textwrap.dedent("""
    import os, sys, time
    from minidb.storage import DirDevice
    sys.path.insert(0, {tests!r})
    from open.engines import load, open_engine
    db = open_engine({kind!r}, DirDevice({path!r}))
    load(db, 200)
    if {delete_lock!r}:
        os.remove(os.path.join({path!r}, "LOCK"))
    print("ready", flush=True)
    time.sleep(60)  # killed by the test long before
""")


@pytest.mark.parametrize("delete_lock", [False, True])
@pytest.mark.parametrize("engine_kind", ENGINES)
def test_another_process_holding_the_database_is_refused_and_its_death_frees_it(tmp_path, engine_kind,
                                                                                 delete_lock):
    import os

    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = HOLDER.format(tests=tests, kind=engine_kind, path=str(tmp_path), delete_lock=delete_lock)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert proc.stdout.readline().strip() == "ready"
        with pytest.raises(DatabaseLockedError, match=str(tmp_path)):  # even with its LOCK file deleted
            open_engine(engine_kind, DirDevice(tmp_path))
        reader = open_engine(engine_kind, DirDevice(tmp_path), read_only=True)  # reading alongside is allowed
        reader.close()
    finally:
        proc.kill()
        proc.wait()
    db = open_engine(engine_kind, DirDevice(tmp_path))  # the kernel dropped the dead process's lock
    assert len(list(db.scan("t"))) == 200  # and recovery found every acknowledged batch
    db.close()
