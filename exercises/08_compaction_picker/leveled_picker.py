"""Exercise 08: the LSM's leveled compaction picker. Fill in every NotImplementedError.

After every flush and compaction a leveled LSM asks: does some level hold more than it should, and if so, which
level and which of its files goes down next? RocksDB answers with a *score* per level (db/version_set.cc,
``ComputeCompactionScore``) and compacts the level with the highest score, if that score is at least 1. Within the
level it takes the file after the level's *compact pointer* (``kRoundRobin``, LevelDB's way): successive
compactions sweep the level's key space, so every key range gets its turn.

Pass your picker to the engine as ``open_lsm(device, compaction_picker=LeveledPicker(),
compaction_pri="round_robin")``: it calls its three methods on every pick, with plain numbers and keys
(minidb/lsm/leveled_picker.py states the contract). ``pytest exercises/08_compaction_picker`` grades your work.
"""

from __future__ import annotations


class LeveledPicker:
    """The leveled picker's decisions: the LSM engine takes an instance as ``compaction_picker``."""

    def level_scores(self, level_bytes: list[int], l0_files: int, targets: list[float], l0_trigger: int,
                     max_bytes_for_level_base: int) -> list[float]:
        """The compaction score of each level from L0 to the next-to-last one (the last level is never compacted).

        ``level_bytes[n]``: the bytes of level n's files (files already being compacted left out); ``l0_files``: the
        number of L0 files (likewise); ``targets[n]``: the target size of level n (``float("inf")`` for a level that
        must stay empty, above the base level; ``targets[0]`` is unused).

        L0 scores the larger of ``l0_files / l0_trigger`` and ``level_bytes[0] / max_bytes_for_level_base``; a level
        n >= 1 scores ``level_bytes[n] / targets[n]``, and 0.0 when its target is infinite.
        """
        raise NotImplementedError("level_scores: see the notebook, section 'Scores'")

    def levels_to_compact(self, scores: list[float]) -> list[int]:
        """The levels whose score is at least 1, the most urgent first: highest score first, and on equal scores the
        lower level first. The engine tries them in this order (a level whose files are all busy is skipped)."""
        raise NotImplementedError("levels_to_compact: see the notebook, section 'The most urgent level'")

    def round_robin(self, largest_keys: list[bytes], pointer: bytes | None) -> int:
        """Which file of a level to compact first: its index in ``largest_keys`` (the largest key of each file, in
        key order; keys compare as bytes).

        The compact ``pointer`` is the largest key of the last file compacted from this level (None before the
        first): take the first file whose largest key is greater than the pointer, and when no file is, wrap around
        to file 0.
        """
        raise NotImplementedError("round_robin: see the notebook, section 'Round robin'")
