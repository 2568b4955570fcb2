"""Leveled compaction: level sizing (static and dynamic), scores, trivial moves, tombstones, write amplification."""

from minidb.kv import WriteBatch
from minidb.lsm.compaction_picker import pick_leveled
from minidb.lsm.dbformat import pack_internal_key
from minidb.lsm.level_sizing import UNLIMITED, level_targets, pending_compaction_bytes
from minidb.lsm.options import MIB, CFOptions
from minidb.lsm.version import Version
from minidb.lsm.version_edit import FileMeta
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny, random_load

GIB = 1 << 30


def meta(number, lo, hi, size):
    return FileMeta(number, size, pack_internal_key(lo, 1, 1), pack_internal_key(hi, 1, 1), 1, 1, 10, 0)


def test_static_level_targets():
    v = Version.empty(7)
    base, targets = level_targets(v, CFOptions(level_compaction_dynamic_level_bytes=False))
    assert base == 1
    assert targets[1:4] == [256 * MIB, 2560 * MIB, 25600 * MIB]


def test_dynamic_level_targets_follow_rocksdb():
    o = CFOptions()  # dynamic, base 256 MiB, multiplier 10, 7 levels
    v = Version.empty(7)
    assert level_targets(v, o) == (6, [UNLIMITED] * 7)  # empty: L0 goes straight to the last level
    v.add(6, meta(1, b"a", b"z", 10 * GIB))
    base, targets = level_targets(v, o)
    # L6 = 10 GiB; L5 = 1 GiB; L4 = 100 MiB is below 256 MiB, so L4 is the base level, raised to 256 MiB.
    assert base == 4
    # (RocksDB truncates while dividing down and multiplies back up, so L6's target is 10 GiB within a few bytes.)
    assert abs(targets[6] - 10 * GIB) < 100 and abs(targets[5] - GIB) < 10 and targets[4] == 256 * MIB
    assert targets[1:4] == [UNLIMITED] * 3
    small = Version.empty(7)
    small.add(6, meta(1, b"a", b"z", 100 * MIB))
    assert level_targets(small, o)[0] == 6  # 100 MiB fits the base size: L0 compacts into L6


def test_level0_is_picked_by_file_count():
    o = CFOptions(level_compaction_dynamic_level_bytes=False)
    v = Version.empty(7)
    for i in range(3):
        v.add(0, FileMeta(i + 1, MIB, pack_internal_key(b"a", 1, 1), pack_internal_key(b"z", 1, 1), i, i, 1, 0))
    assert pick_leveled(0, v, o, {}) is None  # 3 files: score 0.75
    v.add(0, FileMeta(9, MIB, pack_internal_key(b"a", 1, 1), pack_internal_key(b"z", 1, 1), 9, 9, 1, 0))
    c = pick_leveled(0, v, o, {})
    assert c.start_level == 0 and c.output_level == 1 and len(c.input_files) == 4 and c.score == 1.0
    assert pending_compaction_bytes(v, o, 1, level_targets(v, o)[1]) == 4 * MIB


def test_write_amplification_grows_with_the_number_of_levels():
    """Theory: with fanout m each level below the base rewrites ~m/2..m bytes per byte it receives (less while it
    fills up), so the total grows by that much per level the data spills into (m = 4 keeps the test small)."""
    results = []
    for n in (5_000, 20_000):
        db = open_tiny(max_bytes_for_level_multiplier=4)
        random_load(db, n)
        df = db.compaction_stats(unit="KB").set_index("Level")
        levels = [lv for lv in df.index if lv not in ("L0", "Sum")]
        for lv in levels[1:]:  # below the base level
            assert 0.45 * 4 <= df.loc[lv, "W-Amp"] <= 4 + 1, (n, lv, df.loc[lv, "W-Amp"])
        results.append((len(levels), df.loc["Sum", "W-Amp"]))
        db.column_family("default").version.check()
    (levels_small, wamp_small), (levels_big, wamp_big) = results
    assert levels_big > levels_small
    assert wamp_big > wamp_small + 2


def test_key_ordered_loads_compact_by_trivial_moves():
    db = open_tiny()
    for s in range(0, 20_000, 100):
        b = WriteBatch()
        for i in range(s, s + 100):
            b.put("t", i.to_bytes(8, "big"), b"v" * 50)
        db.write(b)
    st = db.stats()
    assert st["trivial_moves"] > 0
    df = db.compaction_stats(unit="KB").set_index("Level")
    assert df.loc["Sum", "Moved(KB)"] > 0
    assert df.loc["Sum", "W-Amp"] < 2.5  # non-overlapping files move down without being rewritten


