"""RocksDB's "Compaction Stats" table per column family, as text and as a DataFrame, checked against counted IO."""

import random

import pytest

from minidb.kv import WriteBatch
from minidb.lsm.compaction_stats import human_bytes, human_count
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny

COLUMNS = ["Level", "Files", "Size", "Score", "Read(GB)", "Rn(GB)", "Rnp1(GB)", "Write(GB)", "Wnew(GB)",
           "Moved(GB)", "W-Amp", "Comp(cnt)", "KeyIn", "KeyDrop"]


def loaded(dev=None, n=20_000, overwrite=True):
    db = open_tiny(dev, max_bytes_for_level_multiplier=4)
    rng = random.Random(3)
    for s in range(0, n, 100):
        b = WriteBatch()
        for _ in range(100):
            k = rng.randrange(n // 2 if overwrite else 10**9)
            b.put("t", k.to_bytes(8, "big"), b"v" * 40)
        db.write(b)
    db.flush()
    return db


def test_columns_and_rows():
    db = loaded()
    df = db.compaction_stats()
    assert all(c in df.columns for c in COLUMNS)
    assert df["Level"].iloc[-1] == "Sum" and df["Level"].iloc[0] == "L0"
    assert df["Files"].iloc[-1] == df["Files"].iloc[:-1].sum()
    assert df["Size"].iloc[-1] == db.stats()["sst_bytes"]


def test_w_amp_follows_rocksdb():
    """Per level Write / Rn; L0 and Sum: written / flushed (db/internal_stats.cc, DumpCFMapStats)."""
    db = loaded()
    df = db.compaction_stats(unit="KB").set_index("Level")
    flushed = df.loc["L0", "Write(KB)"]
    assert df.loc["L0", "W-Amp"] == pytest.approx(1.0)
    for level in df.index:
        if level not in ("L0", "Sum") and df.loc[level, "Rn(KB)"] > 0:
            assert df.loc[level, "W-Amp"] == pytest.approx(df.loc[level, "Write(KB)"] / df.loc[level, "Rn(KB)"])
    assert df.loc["Sum", "W-Amp"] == pytest.approx(df.loc["Sum", "Write(KB)"] / flushed)
    for level in df.index:
        row = df.loc[level]
        assert row["Read(KB)"] == pytest.approx(row["Rn(KB)"] + row["Rnp1(KB)"])
        assert row["Wnew(KB)"] == pytest.approx(row["Write(KB)"] - row["Rnp1(KB)"])


def test_the_table_agrees_with_counted_io():
    dev = SimDevice()
    db = loaded(dev)
    df = db.compaction_stats(unit="KB").set_index("Level")
    flush_io = dev.stats.total(kind="sst", cause="flush")
    compaction_io = dev.stats.total(kind="sst", cause="compaction")
    assert df.loc["L0", "Write(KB)"] * 1024 == flush_io.write_bytes
    assert df.loc["Sum", "Write(KB)"] * 1024 == flush_io.write_bytes + compaction_io.write_bytes
    # Compactions read their input files whole (plus each table's metadata when they open it).
    assert df.loc["Sum", "Read(KB)"] * 1024 <= compaction_io.read_bytes <= 1.2 * df.loc["Sum", "Read(KB)"] * 1024
    assert df.loc["Sum", "Comp(cnt)"] == db.stats()["flushes"] + db.stats()["compactions"] + db.stats()[
        "trivial_moves"]


def test_overwrites_are_dropped_and_counted():
    df = loaded(overwrite=True).compaction_stats().set_index("Level")
    assert df.loc["Sum", "KeyDrop"] > 0
    assert df.loc["L0", "KeyIn"] == 0  # flushes count no input records, as in RocksDB
    assert df.loc["Sum", "KeyIn"] >= df.loc["Sum", "KeyDrop"]


def test_text_table():
    db = loaded()
    text = db.compaction_stats_text(unit="MB")
    lines = text.splitlines()
    assert lines[0] == "** Compaction Stats [default] **"
    assert lines[1].split() == ["Level", "Files", "Size", "Score", "Read(MB)", "Rn(MB)", "Rnp1(MB)", "Write(MB)",
                                "Wnew(MB)", "Moved(MB)", "W-Amp", "Rd(MB/s)", "Wr(MB/s)", "Comp(sec)",
                                "Comp(cnt)", "Avg(sec)", "KeyIn", "KeyDrop"]
    assert set(lines[2]) == {"-"}
    df = db.compaction_stats(unit="MB")
    assert [line.split()[0] for line in lines[3:]] == list(df["Level"])
    sum_fields = lines[-1].split()
    assert sum_fields[1] == f"{df['Files'].iloc[-1]}/0"
    assert "GB" in db.compaction_stats_text().splitlines()[1]
    with pytest.raises(ValueError, match="bad unit 'TB'"):
        db.compaction_stats(unit="TB")


def test_human_formats_match_rocksdb():
    assert human_bytes(0) == "0.00 KB"
    assert human_bytes(197.05 * 2**20) == "197.05 MB"
    assert human_bytes(3 * 2**40) == "3.00 TB"
    assert [human_count(n) for n in (0, 9999, 8862000, 61_000_000, 12 * 10**9)] == [
        "0", "9999", "8862K", "61M", "12G"]
