"""Exercise 09, reference solution: a heap merge of sorted sources, then newest version wins."""

from __future__ import annotations

import heapq
from typing import Iterable, Iterator

PUT = 1  # kind of an entry that sets a value (the engine's dbformat.VALUE)
DELETE = 0  # kind of a tombstone (dbformat.DELETION)

Entry = tuple[bytes, int, int, bytes]  # (key, seq, kind, value)


class ScanMerge:
    """A scan's merge: the LSM engine takes an instance as ``merging_iterator``."""

    def merge(self, children: list[list[Entry]]) -> Iterator[Entry]:
        """A k-way merge on (key, -seq, child): the heap holds each child's next entry."""
        streams = [iter(child) for child in children]
        heap = []
        for i, stream in enumerate(streams):
            entry = next(stream, None)
            if entry is not None:
                heap.append((entry[0], -entry[1], i, entry))
        heapq.heapify(heap)
        while heap:
            _, _, i, entry = heap[0]
            following = next(streams[i], None)
            if following is None:
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, (following[0], -following[1], i, following))
            yield entry

    def visible(self, entries: Iterable[Entry]) -> Iterator[tuple[bytes, bytes]]:
        """The first entry of each key decides; tombstones hide the key."""
        previous = None
        for key, _, kind, value in entries:
            if key == previous:
                continue  # an older version of a key already decided
            previous = key
            if kind == PUT:
                yield key, value
