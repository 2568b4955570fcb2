"""The plug point for a scan's merging (exercise 09): a merging iterator and the client's view, in plain Python.

A scan reads several sorted sources at once: the memtable, the sealed memtables, every L0 file (their key ranges
overlap) and one stream per level below (a level's files do not overlap). The engine merges them in C
(``MergingIterator`` in iterator.pyx) and collapses versions (``user_entries`` in db_iter.pyx). A ``ScanMerge``
passed as ``open_lsm(..., merging_iterator=plugin)`` (a plug point, minidb/plug_point.py) does both instead, for
every scan, through two functions:

* ``merge(children) -> iterable of entries``: ``children`` holds one list per source, newest source first, each
  list sorted; an entry is ``(key, seq, kind, value)`` with ``kind`` 1 for a put (``dbformat.VALUE``) and 0 for a
  tombstone (``dbformat.DELETION``). The answer: every entry of every child, ordered by key ascending, then
  sequence number descending (newest version first).
* ``visible(entries) -> iterable of (key, value)``: for each key its newest entry only, and nothing for a key whose
  newest entry is a tombstone.

The engine hands each source's entries of the scan's range (keys without the keyspace prefix), reading them through
the usual iterators, so every block read is counted as in any scan; the plugin sees plain values only (it may run
in a grading sandbox). The engine checks what ``visible`` yields: (bytes, bytes) pairs in strictly increasing key
order, inside the scan's range. This path builds Python objects per entry: it is for teaching, and the C path stays
the default.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..plug_point import PlugPoint
from .dbformat import parse_internal_key


class ScanMerge(PlugPoint, option="merging_iterator"):
    """The interface of a scan's merge (a plug point): ``merge`` and ``visible``, on the plain entries above."""

    def merge(self, children: list[list[tuple[bytes, int, int, bytes]]]) -> Iterable[tuple[bytes, int, int, bytes]]:
        """Every entry of every child (newest source first, each sorted), by key ascending, then sequence number
        descending."""
        raise NotImplementedError

    def visible(self, entries: Iterable[tuple[bytes, int, int, bytes]]) -> Iterable[tuple[bytes, bytes]]:
        """For each key of ``entries`` (in merge order) its newest entry's ``(key, value)``, none under a
        tombstone."""
        raise NotImplementedError


def source_entries(child, start: bytes, end: bytes, strip: int) -> list[tuple[bytes, int, int, bytes]]:
    """The entries of internal iterator ``child`` from internal key ``start`` up to user key ``end``, as the
    plugin's tuples, with the first ``strip`` bytes of each key (the keyspace prefix) removed."""
    out = []
    for ikey, value in child.entries(start, end):
        user_key, seq, kind = parse_internal_key(ikey)
        out.append((user_key[strip:], seq, kind, value))
    return out


def plugged_entries(plugin, children: list, start: bytes, end: bytes, strip: int):
    """Yield the scan's (key, value) pairs as ``plugin`` merges ``children`` (internal iterators, newest first)."""
    sources = [source_entries(child, start, end, strip) for child in children]
    # The range in the plugin's keys: start is an internal key; an end that is only the next keyspace's prefix
    # bounds nothing within this keyspace.
    lo, hi = start[strip:-8], (end[strip:] if len(end) > strip else None)
    previous = None
    for item in plugin.visible(plugin.merge(sources)):
        if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, bytes) for x in item)):
            raise ValueError(f"merging iterator {plugin!r}: visible() yielded {item!r}; it must yield "
                             f"(key, value) pairs of bytes")
        key = item[0]
        if previous is not None and key <= previous:
            raise ValueError(f"merging iterator {plugin!r}: visible() yielded key {key!r} after {previous!r}; keys "
                             f"must come once each, in increasing order")
        if key < lo or (hi is not None and key >= hi):
            raise ValueError(f"merging iterator {plugin!r}: visible() yielded key {key!r}, outside the scan's range "
                             f"[{lo!r}, {hi!r}): it yields only what the sources hold")
        previous = key
        yield item
