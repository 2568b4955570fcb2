"""Universal compaction: sorted runs, size amplification, size ratio, run count; it writes less than leveled."""

from minidb.lsm.dbformat import pack_internal_key
from minidb.lsm.options import CFOptions
from minidb.lsm.universal_picker import pick_universal, sorted_runs
from minidb.lsm.version import Version
from minidb.lsm.version_edit import FileMeta
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny, random_load

O = CFOptions(compaction="universal", level0_file_num_compaction_trigger=4)


def l0(v, sizes):
    """Add L0 files of these sizes, the first the newest."""
    for i, size in enumerate(reversed(sizes)):
        v.add(0, FileMeta(100 + i, size, pack_internal_key(b"a", 1, 1), pack_internal_key(b"z", 1, 1),
                          10 * i, 10 * i + 9, 1, 0))


def test_sorted_runs_newest_first():
    v = Version.empty(7)
    l0(v, [1, 2, 3])
    v.add(6, FileMeta(1, 50, pack_internal_key(b"a", 0, 1), pack_internal_key(b"z", 0, 1), 0, 0, 1, 0))
    assert [(r.level, r.size) for r in sorted_runs(v)] == [(0, 1), (0, 2), (0, 3), (6, 50)]


def test_nothing_below_the_trigger():
    v = Version.empty(7)
    l0(v, [1, 1, 1])
    assert pick_universal(0, v, O) is None


def test_size_amplification_forces_a_full_compaction():
    v = Version.empty(7)
    l0(v, [10, 10, 10])
    v.add(6, FileMeta(1, 20, pack_internal_key(b"a", 0, 1), pack_internal_key(b"z", 0, 1), 0, 0, 1, 0))
    c = pick_universal(0, v, O)  # newer runs hold 30 bytes = 150% of the last run's 20: over 200%? no...
    assert c.reason == "size-ratio"
    v2 = Version.empty(7)
    l0(v2, [10, 10, 30])
    v2.add(6, FileMeta(1, 20, pack_internal_key(b"a", 0, 1), pack_internal_key(b"z", 0, 1), 0, 0, 1, 0))
    c = pick_universal(0, v2, O)  # 50 bytes newer vs 20 oldest: 250% > 200%
    assert c.reason == "size-amp" and c.output_level == 6 and c.bottommost and len(c.input_files) == 4


def test_size_ratio_merges_similar_runs_only():
    v = Version.empty(7)
    l0(v, [10, 10, 21, 500])
    c = pick_universal(0, v, O)
    # 10 + 10 = 20; 20 * 1.01 < 21 stops the run: merge the two newest, into L0 above the third run.
    assert c.reason == "size-ratio" and [f.size for f in c.input_files] == [10, 10]
    assert c.output_level == 0 and not c.bottommost


def test_run_count_forces_a_merge_when_sizes_differ():
    v = Version.empty(7)
    l0(v, [1, 3, 9, 27, 81])  # no two neighbours within the ratio, size amp 40/81 < 200%
    c = pick_universal(0, v, O)
    assert c.reason == "sorted-runs" and len(c.input_files) == 2  # 5 runs - trigger 4 + 1


def test_universal_writes_less_than_leveled_on_the_same_load():
    written = {}
    for style in ("leveled", "universal"):
        dev = SimDevice()
        db = open_tiny(dev, compaction=style, max_bytes_for_level_multiplier=4)
        random_load(db, 20_000)
        db.flush()
        written[style] = dev.stats.total(kind="sst").write_bytes
        got = dict(db.scan("t"))
        assert len(got) == 20_000
    assert written["universal"] < 0.8 * written["leveled"]


def test_full_compaction_drops_tombstones():
    db = open_tiny(compaction="universal")
    for i in range(2000):
        db.put("t", b"%05d" % i, b"x" * 30)
    for i in range(0, 2000, 2):
        db.delete("t", b"%05d" % i)
    db.compact_range()
    cf = db.column_family("default")
    runs = sorted_runs(cf.version)
    assert len(runs) == 1 and runs[0].level == cf.version.num_levels - 1
    assert sum(f.num_deletions for f in runs[0].files) == 0
    assert {f.largest_seq for f in runs[0].files} == {0}  # the one run holds the oldest data: sequence 0
    assert len(list(db.scan("t"))) == 1000
