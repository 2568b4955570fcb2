"""Universal compaction picking (RocksDB's UniversalCompactionPicker, db/compaction/compaction_picker_universal.cc).

Universal compaction sees the data as *sorted runs* ordered by age: each L0 file is a run (newest first), and each
non-empty level below is one run. It merges runs, never rewriting a run into the next level over and over as
leveled compaction does, so it writes less (lower write amplification) at the cost of more space and more runs to
read. Once there are at least ``level0_file_num_compaction_trigger`` runs, it tries in order:

1. **size amplification**: if the runs other than the oldest hold more than ``max_size_amplification_percent`` of
   the oldest run's size, merge everything into one run (a full compaction, at the last level);
2. **size ratio**: from the newest run, keep adding the next older run while it is no bigger than the runs picked so
   far times ``(100 + size_ratio) / 100``; merge them if that picks at least ``min_merge_width`` runs;
3. **run count**: if still more runs than the trigger, merge the newest ``runs - trigger + 1`` regardless of size.

The output goes to the level just above the next older run (or the last level if all older runs were taken), so
runs stay in age order down the levels. Tombstones are dropped only when the oldest run is among the inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from .compaction import Compaction
from .options import CFOptions
from .version import Version
from .version_edit import FileMeta


@dataclass
class SortedRun:
    """One sorted run: an L0 file, or all the files of a level >= 1."""

    level: int  # where it lives
    files: list[FileMeta]  # its files
    size: int  # its bytes
    being_compacted: bool  # taken by a compaction in flight


def sorted_runs(v: Version) -> list[SortedRun]:
    """The runs of ``v``, newest first."""
    runs = [SortedRun(0, [f], f.size, f.being_compacted) for f in v.levels[0]]
    for level in range(1, v.num_levels):
        files = v.levels[level]
        if files:
            runs.append(SortedRun(level, list(files), sum(f.size for f in files),
                                  any(f.being_compacted for f in files)))
    return runs


def pick_universal(cf_id: int, v: Version, o: CFOptions) -> Compaction | None:
    """The next universal compaction, or None; see the module docstring."""
    runs = sorted_runs(v)
    if len(runs) < o.level0_file_num_compaction_trigger:
        return None
    c = _size_amp(cf_id, v, o, runs)
    if c is None:
        c = _size_ratio(cf_id, v, o, runs, o.size_ratio, 2**32 - 1, "size-ratio")
    if c is None:
        free = sum(not r.being_compacted for r in runs)
        if free > o.level0_file_num_compaction_trigger:
            c = _size_ratio(cf_id, v, o, runs, 2**32 - 1, free - o.level0_file_num_compaction_trigger + 1,
                            "sorted-runs")
    if c is not None:
        c.score = len(runs) / o.level0_file_num_compaction_trigger
    return c


def _size_amp(cf_id: int, v: Version, o: CFOptions, runs: list[SortedRun]) -> Compaction | None:
    if runs[-1].being_compacted:
        return None
    start = next((i for i, r in enumerate(runs[:-1]) if not r.being_compacted), None)
    if start is None:
        return None
    newer = runs[start:-1]
    if any(r.being_compacted for r in newer) or not newer:
        return None
    if sum(r.size for r in newer) * 100 < o.max_size_amplification_percent * runs[-1].size:
        return None
    return _make(cf_id, v, o, runs, start, len(runs), "size-amp")


def _size_ratio(cf_id: int, v: Version, o: CFOptions, runs: list[SortedRun], ratio: int, max_files: int,
                reason: str) -> Compaction | None:
    max_files = min(o.max_merge_width, max_files)
    loop = 0
    while loop < len(runs):
        while loop < len(runs) and runs[loop].being_compacted:
            loop += 1
        if loop == len(runs):
            return None
        count = 1
        total = runs[loop].size
        i = loop + 1
        while count < max_files and i < len(runs):
            nxt = runs[i]
            if nxt.being_compacted or total * (100.0 + ratio) / 100.0 < nxt.size:
                break
            total += nxt.size
            count += 1
            i += 1
        if count >= o.min_merge_width:
            return _make(cf_id, v, o, runs, loop, loop + count, reason)
        loop += 1
    return None


def _make(cf_id: int, v: Version, o: CFOptions, runs: list[SortedRun], start: int, end: int,
          reason: str) -> Compaction:
    """Merge runs[start:end]; the output goes above the next older run, or to the last level."""
    if end == len(runs):
        output = v.num_levels - 1
    elif runs[end].level == 0:
        output = 0
    else:
        output = runs[end].level - 1
    inputs: list[tuple[int, list[FileMeta]]] = []
    l0 = [r.files[0] for r in runs[start:end] if r.level == 0]
    if l0:
        inputs.append((0, l0))
    for r in runs[start:end]:
        if r.level > 0:
            inputs.append((r.level, list(r.files)))
    bottommost = end == len(runs)
    return Compaction(cf_id=cf_id, inputs=inputs, output_level=output, reason=reason,
                      compression=o.compression_for(output, 1, bottommost), target_file_size=0,
                      bottommost=bottommost)


def manual_universal(cf_id: int, v: Version, o: CFOptions) -> Compaction | None:
    """compact_range on a universal column family: merge every run into one, at the last level."""
    runs = sorted_runs(v)
    if not runs or (len(runs) == 1 and runs[0].level == v.num_levels - 1):
        return None
    return _make(cf_id, v, o, runs, 0, len(runs), "manual")
