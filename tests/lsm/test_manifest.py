"""The MANIFEST: version edits, CURRENT switching, recovery of the file set, orphans, failed edits."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.errors import CorruptionError, ReadOnlyError
from minidb.lsm.dbformat import pack_internal_key
from minidb.lsm.version_edit import FileMeta, VersionEdit
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny

ikeys = st.binary(max_size=10).map(lambda k: pack_internal_key(k, 5, 1))
files = st.builds(FileMeta, number=st.integers(1, 10**9), size=st.integers(0, 10**12), smallest=ikeys,
                  largest=ikeys, smallest_seq=st.integers(0, 2**56 - 1), largest_seq=st.integers(0, 2**56 - 1),
                  num_entries=st.integers(0, 10**9), num_deletions=st.integers(0, 10**9))
edits = st.builds(
    VersionEdit,
    log_numbers=st.dictionaries(st.integers(0, 50), st.integers(0, 10**9), max_size=3),
    next_file_number=st.one_of(st.none(), st.integers(0, 10**9)),
    last_sequence=st.one_of(st.none(), st.integers(0, 2**56 - 1)),
    compact_pointers=st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6), ikeys), max_size=3),
    deleted_files=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6), st.integers(1, 10**6)), max_size=3),
    new_files=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6), files), max_size=3),
    column_families=st.lists(st.tuples(st.integers(0, 9), st.text(min_size=1, max_size=8)), max_size=2),
    keyspaces=st.lists(st.tuples(st.integers(1, 99), st.text(min_size=1, max_size=8), st.integers(0, 9),
                                 st.booleans()), max_size=2),
)


@given(edits)
def test_version_edit_round_trip(edit):
    assert VersionEdit.decode(edit.encode(), "test") == edit


def test_unknown_tags_are_corruption():
    with pytest.raises(CorruptionError, match="unknown version edit tag 99 in MANIFEST-000007"):
        VersionEdit.decode(b"\x63", "MANIFEST-000007")


def load(db, n, start=0):
    for i in range(start, start + n):
        db.put("t", b"k%05d" % i, b"v%05d" % i)


def manifests(dev):
    return [n for n in dev.list() if n.startswith("MANIFEST-")]


def test_current_names_the_one_manifest_and_reopen_recovers_the_files():
    dev = SimDevice()
    db = open_tiny(dev)
    load(db, 2000)
    db.flush()
    levels = [[f.number for f in level] for level in db.column_family("default").version.levels]
    db.close()
    (m,) = manifests(dev)
    assert dev.durable_bytes("CURRENT") == m.encode() + b"\n"
    db = open_tiny(dev)
    assert [[f.number for f in level] for level in db.column_family("default").version.levels] == levels
    assert db.get("t", b"k01999") == b"v01999"
    (m2,) = manifests(dev)
    assert m2 == m  # a clean reopen changes nothing durable: it goes on appending to the MANIFEST in use


def test_orphan_outputs_are_deleted_and_their_numbers_never_reused():
    dev = SimDevice()
    db = open_tiny(dev)
    load(db, 500)
    db.close()
    orphan = dev.open("999999.sst", kind="sst", create=True)
    orphan.append(b"half a table")
    orphan.sync()
    db = open_tiny(dev)
    assert not dev.exists("999999.sst")
    load(db, 2000, 500)
    numbers = [int(n.split(".")[0]) for n in dev.list() if n.endswith(".sst")]
    assert max(numbers) > 999999 and not [n for n in numbers if 500 < n <= 999999]


def test_a_torn_last_edit_is_ignored():
    dev = SimDevice()
    db = open_tiny(dev)
    load(db, 300)
    db.close()
    (m,) = manifests(dev)
    f = dev.open(m, kind="manifest")
    f.append(b"\x12\x34\x56\x78\x10\x00\x01garbage")  # a record cut short by a crash
    f.sync()
    db = open_tiny(dev)
    assert db.get("t", b"k00299") == b"v00299"
    assert manifests(dev) != [m]  # never appended to after a torn edit: replaced by a fresh snapshot


def test_damage_before_valid_edits_is_corruption():
    dev = SimDevice()
    db = open_tiny(dev)
    load(db, 3000)  # many flushes and compactions: many edits
    db.close()
    db = open_tiny(dev)
    load(db, 3000, 3000)  # many more edits after the first ones
    (m,) = manifests(dev)
    f = dev.open(m, kind="manifest")
    f.write(30, bytes([f.read(30, 1)[0] ^ 0xFF]))  # inside the snapshot edit
    f.sync()
    dev.crash()
    with pytest.raises(CorruptionError, match=rf"{m} offset \d+: .*before valid edits"):
        open_tiny(dev)


def test_bad_current_is_corruption():
    dev = SimDevice()
    open_tiny(dev).close()
    cur = dev.open("CURRENT", kind="manifest")
    cur.truncate(0)
    cur.append(b"MANIFEST-123456\n")
    with pytest.raises(CorruptionError, match="CURRENT names MANIFEST-123456, which does not exist"):
        open_tiny(dev)
    cur.truncate(0)
    cur.append(b"nonsense")
    with pytest.raises(CorruptionError, match="CURRENT does not name a MANIFEST"):
        open_tiny(dev)


def test_a_failed_edit_leaves_the_engine_read_only_until_resume():
    dev = SimDevice()
    db = open_tiny(dev, wal_sync="none")
    load(db, 100)
    # The next flush syncs the WAL (sealing its memtable) and the new WAL's header, then its SST, then the MANIFEST:
    # fail the fourth.
    dev.fail_io(4, ops=("sync",))
    faulted = False
    for i in range(100, 3000):
        try:
            db.put("t", b"k%05d" % i, b"v%05d" % i)
        except ReadOnlyError as exc:
            assert "failed" in str(exc)
            faulted = True
            break
    assert faulted
    assert db.get("t", b"k00099") == b"v00099"  # reads still work
    assert db.get("t", b"k%05d" % i) is None  # the write that got the error was not applied
    db.resume()
    load(db, 200, i)
    db.close()
    db = open_tiny(dev, wal_sync="none")
    assert all(db.get("t", b"k%05d" % j) == b"v%05d" % j for j in range(i + 200))  # the client retried i


def test_when_a_failed_edit_cannot_be_cut_off_the_next_edit_starts_a_new_manifest():
    dev = SimDevice()
    db = open_tiny(dev, wal_sync="none")
    load(db, 100)
    (old,) = manifests(dev)
    dev.fail_io(4, ops=("sync",))  # the MANIFEST's (see above)
    dev.fail_io(1, ops=("truncate",))
    with pytest.raises(ReadOnlyError):
        load(db, 3000, 100)
    assert db.vs.broken
    db.resume()
    (new,) = manifests(dev)
    assert new != old
    load(db, 500, 3100)
    db.close()
    db = open_tiny(dev)
    assert db.get("t", b"k03599") == b"v03599" and db.get("t", b"k00050") == b"v00050"


@pytest.mark.parametrize("next_smallest, overlap", [(b"k5", True), (b"k6", False)])
def test_two_files_of_one_level_may_not_share_a_user_key(next_smallest, overlap):
    # L1 and below: one file's largest user key equal to the next one's smallest is an overlap (the key would be
    # in two files); the next key up is not
    from minidb.lsm.version import Version
    from minidb.lsm.version_set import CFState, VersionSet

    dev = SimDevice()
    vs = VersionSet(dev)
    vs.cfs[0] = CFState(0, "default", Version.empty(7))
    for number, lo, hi in ((8, b"k1", b"k5"), (9, next_smallest, b"k9")):
        vs.cfs[0].version.add(1, FileMeta(number, 100, pack_internal_key(lo, 2, 1), pack_internal_key(hi, 1, 1),
                                          1, 2, 2, 0))
    vs.next_file_number = 10
    vs.write_new_manifest()
    again = VersionSet(dev)
    if overlap:
        with pytest.raises(CorruptionError, match="files 8 and 9 overlap in L1"):
            again.recover(lambda name: 7)
    else:
        again.recover(lambda name: 7)
        assert [f.number for f in again.cfs[0].version.levels[1]] == [8, 9]
