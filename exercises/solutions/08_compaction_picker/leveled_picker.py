"""Exercise 08, reference solution: leveled scoring, the most urgent level, and round-robin file choice."""

from __future__ import annotations

import math
from bisect import bisect_right


class LeveledPicker:
    """The leveled picker's decisions: the LSM engine takes an instance as ``compaction_picker``."""

    def level_scores(self, level_bytes: list[int], l0_files: int, targets: list[float], l0_trigger: int,
                     max_bytes_for_level_base: int) -> list[float]:
        """L0: files over the trigger or bytes over the base size, whichever is more; Ln: bytes over the target."""
        scores = [max(l0_files / l0_trigger, level_bytes[0] / max_bytes_for_level_base)]
        for size, target in zip(level_bytes[1:-1], targets[1:-1]):
            scores.append(0.0 if math.isinf(target) else size / target)
        return scores

    def levels_to_compact(self, scores: list[float]) -> list[int]:
        """Levels scoring >= 1, highest score first, ties to the lower level."""
        due = [level for level, score in enumerate(scores) if score >= 1]
        return sorted(due, key=lambda level: (-scores[level], level))

    def round_robin(self, largest_keys: list[bytes], pointer: bytes | None) -> int:
        """The first file past the pointer (keys are in order, so a binary search finds it), else file 0."""
        if pointer is None:
            return 0
        first = bisect_right(largest_keys, pointer)
        return first if first < len(largest_keys) else 0
