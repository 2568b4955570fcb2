"""``minidb verify`` and ``minidb repair`` on intact and damaged databases of both engines: reports name the damaged
file, exit codes say whether damage was found or data lost, and the directory examined is never modified."""

import hashlib
import os
import shutil

import pytest

from damage.fuzz import ENGINES, KEYSPACES, build
from minidb import DirDevice
from minidb.cli import main


def snapshot(path):
    """Name -> sha256 of every file: proof that a command changed nothing."""
    return {n: hashlib.sha256(open(os.path.join(path, n), "rb").read()).hexdigest() for n in os.listdir(path)}


def flip(path, name, offset):
    with open(os.path.join(path, name), "r+b") as f:
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(offset)
        f.write(bytes((byte ^ 0x10,)))


def contents(engine, path):
    opener, options = ENGINES[engine]
    dev = DirDevice(path)
    db = opener(dev, **{k: v for k, v in options.items() if k == "page_size"})
    try:
        return {(ks, k): v for ks in KEYSPACES for k, v in db.scan(ks)}
    finally:
        db.close()
        dev.close()


@pytest.fixture(scope="module", params=list(ENGINES))
def database(request, tmp_path_factory):
    """(engine, path, model) of a small database closed cleanly."""
    path = str(tmp_path_factory.mktemp(request.param) / "db")
    models = build(request.param, path, closed=True)
    return request.param, path, models[-1]


def test_verify_reports_every_file_intact_and_changes_nothing(database, capsys):
    engine, path, _ = database
    before = snapshot(path)
    assert main(["verify", path]) == 0
    out = capsys.readouterr().out
    assert f"{engine} database" in out and " 0 damaged" in out
    assert len(out.splitlines()) == 1 + len(set(before) - {"LOCK"})  # a line per file (LOCK is the lock, no data)
    assert snapshot(path) == before


def test_verify_names_the_damaged_file_and_exits_1(database, tmp_path, capsys):
    engine, path, _ = database
    copy = tmp_path / "copy"
    shutil.copytree(path, copy)
    victim = "tablespace.ibd" if engine == "btree" else sorted(n for n in os.listdir(copy) if n.endswith(".sst"))[0]
    flip(copy, victim, 10)
    before = snapshot(copy)
    assert main(["verify", str(copy)]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("DAMAGED")]
    assert len(lines) == 1 and victim in lines[0]
    assert snapshot(copy) == before


def test_verify_refuses_a_directory_without_a_database(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["verify", str(tmp_path)]) == 2
    assert "holds no minidb database" in capsys.readouterr().err


def test_repair_of_an_intact_database_copies_it_whole(database, tmp_path, capsys):
    engine, path, model = database
    before = snapshot(path)
    assert main(["repair", path, "--out", str(tmp_path / "new")]) == 0
    assert "copied whole" in capsys.readouterr().out
    assert contents(engine, str(tmp_path / "new")) == model
    assert snapshot(path) == before


def test_repair_salvages_around_damage_and_says_what_was_lost(tmp_path, capsys):
    path = str(tmp_path / "db")
    model = build("lsm", path, closed=True)[-1]
    victim = sorted(n for n in os.listdir(path) if n.endswith(".sst"))[-1]
    flip(path, victim, 10)  # its first data block
    assert main(["repair", path, "--out", str(tmp_path / "new")]) == 1
    out = capsys.readouterr().out
    assert "salvaged file by file" in out and f"lost: {victim}: data block 0 lost" in out
    got = contents("lsm", str(tmp_path / "new"))
    assert got and len(set(got.items()) & set(model.items())) > len(model) // 2  # most of it saved


