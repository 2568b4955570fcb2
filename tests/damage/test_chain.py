"""The LSM's files vouch for each other (wal_chain.py): a WAL or MANIFEST that is missing, cut, emptied, swapped or
rolled back is CorruptionError naming the file, and the open that finds it deletes nothing. The newest WAL past
what the MANIFEST saw synced is the one undetectable spot, shown here as such."""

import pytest

from minidb.errors import CorruptionError
from minidb.kv import WriteBatch
from minidb.lsm import open_lsm
from minidb.lsm.log_reader import Drop, scan
from minidb.lsm.version_edit import FORMAT, VersionEdit
from minidb.lsm.wal import WalHeader
from minidb.storage import SimDevice

from damage.test_logs import read, replace

# Keyspace "u" lives in cf1, whose memtable never fills here: every WAL since the first stays live.
OPTIONS = dict(memtable_bytes=2048, block_size=256, max_bytes_for_level_base=8192, target_file_size_base=2048,
               level0_file_num_compaction_trigger=2, wal_sync="write", column_families={"cf1": {"memtable_bytes":
                                                                                                1 << 20}},
               keyspace_cf={"u": "cf1"})


def batch(i):
    b = WriteBatch()
    for j in range(8):
        b.put("t", b"t%03d-%d" % (i, j), b"v" * 60)
        b.put("u", b"u%03d-%d" % (i, j), b"w" * 20)
    return b


def database(closed=False, n=30):
    """(device, rows) of an LSM with several live WALs, crashed (or closed) after ``n`` synced batches."""
    dev = SimDevice()
    db = open_lsm(dev, **OPTIONS)
    for i in range(n):
        db.write(batch(i))
    rows = contents(db)
    db.close() if closed else dev.crash()
    return dev, rows


def contents(db):
    return {(ks, k): v for ks in ("t", "u") for k, v in db.scan(ks)}


def wals(dev):
    return sorted(n for n in dev.list() if n.endswith(".log"))


def refused(dev, match):
    """The open raises CorruptionError matching ``match`` and leaves every file as it was."""
    before = {n: read(dev, n) for n in dev.list()}
    with pytest.raises(CorruptionError, match=match):
        open_lsm(dev, **OPTIONS)
    assert {n: read(dev, n) for n in dev.list()} == before


def test_the_fixture_keeps_several_wals_live_and_reopens_whole():
    dev, rows = database()
    assert len(wals(dev)) >= 4
    assert contents(open_lsm(dev, **OPTIONS)) == rows


def test_a_wal_with_a_successor_deleted_is_named():
    dev, _ = database()
    middle = wals(dev)[1]
    dev.delete(middle)
    refused(dev, f"WAL {middle} is missing")


@pytest.mark.parametrize("keep", ["record", "none"])
def test_a_wal_with_a_successor_cut_at_a_record_boundary_or_emptied_is_named(keep):
    dev, _ = database()
    middle = wals(dev)[1]
    data = read(dev, middle)
    ends = [e.end for e in scan(data) if not isinstance(e, Drop)]
    replace(dev, middle, data[:ends[-2]] if keep == "record" else b"")
    refused(dev, f"WAL {middle} holds {ends[-2] if keep == 'record' else 0} bytes, but WAL .* recorded {len(data)}")


def test_two_wals_swapped_are_named():
    dev, _ = database()
    a, b = wals(dev)[1:3]
    data_a, data_b = read(dev, a), read(dev, b)
    replace(dev, a, data_b)
    replace(dev, b, data_a)
    refused(dev, f"WAL {a} holds the header of WAL {b}")


def test_an_older_copy_of_a_wal_with_a_successor_is_named():
    dev = SimDevice()
    db = open_lsm(dev, **OPTIONS)
    db.write(batch(0))
    first = db.wal_files.writer.name
    old = dev.durable_bytes(first)  # after one batch; it took more before its successor started
    for i in range(1, 30):
        db.write(batch(i))
    dev.crash()
    assert wals(dev)[0] == first and len(wals(dev)) > 1
    replace(dev, first, old)
    refused(dev, f"WAL {first} holds {len(old)} bytes")


def test_a_wal_copied_in_that_no_successor_names_is_refused():
    dev, _ = database()
    names = wals(dev)
    stray = f"{int(names[1][:6]) + 1:06d}.log"  # a free number between two live WALs (numbers are shared)
    assert stray not in names and int(stray[:6]) < int(names[2][:6])
    replace(dev, stray, read(dev, names[1]))
    refused(dev, "holds the header of WAL|not in the chain")


