"""Compaction statistics per column family, printed as RocksDB prints "Compaction Stats" (seed 004 shows one).

Each flush and compaction adds to the row of the level it *writes to* (RocksDB's InternalStats::CompactionStats):

* Rn(GB): bytes read from the levels above the output level (the start level's input files);
* Rnp1(GB): bytes read from the output level (the overlapping files that get rewritten);
* Read(GB) = Rn + Rnp1; Write(GB): bytes written; Wnew(GB) = Write - Rnp1; Moved(GB): bytes trivially moved;
* Comp(cnt): jobs; Comp(sec): their simulated seconds (0 with a clock that has no device model);
* KeyIn / KeyDrop: entries read / entries dropped (older versions and tombstones) by compactions;
* W-Amp follows RocksDB's InternalStats::DumpCFMapStats (db/internal_stats.cc): for L1 and below,
  Write / Rn (bytes written per byte brought in from above); for L0, Write / bytes flushed (1.0 unless L0 is
  itself compacted); for Sum, total bytes written by flushes and compactions / bytes flushed: the column family's
  write amplification from memtable to disk.

The L0 row's Write is the flushes' output (RocksDB's BYTES_FLUSHED), and flushes count no KeyIn/KeyDrop, as there.
RocksDB's table also has an "Int" row (the interval since the previous dump); this one reports cumulative figures
only: take two DataFrames and subtract them for an interval.
"""

from __future__ import annotations

from dataclasses import dataclass

UNITS = {"GB": 1 << 30, "MB": 1 << 20, "KB": 1 << 10}  # RocksDB's GB is 2**30 bytes (kGB in internal_stats.cc)


@dataclass
class LevelStats:
    """What flushes and compactions wrote into one level."""

    bytes_read_non_output: int = 0  # Rn: bytes read from the start level
    bytes_read_output: int = 0  # Rnp1: bytes read from this (the output) level
    bytes_written: int = 0  # bytes written into this level
    bytes_moved: int = 0  # bytes moved into this level by trivial moves
    count: int = 0  # jobs that wrote into this level
    seconds: float = 0.0  # simulated seconds of those jobs
    key_in: int = 0  # entries read by compactions into this level
    key_drop: int = 0  # entries they dropped