def test_repair_refuses_an_existing_output(database, tmp_path, capsys):
    _, path, _ = database
    assert main(["repair", path, "--out", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err


@pytest.mark.parametrize("keys, ok", [
    ([b"a", b"b", b"b", b"c"], False),  # the third block starts with the key that ended the second
    ([b"a", b"b", b"c", b"d"], True),  # the key just above
])
def test_verify_refuses_a_data_block_starting_with_the_key_that_ended_the_one_before(keys, ok):
    # blocks [a] [b] [third, fourth]: a long value closes a block, a short one does not, so the index's keys (each
    # block's last) still ascend and only the boundary between the data blocks is wrong
    from minidb.lsm.dbformat import pack_internal_key
    from minidb.lsm.table_builder import TableBuilder
    from minidb.storage import SimDevice
    from minidb.verify import lsm_files

    dev = SimDevice()
    f = dev.open("000007.sst", "sst", create=True)
    builder = TableBuilder(f, block_size=64)
    for key, value in zip(keys, (b"v" * 80, b"v" * 80, b"v", b"v" * 80)):
        builder.add_entry(pack_internal_key(key, 3, 1), value)
    builder.finish()
    f.sync()
    f.close()
    (report,) = [r for r in lsm_files.verify(dev) if r.name == "000007.sst"]
    assert report.ok is ok
    if not ok:
        assert "does not start above the block before it" in report.detail


def uncommitted_on_disk(path):
    """A B+tree at ``path`` whose in-place transaction never committed but had its pages written (its undo is in
    the redo log), crashed; the committed rows."""
    from minidb.storage import SimDevice

    opener, options = ENGINES["btree"]
    dev = SimDevice()
    db = opener(dev, **options)
    committed = {}
    for i in range(200):
        db.put("t", b"%05d" % i, b"v%d" % i * 20)
        committed[("t", b"%05d" % i)] = b"v%d" % i * 20
    txn = db.begin()
    for i in range(0, 200, 2):
        txn.delete("t", b"%05d" % i)
    txn.put("t", b"uncommitted", b"x" * 100)
    db.flush()  # the transaction's pages reach the tablespace, before its commit
    dev.crash()
    os.makedirs(path)
    for name in dev.list():
        with open(os.path.join(path, name), "wb") as f:
            f.write(dev.durable_bytes(name))
    return committed


def test_repair_never_brings_back_an_uncommitted_transaction(tmp_path, capsys):
    path = str(tmp_path / "db")
    committed = uncommitted_on_disk(path)
    redo = sorted(n for n in os.listdir(path) if n.startswith("redo-0"))
    with open(os.path.join(path, redo[-1]), "r+b") as f:  # the newest redo file's groups, unreadable
        f.seek(64)
        f.write(bytes(range(256)) * 4)
    assert main(["repair", path, "--out", str(tmp_path / "new")]) == 1
    out = capsys.readouterr().out
    assert "salvaged file by file" in out and "left out, as they may hold changes of a batch that never committed" in out
    got = contents("btree", str(tmp_path / "new"))
    assert ("t", b"uncommitted") not in got  # the transaction's insert is not copied
    assert set(got.items()) <= set(committed.items())  # nor its deletes: what is there is committed


def test_repair_refuses_in_one_line_what_it_cannot_salvage(tmp_path, capsys):
    path = str(tmp_path / "db")
    uncommitted_on_disk(path)
    os.remove(os.path.join(path, "tablespace.ibd"))
    assert main(["repair", path, "--out", str(tmp_path / "new")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing can be salvaged" in err and "tablespace.ibd" in err
    assert not (tmp_path / "new").exists()


def test_file_by_file_salvage_keeps_the_newest_value_over_files_left_behind():
    from minidb.lsm import open_lsm
    from minidb.storage import SimDevice
    from minidb.verify.salvage import Salvaged, salvage_lsm

    def ssts(dev):
        out = {}
        for name in dev.list():
            if name.endswith(".sst"):
                f = dev.open(name, "sst")
                out[name] = f.read(0, f.size)
                f.close()
        return out

    dev = SimDevice()
    db = open_lsm(dev, disable_auto_compactions=True)
    db.put("t", b"k", b"old")
    db.flush()
    flushed = ssts(dev)  # k with its sequence number, in L0
    db.compact_range()
    compacted = ssts(dev)  # k with sequence 0, in the last level
    db.put("t", b"k", b"new")
    db.flush()
    db.compact_range()  # k = new with sequence 0, in a newer file; the older ones deleted
    db.close()
    # A scan that still read them, or a crash before their deletion, leaves older files on the device.
    for name, data in {**flushed, **compacted}.items():
        assert not dev.exists(name)
        f = dev.open(name, "sst", create=True)
        f.append(data)
        f.sync()
        f.close()
    out = Salvaged()
    salvage_lsm(dev, out)
    assert out.data["t"] == {b"k": b"new"}