def test_the_newest_wal_deleted_or_emptied_is_named_once_an_edit_saw_it_synced():
    dev, _ = database()
    newest = wals(dev)[-1]
    replace(dev, newest, b"")
    refused(dev, f"WAL {newest} holds 0 bytes, but the MANIFEST's last edit recorded")
    dev.delete(newest)
    refused(dev, f"WAL {newest} is missing: the MANIFEST's last edit names it")


def test_the_newest_wal_cut_past_what_the_manifest_saw_is_a_lost_tail():
    # the one spot nothing vouches for: the newest WAL's batches written after the MANIFEST's last edit, cut at a
    # record boundary, read like batches never written (RocksDB's live WAL has the same limit)
    dev, rows = database()
    newest = wals(dev)[-1]
    data = read(dev, newest)
    ends = [e.end for e in scan(data) if not isinstance(e, Drop)]
    replace(dev, newest, data[:ends[-2]])
    got = contents(open_lsm(dev, **OPTIONS))
    assert got != rows and set(got.items()) < set(rows.items())


def manifest(dev):
    return next(n for n in dev.list() if n.startswith("MANIFEST-"))


@pytest.mark.parametrize("closed", [False, True])
@pytest.mark.parametrize("cut", ["last edit", "half", "last 512 bytes zeroed"])
def test_a_manifest_cut_short_is_refused(closed, cut):
    dev, _ = database(closed)
    name = manifest(dev)
    data = read(dev, name)
    ends = [e.end for e in scan(data) if not isinstance(e, Drop)]
    damaged = {"last edit": data[:ends[-2]], "half": data[:len(data) // 2],
               "last 512 bytes zeroed": data[:-512] + bytes(512)}[cut]
    replace(dev, name, damaged)
    refused(dev, "MANIFEST|names SSTs that do not exist|WAL")


@pytest.mark.parametrize("closed", [False, True])
def test_an_older_copy_of_the_manifest_is_refused(closed):
    dev = SimDevice()
    db = open_lsm(dev, **OPTIONS)
    for i in range(10):
        db.write(batch(i))
    name = manifest(dev)
    old = dev.durable_bytes(name)
    for i in range(10, 30):
        db.write(batch(i))
    db.close() if closed else dev.crash()
    replace(dev, name, old)
    refused(dev, "MANIFEST|names SSTs that do not exist|WAL")


def test_current_rolled_back_to_an_older_manifest_is_named():
    dev, _ = database()
    name = manifest(dev)
    old_manifest = read(dev, name)
    db = open_lsm(dev, **{**OPTIONS, "column_families": {**OPTIONS["column_families"], "cf2": {}}})
    db.write(batch(99))  # a new family: the open wrote a new MANIFEST, and the WAL after it names it
    newer = manifest(dev)
    assert newer != name
    dev.crash()
    replace(dev, name, old_manifest)
    replace(dev, "CURRENT", name.encode() + b"\n")
    dev.delete(newer)
    with pytest.raises(CorruptionError, match=f"CURRENT names {name}, but WAL .* while {newer} was in use"):
        open_lsm(dev, **{**OPTIONS, "column_families": {**OPTIONS["column_families"], "cf2": {}}})


def test_a_manifest_and_a_wal_of_format_1_are_refused_by_name():
    dev, _ = database(closed=True)
    name = manifest(dev)
    first = next(e for e in scan(read(dev, name)) if not isinstance(e, Drop))
    edit = VersionEdit.decode(first.payload, name)
    assert edit.format == 2
    edit.format = None
    from minidb.lsm.log_writer import LogWriter

    data, _ = LogWriter(0).encode(edit.encode())
    replace(dev, name, data)
    refused(dev, "names no format version: a MANIFEST written before format 2")
    assert FORMAT == 9


def test_a_wal_whose_first_record_is_a_batch_is_refused_as_format_1():
    dev, _ = database()
    name = wals(dev)[-1]
    data = read(dev, name)
    records = [e for e in scan(data) if not isinstance(e, Drop)]
    assert WalHeader.decode(records[0].payload) is not None
    replace(dev, name, data[records[1].start:])  # the header dropped: a batch first, as format 1 wrote them
    refused(dev, f"WAL {name}: its first record is a batch")
