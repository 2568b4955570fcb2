"""Exercise 09: how an LSM scan sees one sorted stream through many sources. Fill in every NotImplementedError.

A scan of an LSM reads the memtable, every L0 file and one stream per deeper level at once. Each source is sorted,
and the same key may be in several of them, in versions written at different times: the newest version is in the
newest source, and a delete is a *tombstone* entry that hides every older version. Two steps make one answer out of
them (LevelDB's table/merger.cc and db/db_iter.cc):

1. ``merge``: every entry of every source, in one sorted stream;
2. ``visible``: for each key, the newest version only, and nothing at all if that is a tombstone.

Pass your ``ScanMerge`` to the engine as ``open_lsm(device, merging_iterator=ScanMerge())``: every scan then goes
through its two methods (minidb/lsm/scan_merge.py states the contract). ``pytest exercises/09_merging_iterator``
grades your work.

An *entry* is a tuple ``(key, seq, kind, value)``: the key (bytes), the sequence number of the write (a later
write has a larger one), its kind (``PUT`` or ``DELETE``) and the value (``b""`` for a tombstone).
"""

from __future__ import annotations

from typing import Iterable, Iterator

PUT = 1  # kind of an entry that sets a value (the engine's dbformat.VALUE)
DELETE = 0  # kind of a tombstone (dbformat.DELETION)

Entry = tuple[bytes, int, int, bytes]  # (key, seq, kind, value)


class ScanMerge:
    """A scan's merge: the LSM engine takes an instance as ``merging_iterator``."""

    def merge(self, children: list[list[Entry]]) -> Iterator[Entry]:
        """Every entry of every child, in *internal key order*: key ascending, then sequence number descending (the
        newest version of a key first). Each child is already in that order; ``children[0]`` is the newest source.
        Entries that compare equal (never in a real engine) come in child order.

        Keep it lazy and cheap: hold one entry per child at a time in a heap (``heapq``), so that merging n entries
        from k children costs O(n log k) comparisons, not a sort of everything.
        """
        raise NotImplementedError("merge: see the notebook, section 'Merging sorted streams'")

    def visible(self, entries: Iterable[Entry]) -> Iterator[tuple[bytes, bytes]]:
        """What a client sees of ``entries`` (in internal key order): for each key, ``(key, value)`` of its first
        entry, the newest, unless that entry is a tombstone (``DELETE``), in which case nothing for that key."""
        raise NotImplementedError("visible: see the notebook, section 'Newest version wins'")