def test_tombstones_are_dropped_at_the_bottom():
    db = open_tiny()
    keys = [b"key%05d" % i for i in range(3000)]
    for k in keys:
        db.put("t", k, b"x" * 20)
    for k in keys:
        db.delete("t", k)
    db.compact_range()
    assert list(db.scan("t")) == []
    cf = db.column_family("default")
    assert cf.version.num_files() == 0  # every version and every tombstone is gone
    assert db.compaction_stats().set_index("Level").loc["Sum", "KeyDrop"] >= 6000


def test_tombstones_stay_while_older_versions_may_exist_below():
    db = open_tiny(disable_auto_compactions=True)
    for i in range(200):
        db.put("t", b"k%04d" % i, b"old")
    db.compact_range()  # everything in the last level
    db.delete("t", b"k0007")
    db.flush()
    cf = db.column_family("default")
    l0 = cf.version.levels[0]
    assert len(l0) == 1 and l0[0].num_deletions == 1  # a flush never drops a tombstone
    assert db.get("t", b"k0007") is None
    db.compact_range()
    assert db.get("t", b"k0007") is None and db.get("t", b"k0008") == b"old"
    assert sum(f.num_deletions for _, f in cf.version.all_files()) == 0


def test_the_bottommost_level_keeps_sequence_zero_and_newer_versions_above_still_win():
    dev = SimDevice()
    db = open_tiny(dev, disable_auto_compactions=True)
    for i in range(300):
        db.put("t", b"k%04d" % i, b"old")
    db.compact_range()  # into the last level: nothing older can be below it
    cf = db.column_family("default")
    bottom = [(level, f) for level, f in cf.version.all_files()]
    assert bottom and {level for level, _ in bottom} == {cf.version.num_levels - 1}
    assert {(f.smallest_seq, f.largest_seq) for _, f in bottom} == {(0, 0)}
    db.put("t", b"k0007", b"new")
    db.flush()
    (above,) = cf.version.levels[0]
    assert above.largest_seq > 0  # a flush keeps its sequence numbers: it is never the bottommost level
    assert db.get("t", b"k0007") == b"new" and db.get("t", b"k0008") == b"old"
    db.close()
    db = open_tiny(dev, disable_auto_compactions=True)  # recovery orders the files as before
    assert db.get("t", b"k0007") == b"new"
    db.compact_range()
    assert db.get("t", b"k0007") == b"new" and dict(db.scan("t"))[b"k0299"] == b"old"
    assert {f.largest_seq for _, f in db.column_family("default").version.all_files()} == {0}


def test_compact_range_of_a_keyspace():
    db = open_tiny(disable_auto_compactions=True)
    for i in range(1000):
        db.put("a", b"%04d" % i, b"x" * 30)
        db.put("b", b"%04d" % i, b"y" * 30)
    db.flush()
    db.compact_range(keyspace="a")
    assert db.get("a", b"0999") == b"x" * 30 and db.get("b", b"0999") == b"y" * 30
    assert db.compaction_stats().set_index("Level").loc["Sum", "Comp(cnt)"] > db.stats()["flushes"]


def test_per_level_compression_and_bottommost_override():
    dev = SimDevice()
    db = open_tiny(dev, compression=["none", "lz4"], bottommost_compression="zstd",
                   max_bytes_for_level_multiplier=4)
    random_load(db, 20_000, value=b"abcdefgh" * 8)
    cf = db.column_family("default")
    v = cf.version
    base, _ = cf.level_targets()
    last = v.num_non_empty_levels() - 1
    seen = {}
    for level, f in v.all_files():
        seen.setdefault(level, set()).add(db.tables.get(cf, f).properties["compression"])
    assert seen[last] == {"zstd"}
    assert seen.get(0, {"none"}) == {"none"}
    assert all(seen[lv] == {"lz4"} for lv in seen if 0 < lv < last)


def test_round_robin_picking_remembers_its_pointer_across_reopens():
    dev = SimDevice()
    db = open_tiny(dev, compaction_pri="round_robin", max_bytes_for_level_multiplier=4)
    random_load(db, 10_000)
    db.close()
    pointers = dict(db.column_family("default").state.compact_pointers)
    assert pointers
    db = open_tiny(dev, compaction_pri="round_robin", max_bytes_for_level_multiplier=4)
    assert db.column_family("default").state.compact_pointers == pointers
