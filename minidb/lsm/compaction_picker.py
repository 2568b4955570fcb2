"""Leveled compaction picking (RocksDB's LevelCompactionPicker) and manual range compaction.

The picker scores every level (level_sizing.py) and tries the levels from the highest score down, while the score
is at least 1:

* **L0** compacts *all* its files (they overlap each other) with the overlapping files of the base level.
* **Ln (n >= 1)** compacts *one* file with the files it overlaps in L(n+1). Which file: with
  ``compaction_pri="min_overlapping_ratio"`` (RocksDB's default) the one whose overlap in the next level is smallest
  relative to its own size, so each byte compacted rewrites the fewest bytes below; with ``"round_robin"``
  (LevelDB's way) the file after the level's *compact pointer*, which the MANIFEST remembers, so successive
  compactions sweep the level's key space.

**The plug point** (exercise 08): a picker passed as ``compaction_picker=`` (with ``compaction_pri="round_robin"``)
makes the decisions of round-robin leveled picking in the engine's place, on plain values, through three functions:

* ``level_scores(level_bytes, l0_files, targets, l0_trigger, max_bytes_for_level_base) -> list[float]``: the score
  of each level but the last, from the bytes of each level and the files of L0 not already being compacted;
* ``levels_to_compact(scores) -> list[int]``: the levels scoring >= 1, most urgent first (ties: the lower level);
* ``round_robin(largest_keys, pointer) -> int``: which of a level's files (given by their largest keys, in key
  order) to try first: the first after the compact pointer (None: none yet), wrapping around to 0.

The engine checks every answer (ValueError naming the function and the value) and does the rest itself: the files
an L0 compaction takes, the overlapping files of the next level, and skipping files already being compacted.

A pick is a *trivial move* (RocksDB's ``Compaction::IsTrivialMove``) when nothing in the output level overlaps the
start-level inputs, the inputs do not overlap each other, the two levels use the same compression, and the files
the moved ones would overlap two levels down stay under ``max_compaction_bytes``.
"""

from __future__ import annotations

from .compaction import Compaction, below, key_range
from .level_sizing import compaction_scores, level_targets
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
        scores, urgent = plugged_levels(o.compaction_picker, v, o, targets)
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


def plugged_levels(picker, v: Version, o: CFOptions, targets: list[float]) -> tuple[list[float], list[int]]:
    """The plugged-in picker's scores and levels to compact, checked (see the module docstring)."""
    live = [[f for f in v.levels[lv] if not f.being_compacted] for lv in range(v.num_levels)]
    scores = picker.level_scores([sum(f.size for f in files) for files in live], len(live[0]), list(targets),
                                 o.level0_file_num_compaction_trigger, o.max_bytes_for_level_base)
    scores = list(scores) if isinstance(scores, (list, tuple)) else scores
    if not (isinstance(scores, list) and len(scores) == v.num_levels - 1
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in scores)):
        raise ValueError(f"compaction picker {picker!r}: level_scores returned {scores!r}; it must return "
                         f"{v.num_levels - 1} numbers >= 0, one per level but the last")
    urgent = picker.levels_to_compact(scores)
    urgent = list(urgent) if isinstance(urgent, (list, tuple)) else urgent
    if not (isinstance(urgent, list) and all(isinstance(lv, int) and not isinstance(lv, bool)
                                             and 0 <= lv < len(scores) and scores[lv] >= 1 for lv in urgent)):
        raise ValueError(f"compaction picker {picker!r}: levels_to_compact({scores!r}) returned {urgent!r}; it "
                         f"must return levels (ints) whose score is >= 1")
    return scores, urgent


def plugged_round_robin(picker, largest: list[bytes], pointer: bytes | None) -> int:
    """The plugged-in picker's first file to try among files with largest keys ``largest``, checked."""
    first = picker.round_robin(list(largest), pointer)
    if not (isinstance(first, int) and not isinstance(first, bool) and 0 <= first < max(1, len(largest))):
        raise ValueError(f"compaction picker {picker!r}: round_robin(<{len(largest)} keys>, {pointer!r}) returned "
                         f"{first!r}; it must return an index from 0 to {len(largest) - 1}")
    return first


PICKER_METHODS = ("level_scores", "levels_to_compact", "round_robin")  # what a plugged-in picker must have


def check_picker(o: CFOptions, where: str = "") -> None:
    """Raise ValueError unless ``o.compaction_picker`` is usable: its methods, and the options it needs."""
    picker = o.compaction_picker
    for method in PICKER_METHODS:
        if not callable(getattr(picker, method, None)):
            raise ValueError(f"bad option compaction_picker={picker!r}{where}: needs a method {method}()")
    if o.compaction != "leveled" or o.compaction_pri != "round_robin":
        raise ValueError(f"bad option compaction_picker{where}: a picker plugs into leveled compaction with "
                         f"round-robin file choice; set compaction='leveled' and compaction_pri='round_robin' "
                         f"(got {o.compaction!r} and {o.compaction_pri!r})")


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
