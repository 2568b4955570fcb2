"""LeveledPicker: the plug point for the decisions of round-robin leveled compaction picking (exercise 08).

A picker passed as ``open_lsm(..., compaction_picker=picker, compaction_pri="round_robin")`` (a plug point,
minidb/plug_point.py) decides in the engine's place, on plain values, through the three functions of
``LeveledPicker``: the score of each level, the levels to compact most urgent first, and which file of a level to
try first. The engine checks every answer (ValueError naming the function and the value) and does the rest itself
(compaction_picker.py): the files an L0 compaction takes, the overlapping files of the next level, and skipping
files already being compacted.
"""

from __future__ import annotations

from ..plug_point import PlugPoint
from .version import Version


class LeveledPicker(PlugPoint, option="compaction_picker"):
    """The interface of a leveled picker (a plug point): ``level_scores``, ``levels_to_compact``,
    ``round_robin``."""

    def level_scores(self, level_bytes: list[int], l0_files: int, targets: list[float], l0_trigger: int,
                     max_bytes_for_level_base: int) -> list[float]:
        """The score of each level but the last, from the bytes of each level and the files of L0 not already being
        compacted (``targets``: each level's target size, ``inf`` for a level that must stay empty)."""
        raise NotImplementedError

    def levels_to_compact(self, scores: list[float]) -> list[int]:
        """The levels scoring >= 1, most urgent first (ties: the lower level)."""
        raise NotImplementedError

    def round_robin(self, largest_keys: list[bytes], pointer: bytes | None) -> int:
        """Which of a level's files (given by their largest keys, in key order) to try first: the first after the
        compact pointer (None: none yet), wrapping around to 0."""
        raise NotImplementedError


def plugged_levels(picker, v: Version, targets: list[float], l0_trigger: int,
                   max_bytes_for_level_base: int) -> tuple[list[float], list[int]]:
    """The plugged-in picker's scores and levels to compact, checked (see the module docstring)."""
    live = [[f for f in v.levels[lv] if not f.being_compacted] for lv in range(v.num_levels)]
    scores = picker.level_scores([sum(f.size for f in files) for files in live], len(live[0]), list(targets),
                                 l0_trigger, max_bytes_for_level_base)
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