class CompactionStats:
    """Cumulative per-level statistics of one column family."""

    def __init__(self, num_levels: int) -> None:
        self.levels = [LevelStats() for _ in range(num_levels)]  # one row per level
        self.bytes_flushed = 0  # bytes written by flushes: RocksDB's BYTES_FLUSHED, the W-Amp denominator

    def add_flush(self, nbytes: int, seconds: float) -> None:
        """Record a flush that wrote an L0 file of ``nbytes``."""
        row = self.levels[0]
        row.bytes_written += nbytes
        row.count += 1
        row.seconds += seconds
        self.bytes_flushed += nbytes

    def add_compaction(self, output_level: int, rn: int, rnp1: int, written: int, key_in: int, key_drop: int,
                       seconds: float) -> None:
        """Record a compaction into ``output_level``."""
        row = self.levels[output_level]
        row.bytes_read_non_output += rn
        row.bytes_read_output += rnp1
        row.bytes_written += written
        row.key_in += key_in
        row.key_drop += key_drop
        row.count += 1
        row.seconds += seconds

    def add_move(self, output_level: int, nbytes: int) -> None:
        """Record a trivial move of ``nbytes`` into ``output_level``."""
        row = self.levels[output_level]
        row.bytes_moved += nbytes
        row.count += 1

    def w_amp(self, level: int) -> float:
        """RocksDB's per-level W-Amp (see the module docstring)."""
        row = self.levels[level]
        denominator = self.bytes_flushed if level == 0 else row.bytes_read_non_output
        return row.bytes_written / denominator if denominator else 0.0

    def rows(self, version, scores: list[float], unit: str = "GB") -> list[dict]:
        """One dict per level that has files or jobs, then the Sum row, with RocksDB's column names."""
        if unit not in UNITS:
            raise ValueError(f"bad unit {unit!r}: one of {', '.join(UNITS)}")
        scale = UNITS[unit]
        out = []
        total = LevelStats()
        files = compacting = size = 0
        for level, row in enumerate(self.levels):
            lf = version.levels[level]
            if not lf and row.count == 0:
                continue
            out.append(self._row(f"L{level}", len(lf), sum(f.being_compacted for f in lf),
                                 sum(f.size for f in lf), scores[level] if level < len(scores) else 0.0,
                                 self.w_amp(level), row, scale, unit))
            for name in ("bytes_read_non_output", "bytes_read_output", "bytes_written", "bytes_moved", "count",
                         "seconds", "key_in", "key_drop"):
                setattr(total, name, getattr(total, name) + getattr(row, name))
            files += len(lf)
            compacting += sum(f.being_compacted for f in lf)
            size += sum(f.size for f in lf)
        # RocksDB divides by (flushed + 1) for Sum; the +1 only guards a zero, so it is left out here.
        w_amp = total.bytes_written / self.bytes_flushed if self.bytes_flushed else 0.0
        out.append(self._row("Sum", files, compacting, size, 0.0, w_amp, total, scale, unit))
        return out

    @staticmethod
    def _row(name, files, compacting, size, score, w_amp, row: LevelStats, scale: int, unit: str) -> dict:
        read = row.bytes_read_non_output + row.bytes_read_output
        secs = row.seconds
        return {
            "Level": name,
            "Files": files,
            "CompactingFiles": compacting,
            "Size": size,
            "Score": score,
            f"Read({unit})": read / scale,
            f"Rn({unit})": row.bytes_read_non_output / scale,
            f"Rnp1({unit})": row.bytes_read_output / scale,
            f"Write({unit})": row.bytes_written / scale,
            f"Wnew({unit})": (row.bytes_written - row.bytes_read_output) / scale,
            f"Moved({unit})": row.bytes_moved / scale,
            "W-Amp": w_amp,
            "Rd(MB/s)": read / (1 << 20) / secs if secs else 0.0,
            "Wr(MB/s)": row.bytes_written / (1 << 20) / secs if secs else 0.0,
            "Comp(sec)": secs,
            "Comp(cnt)": row.count,
            "Avg(sec)": secs / row.count if row.count else 0.0,
            "KeyIn": row.key_in,
            "KeyDrop": row.key_drop,
        }

    def frame(self, version, scores: list[float], unit: str = "GB"):
        """The table as a pandas DataFrame (sizes in ``unit``, Size in bytes)."""
        import pandas as pd

        return pd.DataFrame(self.rows(version, scores, unit))

    def text(self, cf_name: str, version, scores: list[float], unit: str = "GB") -> str:
        """The table as RocksDB prints it (``PrintLevelStatsHeader`` / ``PrintLevelStats`` layout)."""
        u = unit
        header = (f"** Compaction Stats [{cf_name}] **\n"
                  f"Level    Files   Size     Score Read({u})  Rn({u}) Rnp1({u}) Write({u}) Wnew({u}) "
                  f"Moved({u}) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop\n")
        lines = [header + "-" * (len(header.splitlines()[1])) + "\n"]
        for r in self.rows(version, scores, unit):
            lines.append(
                f"{r['Level']:>4} {r['Files']:6d}/{r['CompactingFiles']:<3d} {human_bytes(r['Size']):>8} "
                f"{r['Score']:5.1f} {r[f'Read({u})']:8.1f} {r[f'Rn({u})']:7.1f} {r[f'Rnp1({u})']:8.1f} "
                f"{r[f'Write({u})']:9.1f} {r[f'Wnew({u})']:8.1f} {r[f'Moved({u})']:9.1f} {r['W-Amp']:5.1f} "
                f"{r['Rd(MB/s)']:8.1f} {r['Wr(MB/s)']:8.1f} {r['Comp(sec)']:9.0f} {r['Comp(cnt)']:9d} "
                f"{r['Avg(sec)']:8.3f} {human_count(r['KeyIn']):>7} {human_count(r['KeyDrop']):>6}\n")
        return "".join(lines)


def human_bytes(n: float) -> str:
    """RocksDB's BytesToHumanString: always at least KB, two decimals ('197.05 MB')."""
    size = n / 1024
    names = ("KB", "MB", "GB", "TB")
    i = 0
    while i < 3 and size >= 1024:
        size /= 1024
        i += 1
    return f"{size:.2f} {names[i]}"


def human_count(n: int) -> str:
    """RocksDB's NumberToHumanString: 9999, 8862K, 61M, 12G."""
    if n < 10_000:
        return str(n)
    if n < 10_000_000:
        return f"{n // 1000}K"
    if n < 10_000_000_000:
        return f"{n // 1_000_000}M"
    return f"{n // 1_000_000_000}G"
