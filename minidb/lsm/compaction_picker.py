"""Leveled compaction picking (RocksDB's LevelCompactionPicker) and manual range compaction.

The picker scores every level (level_sizing.py) and tries the levels from the highest score down, while the score
is at least 1:

* **L0** compacts *all* its files (they overlap each other) with the overlapping files of the base level.
* **Ln (n >= 1)** compacts *one* file with the files it overlaps in L(n+1). Which file: with
  ``compaction_pri="min_overlapping_ratio"`` (RocksDB's default) the one whose overlap in the next level is smallest
  relative to its own size, so each byte compacted rewrites the fewest bytes below; with ``"round_robin"``
  (LevelDB's way) the file after the level's *compact pointer*, which the MANIFEST remembers, so successive
  compactions sweep the level's key space.

**The plug point** (exercise 08, leveled_picker.py): a ``LeveledPicker`` passed as ``compaction_picker=`` makes
the decisions of round-robin leveled picking in the engine's place (the scores, the most urgent level, the file
after the compact pointer); the engine does the rest itself.

A pick is a *trivial move* (RocksDB's ``Compaction::IsTrivialMove``) when nothing in the output level overlaps the
start-level inputs, the inputs do not overlap each other, the two levels use the same compression, and the files
the moved ones would overlap two levels down stay under ``max_compaction_bytes``.
"""

from __future__ import annotations

from .compaction import Compaction, below, key_range
from .level_sizing import compaction_scores, level_targets
from .leveled_picker import plugged_levels, plugged_round_robin
from .options import CFOptions
from .version import Version
from .version_edit import FileMeta


def pick_leveled(cf_id: int, v: Version, o: CFOptions, pointers: dict[int, bytes]) -> Compaction | None:
    """The most urgent compaction of a leveled column family, or None if no level scores >= 1."""
    base, targets = level_targets(v, o)
    if o.compaction_picker is None:
        scores = compaction_scores(v, o, targets)
        urgent = [lv for lv in sorted(range(len(scores)), key=lambda lv: (-scores[lv], lv)) if scores[lv] >= 1]
    else:
        scores, urgent = plugged_levels(o.compaction_picker, v, targets, o.level0_file_num_compaction_trigger,
                                        o.max_bytes_for_level_base)
    for level in urgent:
        c = _pick_level0(cf_id, v, o, base) if level == 0 else _pick_file(cf_id, v, o, level, base, pointers)
        if c is not None:
            c.score = scores[level]
            return c
    return None


def _pick_level0(cf_id: int, v: Version, o: CFOptions, base: int) -> Compaction | None:
    l0 = v.levels[0]
    if not l0 or any(f.being_compacted for f in l0):
        return None
    lo, hi = key_range(l0)
    outs = v.overlapping(base, lo, hi)
    if any(f.being_compacted for f in outs):
        return None
    return _make(cf_id, v, o, [(0, list(l0))] + ([(base, outs)] if outs else []), base, base, "level0")


def _pick_file(cf_id: int, v: Version, o: CFOptions, level: int, base: int,
               pointers: dict[int, bytes]) -> Compaction | None:
    output = level + 1
    candidates = [f for f in v.levels[level] if not f.being_compacted]
    if o.compaction_picker is not None:
        first = plugged_round_robin(o.compaction_picker, [f.largest for f in candidates], pointers.get(level))
        candidates = candidates[first:] + candidates[:first]
    elif o.compaction_pri == "round_robin":
        ptr = pointers.get(level)
        after = [f for f in candidates if ptr is None or f.largest > ptr]
        candidates = after + [f for f in candidates if f not in after]
    else:
        def ratio(f: FileMeta) -> float:
            """Bytes ``f`` would rewrite in the next level per byte of its own."""
            overlap = sum(g.size for g in v.overlapping(output, f.smallest_user, f.largest_user))
            return overlap / max(f.size, 1)
        candidates.sort(key=lambda f: (ratio(f), f.smallest))
    for f in candidates:
        outs = v.overlapping(output, f.smallest_user, f.largest_user)
        if any(g.being_compacted for g in outs):
            continue
        return _make(cf_id, v, o, [(level, [f])] + ([(output, outs)] if outs else []), output, base, "level-size")
    return None


def _make(cf_id: int, v: Version, o: CFOptions, inputs, output: int, base: int, reason: str,
          allow_move: bool = True) -> Compaction:
    lo, hi = key_range([f for _, files in inputs for f in files])
    deeper = below(v, output, lo, hi)
    bottommost = not deeper
    c = Compaction(cf_id=cf_id, inputs=inputs, output_level=output, reason=reason,
                   compression=o.compression_for(output, base, bottommost),
                   target_file_size=o.target_file_size(output, base), bottommost=bottommost, deeper=deeper)
    c.trivial_move = allow_move and _is_trivial_move(v, o, c, base)
    return c


def _is_trivial_move(v: Version, o: CFOptions, c: Compaction, base: int) -> bool:
    if len(c.inputs) != 1 or c.start_level == c.output_level:
        return False
    files = c.inputs[0][1]
    if c.start_level == 0:
        ordered = sorted(files, key=lambda f: f.smallest_user)
        if any(a.largest_user >= b.smallest_user for a, b in zip(ordered, ordered[1:])):
            return False  # overlapping L0 files must be merged, not moved
    bottommost_in = not below(v, c.start_level, *key_range(files))
    if o.compression_for(c.start_level, base, bottommost_in) != c.compression:
        return False  # RocksDB's InputCompressionMatchesOutput
    if c.output_level + 1 < v.num_levels:
        for f in files:
            grand = v.overlapping(c.output_level + 1, f.smallest_user, f.largest_user)
            if f.size + sum(g.size for g in grand) > o.compaction_bytes_limit:
                return False
    return True


def manual_steps(cf_id: int, v: Version, o: CFOptions, lo: bytes | None, hi: bytes | None) -> Compaction | None:
    """The next step of a manual ``compact_range(lo, hi)`` on a leveled column family, or None when done.

    As RocksDB's CompactRange: L0 into the base level, then each level into the next, down to the last level that
    holds data; every step rewrites (no trivial moves), so tombstones reaching the bottom are dropped. The caller
    runs steps until None, re-asking after each (the version changes).
    """
    base, _ = level_targets(v, o)
    last = v.num_non_empty_levels() - 1
    if last < 0:
        return None
    l0 = v.overlapping(0, lo, hi)
    if l0:
        rng = key_range(l0)
        outs = v.overlapping(base, *rng)
        return _make(cf_id, v, o, [(0, l0)] + ([(base, outs)] if outs else []), base, base, "manual", False)
    for level in range(1, last):
        files = v.overlapping(level, lo, hi)
        if files:
            outs = v.overlapping(level + 1, *key_range(files))
            return _make(cf_id, v, o, [(level, files)] + ([(level + 1, outs)] if outs else []), level + 1,
                         base, "manual", False)
    return None
