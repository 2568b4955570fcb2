"""How big each level may be, how urgently each needs compaction, and how much compaction is owed.

These are RocksDB's computations on a version (db/version_set.cc, VersionStorageInfo), for leveled compaction:

* ``level_targets``: the target size of every level (``CalculateBaseBytes``). Static sizing gives L1
  ``max_bytes_for_level_base`` and each next level ``multiplier`` times more. With
  ``level_compaction_dynamic_level_bytes`` the sizes are set from the bottom up instead: the last level's target is
  its actual size, each level above is ``multiplier`` times smaller, and L0 compacts straight into the *base level*,
  the first level whose target reaches ``max_bytes_for_level_base / multiplier``, so that every level holds about
  ``multiplier`` times the one above and write amplification stays near its theoretical minimum.
* ``compaction_scores``: L0's score is its file count over ``level0_file_num_compaction_trigger`` (or its bytes over
  ``max_bytes_for_level_base`` if larger); a level >= 1 scores its bytes (files being compacted excluded) over its
  target. A score >= 1 asks for a compaction; the highest goes first (``ComputeCompactionScore``).
* ``pending_compaction_bytes``: RocksDB's estimate of the bytes compaction must still rewrite to bring every level
  within its target (``EstimateCompactionBytesNeeded``); writes slow down and stop at the soft and hard limits.
"""

from __future__ import annotations

from .options import CFOptions
from .version import Version

UNLIMITED = float("inf")  # target of a level that must never be compacted (above the base level)


def level_targets(v: Version, o: CFOptions) -> tuple[int, list[float]]:
    """``(base level, target bytes per level)``; L0's entry is unused (it is triggered by file count)."""
    n = v.num_levels
    base = o.max_bytes_for_level_base
    mult = o.max_bytes_for_level_multiplier
    if not o.level_compaction_dynamic_level_bytes:
        targets = [float(base)] * n
        for i in range(2, n):
            targets[i] = targets[i - 1] * mult
        return 1, targets
    targets = [UNLIMITED] * n
    sizes = [v.level_bytes(i) for i in range(n)]
    first_non_empty = next((i for i in range(1, n) if sizes[i] > 0), -1)
    max_level_size = max(sizes[1:], default=0)
    if max_level_size == 0:
        return n - 1, targets  # no data below L0: L0 compacts straight into the last level
    l0_size = sizes[0]
    base_bytes_max = max(base, l0_size)
    base_bytes_min = base_bytes_max / mult
    cur = float(max_level_size)
    for _ in range(n - 2, first_non_empty - 1, -1):
        cur = int(cur / mult)
    base_level = first_non_empty
    if cur <= base_bytes_min:
        # The last level is too small for the levels above it to keep the multiplier: keep the base level where
        # data already is and give it the minimum size.
        base_size = base_bytes_min + 1
    else:
        while base_level > 1 and cur > base_bytes_max:
            base_level -= 1
            cur = int(cur / mult)
        base_size = min(cur, base_bytes_max)
    level_mult = mult
    if l0_size > base_size and (l0_size > base or len(v.levels[0]) // 2 >= o.level0_file_num_compaction_trigger):
        # L0 is backlogged: size the base level after L0 and spread the ratio over the levels below.
        base_size = l0_size
        level_mult = 1.0 if base_level == n - 1 else (max_level_size / base_size) ** (1.0 / (n - base_level - 1))
    size = float(base_size)
    for i in range(base_level, n):
        if i > base_level:
            size *= level_mult
        targets[i] = max(size, base_bytes_max)
    return base_level, targets


def compaction_scores(v: Version, o: CFOptions, targets: list[float]) -> list[float]:
    """Score of each level 0..num_levels-2 (the last level is never compacted further)."""
    scores = []
    for level in range(v.num_levels - 1):
        files = [f for f in v.levels[level] if not f.being_compacted]
        size = sum(f.size for f in files)
        if level == 0:
            score = max(len(files) / o.level0_file_num_compaction_trigger, size / o.max_bytes_for_level_base)
        else:
            score = 0.0 if targets[level] == UNLIMITED else size / targets[level]
        scores.append(score)
    return scores


def pending_compaction_bytes(v: Version, o: CFOptions, base_level: int, targets: list[float]) -> int:
    """Bytes compaction must still rewrite, as RocksDB estimates them (see the module docstring)."""
    n = v.num_levels
    l0 = v.level_bytes(0)
    estimate = 0
    to_next = 0
    l0_triggered = len(v.levels[0]) >= o.level0_file_num_compaction_trigger or l0 >= o.max_bytes_for_level_base
    if l0_triggered:
        estimate = to_next = l0
    next_level_bytes = 0
    for level in range(base_level, n - 1):
        size = next_level_bytes if next_level_bytes else v.level_bytes(level)
        next_level_bytes = 0
        if level == base_level and l0_triggered:
            estimate += size
        size += to_next
        to_next = 0
        if size > targets[level]:
            to_next = int(size - targets[level])
            next_level_bytes = v.level_bytes(level + 1)
            if next_level_bytes:
                estimate += int(to_next * (next_level_bytes / size + 1))
    return estimate
