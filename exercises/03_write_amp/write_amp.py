"""Exercise 03: write amplification of leveled compaction, by hand. Fill in every NotImplementedError.

An LSM engine writes each byte many times: once when its memtable is flushed into level 0, then again every time a
compaction merges it into the next level, along with the bytes already there. You will predict those writes, level
by level, for a load of unique keys, with a *fluid* model: a level is a number of bytes spread evenly over the key
space, and compactions move bytes from one level to the next. The notebook ``write_amp.md`` derives every rule;
``pytest exercises/03_write_amp`` grades your model, against the reference on several settings, then against the
compaction statistics the book's LSM engine counts.

All sizes are floats in one unit of your choice (bytes, MiB...): the bytes an SST file takes on disk.
"""

from __future__ import annotations


def level_targets(max_bytes_for_level_base: float, multiplier: float, num_levels: int) -> list[float]:
    """Target bytes of each of the ``num_levels`` levels: 0.0 for L0 (compacted by file count, not by size),
    ``max_bytes_for_level_base`` for L1, and each next level ``multiplier`` times the one above.

    Raise ValueError if ``max_bytes_for_level_base`` is not > 0, ``multiplier`` not > 1, or ``num_levels`` is not
    an int >= 2.
    """
    raise NotImplementedError("level_targets: see the notebook, section 'Levels and their targets'")


class LeveledModel:
    """Leveled compaction of a load of unique keys, as bytes flowing down the levels (see the notebook)."""

    def __init__(self, memtable_bytes: float, l0_trigger: int, max_bytes_for_level_base: float, multiplier: float,
                 num_levels: int) -> None:
        """Keep the settings and start empty. Set these attributes (the tests read them):

        * ``memtable_bytes``: bytes of one flushed memtable, that is of one L0 file;
        * ``l0_trigger``: L0 files that trigger an L0 -> L1 compaction (level0_file_num_compaction_trigger);
        * ``targets``: ``level_targets(max_bytes_for_level_base, multiplier, num_levels)``;
        * ``sizes``: bytes each level holds, a list of ``num_levels`` floats, all 0.0;
        * ``written``: bytes written into each level so far, the same;
        * ``l0_files``: files in L0, 0.

        Raise ValueError if ``memtable_bytes`` is not > 0 or ``l0_trigger`` is not an int >= 1 (and, through
        ``level_targets``, for a bad base, multiplier or number of levels).
        """
        raise NotImplementedError("LeveledModel.__init__")

    def flush(self, nbytes: float) -> None:
        """A memtable of ``nbytes`` is flushed: L0 gets one more file, and ``nbytes`` more written and held.

        Then, if L0 holds ``l0_trigger`` files or more, or ``targets[1]`` bytes or more (RocksDB also compacts L0
        when it is as big as L1's target), compact it: ``compact_l0()``, then ``push_down(level)`` for every level
        from 1 to the last but one, in that order. ValueError if ``nbytes`` is not > 0.
        """
        raise NotImplementedError("LeveledModel.flush: see the notebook, section 'Flushes and L0'")

    def compact_l0(self) -> None:
        """Merge all of L0 with all of L1 into L1 (L0's files overlap each other and the whole key range).

        It writes every byte of both into L1; L1 then holds them all, and L0 nothing (no files).
        """
        raise NotImplementedError("LeveledModel.compact_l0: see the notebook, section 'Flushes and L0'")

    def push_down(self, level: int) -> None:
        """Move the bytes of ``level`` above its target into ``level + 1``; nothing if it is within its target.

        With ``excess = sizes[level] - targets[level]``, the excess covers ``excess / (2 * targets[level])`` of the
        key space (the part compacted next is the level's densest, twice its average density); it overlaps that
        share of the next level's bytes, all of them at most: ``overlap = min(1, excess / (2 * target)) * sizes[level
        + 1]``. The compaction writes ``excess + overlap`` bytes into ``level + 1``, which then holds ``excess``
        more, and ``level`` holds its target. ValueError unless ``1 <= level <= num_levels - 2``.
        """
        raise NotImplementedError("LeveledModel.push_down: see the notebook, section 'Pushing bytes down'")

    def load(self, load_bytes: float) -> LeveledModel:
        """Flush ``load_bytes`` as memtables of ``memtable_bytes``, the last one holding what is left (the final
        flush of a load); return ``self``. ValueError if ``load_bytes`` is negative."""
        raise NotImplementedError("LeveledModel.load")

    def write_amp(self) -> float:
        """Bytes written into all levels, flushes included, per byte flushed (RocksDB's Sum W-Amp); 0.0 before the
        first flush."""
        raise NotImplementedError("LeveledModel.write_amp")
