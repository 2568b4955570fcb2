"""Version: the set of SST files of one column family, level by level (LevelDB's db/version_set.h).

* **L0** holds the files flushes write, each covering any key range: they overlap, so a read checks every L0 file
  whose range holds the key, newest first. They are kept newest first (by largest sequence number: flushed
  memtables cover disjoint, increasing sequence ranges).
* **L1 and below** each hold files with disjoint key ranges, sorted by key: a read checks at most one file per level.

The version changes only by applying a VersionEdit (add and delete files), at the moment a flush or compaction is
*installed*; a job in flight marks its input files ``being_compacted`` so no other job takes them.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from .version_edit import FileMeta


def overlaps(f: FileMeta, lo: bytes | None, hi: bytes | None) -> bool:
    """True if file ``f``'s user-key range meets ``[lo, hi]`` (None: unbounded)."""
    return (hi is None or f.smallest_user <= hi) and (lo is None or f.largest_user >= lo)


@dataclass
class Version:
    """The files of one column family; ``levels[i]`` lists level i's files in read order."""

    levels: list[list[FileMeta]]  # per level: L0 newest first, L1+ by smallest key

    def __post_init__(self) -> None:
        self._keys: dict[int, tuple[list[bytes], list[bytes]]] = {}  # level -> (smallest, largest) user keys
        self._bytes: dict[int, int] = {}  # level -> bytes of its files
        self.epoch = 0  # changes counted: lets callers cache what they derive from the file set

    @classmethod
    def empty(cls, num_levels: int) -> Version:
        """A version with ``num_levels`` empty levels."""
        return cls([[] for _ in range(num_levels)])

    @property
    def num_levels(self) -> int:
        """Levels L0..L(num_levels-1)."""
        return len(self.levels)

    def add(self, level: int, f: FileMeta) -> None:
        """Add ``f`` to ``level`` at its place in read order."""
        files = self.levels[level]
        self._keys.pop(level, None)
        self._bytes.pop(level, None)
        self.epoch += 1
        if level == 0:
            keys = [-g.largest_seq for g in files]
            files.insert(bisect.bisect_right(keys, -f.largest_seq), f)
        else:
            # By user key: raw internal keys would let the 8-byte trailer of key b"k" sort after b"k\x00".
            keys = [g.smallest_user for g in files]
            files.insert(bisect.bisect_left(keys, f.smallest_user), f)

    def remove(self, level: int, number: int) -> FileMeta:
        """Remove file ``number`` from ``level`` and return it; KeyError if it is not there."""
        for i, f in enumerate(self.levels[level]):
            if f.number == number:
                self._keys.pop(level, None)
                self._bytes.pop(level, None)
                self.epoch += 1
                return self.levels[level].pop(i)
        raise KeyError(f"file {number} is not in level {level}")

    def all_files(self):
        """``(level, file)`` for every file."""
        for level, files in enumerate(self.levels):
            for f in files:
                yield level, f

    def level_bytes(self, level: int) -> int:
        """Bytes of the files in ``level``."""
        n = self._bytes.get(level)
        if n is None:
            n = self._bytes[level] = sum(f.size for f in self.levels[level])
        return n

    def total_bytes(self) -> int:
        """Bytes of every file."""
        return sum(self.level_bytes(level) for level in range(self.num_levels))

    def num_files(self) -> int:
        """Files in every level."""
        return sum(len(files) for files in self.levels)

    def num_non_empty_levels(self) -> int:
        """1 + the deepest level holding a file (0 if none holds any), RocksDB's num_non_empty_levels."""
        for level in range(self.num_levels - 1, -1, -1):
            if self.levels[level]:
                return level + 1
        return 0

    def level_keys(self, level: int) -> tuple[list[bytes], list[bytes]]:
        """The smallest and the largest user keys of ``level``'s files, in file order (kept until the level changes):
        what a binary search over the level reads."""
        keys = self._keys.get(level)
        if keys is None:
            files = self.levels[level]
            keys = self._keys[level] = ([f.smallest_user for f in files], [f.largest_user for f in files])
        return keys

    def overlapping(self, level: int, lo: bytes | None, hi: bytes | None) -> list[FileMeta]:
        """Files of ``level`` whose user-key range meets ``[lo, hi]``, in read order."""
        if level == 0:
            return [f for f in self.levels[0] if overlaps(f, lo, hi)]
        # Sorted, disjoint files: the overlapping ones are a contiguous run, found by binary search.
        smallest, largest = self.level_keys(level)
        first = 0 if lo is None else bisect.bisect_left(largest, lo)
        end = len(smallest) if hi is None else bisect.bisect_right(smallest, hi)
        return self.levels[level][first:end]

    def in_range(self, level: int, start: bytes, end: bytes) -> list[FileMeta]:
        """Files of ``level`` (1 or deeper) holding user keys in ``[start, end)``: the run a scan reads, found by
        binary search."""
        smallest, largest = self.level_keys(level)
        return self.levels[level][bisect.bisect_left(largest, start):bisect.bisect_left(smallest, end)]

    def check(self) -> None:
        """Raise AssertionError unless L1+ files are sorted and disjoint (a consistency check for tests)."""
        for level in range(1, self.num_levels):
            files = self.levels[level]
            for a, b in zip(files, files[1:]):
                assert a.largest_user < b.smallest_user, f"L{level}: files {a.number} and {b.number} overlap"
