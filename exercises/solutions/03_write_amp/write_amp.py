"""Reference solution of exercise 03: write amplification of leveled compaction, by following the bytes.

The model is a *fluid*: a level is a number of bytes spread evenly over the key space, and a compaction moves bytes
from one level to the next, counting what it writes. Read it after trying the exercise yourself.
"""

from __future__ import annotations


def level_targets(max_bytes_for_level_base: float, multiplier: float, num_levels: int) -> list[float]:
    """Target bytes of each level: 0 for L0 (it is compacted by file count), then base, base * m, base * m^2..."""
    if not max_bytes_for_level_base > 0:
        raise ValueError(f"max_bytes_for_level_base must be > 0, got {max_bytes_for_level_base!r}")
    if not multiplier > 1:
        raise ValueError(f"multiplier must be > 1, got {multiplier!r}")
    if not isinstance(num_levels, int) or num_levels < 2:
        raise ValueError(f"num_levels must be an int >= 2 (L0 and at least L1), got {num_levels!r}")
    return [0.0] + [float(max_bytes_for_level_base) * multiplier ** (level - 1) for level in range(1, num_levels)]


class LeveledModel:
    """Leveled compaction of a load of unique keys, as bytes flowing down the levels."""

    def __init__(self, memtable_bytes: float, l0_trigger: int, max_bytes_for_level_base: float, multiplier: float,
                 num_levels: int) -> None:
        if not memtable_bytes > 0:
            raise ValueError(f"memtable_bytes must be > 0, got {memtable_bytes!r}")
        if not isinstance(l0_trigger, int) or l0_trigger < 1:
            raise ValueError(f"l0_trigger must be an int >= 1, got {l0_trigger!r}")
        self.memtable_bytes = memtable_bytes  # bytes of one flushed memtable: one L0 file
        self.l0_trigger = l0_trigger  # L0 files that trigger an L0 -> L1 compaction
        self.targets = level_targets(max_bytes_for_level_base, multiplier, num_levels)  # target bytes per level
        self.sizes = [0.0] * num_levels  # bytes each level holds now
        self.written = [0.0] * num_levels  # bytes written into each level so far (by flushes into L0)
        self.l0_files = 0  # files in L0 now

    def flush(self, nbytes: float) -> None:
        """A memtable of ``nbytes`` becomes an L0 file; then every compaction it triggers runs."""
        if not nbytes > 0:
            raise ValueError(f"a flush writes a positive number of bytes, got {nbytes!r}")
        self.written[0] += nbytes
        self.sizes[0] += nbytes
        self.l0_files += 1
        # RocksDB's L0 score: file count over the trigger, or bytes over the base level's target.
        if self.l0_files >= self.l0_trigger or self.sizes[0] >= self.targets[1]:
            self.compact_l0()
            for level in range(1, len(self.sizes) - 1):
                self.push_down(level)

    def compact_l0(self) -> None:
        """Merge all of L0 with all of L1 into L1: L0's files overlap each other and the whole key range."""
        self.written[1] += self.sizes[0] + self.sizes[1]
        self.sizes[1] += self.sizes[0]
        self.sizes[0] = 0.0
        self.l0_files = 0

    def push_down(self, level: int) -> None:
        """Move the bytes of ``level`` above its target into the next level, rewriting what they overlap there."""
        if not 1 <= level < len(self.sizes) - 1:
            raise ValueError(f"push_down(level) needs 1 <= level <= {len(self.sizes) - 2}, got {level!r}")
        excess = self.sizes[level] - self.targets[level]
        if excess <= 0:
            return
        # The part compacted next is the level's densest, twice its average density: the excess spans
        # excess / (2 * target) of the key space, and overlaps that share of the next level (all of it at most).
        overlap = min(1.0, excess / (2 * self.targets[level])) * self.sizes[level + 1]
        self.written[level + 1] += excess + overlap
        self.sizes[level] -= excess
        self.sizes[level + 1] += excess

    def load(self, load_bytes: float) -> LeveledModel:
        """Flush ``load_bytes`` in memtables of ``memtable_bytes`` (the last one partial, as a final flush)."""
        if not load_bytes >= 0:
            raise ValueError(f"load_bytes must be >= 0, got {load_bytes!r}")
        left = float(load_bytes)
        while left > 0:
            chunk = min(self.memtable_bytes, left)
            self.flush(chunk)
            left -= chunk
        return self

    def write_amp(self) -> float:
        """Bytes written into every level (flushes included) per byte flushed; 0 before any flush."""
        return sum(self.written) / self.written[0] if self.written[0] else 0.0

