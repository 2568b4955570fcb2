"""Reference solution of exercise 02: the B+tree engine's leaf split policy.

One rule serves both kinds of split: among the split points that leave both pages within capacity, take the one
whose left page is closest to a target. The target is what the insert pattern asks for: ``fill_factor`` of a page
for an ascending load (the left page will never see another insert, so fill it), half the bytes otherwise (both
pages will receive inserts, so leave room in both). Read it after trying the exercise yourself.
"""

from __future__ import annotations

from itertools import accumulate


class SplitPolicy:
    """InnoDB's split rule with LevelDB's separator shortening."""

    def choose_split(self, sizes: list[int], insert_pos: int, capacity: int, fill_factor: float,
                     ascending: bool) -> int:
        """How many records stay in the left page (see the stub for the full contract)."""
        if len(sizes) < 2:
            raise ValueError(f"a split needs at least 2 records, got {len(sizes)}")
        if ascending and insert_pos == len(sizes) - 1:
            # The next inserts go to the right page: the left one is done, so fill it as the load asked.
            target = fill_factor * capacity
        else:
            # Random inserts will land on both sides: give each half the same room to grow.
            target = sum(sizes) / 2
        return closest_split(sizes, target, capacity)

    def separator(self, left_last: bytes, right_first: bytes) -> bytes:
        """The shortest prefix of ``right_first`` greater than ``left_last``."""
        if not left_last < right_first:
            raise ValueError(f"separator needs left_last < right_first, got {left_last!r} and {right_first!r}")
        i = 0
        while i < len(left_last) and left_last[i] == right_first[i]:
            i += 1
        # right_first[i] > left_last[i] (or left_last ended at i): one byte past the common prefix decides.
        return right_first[: i + 1]


def closest_split(sizes: list[int], target: float, capacity: int) -> int:
    """The k in 1..n-1 whose left bytes ``sum(sizes[:k])`` are closest to ``target`` with both halves fitting."""
    total = sum(sizes)
    fitting = [(abs(left - target), k) for k, left in enumerate(accumulate(sizes[:-1]), start=1)
               if left <= capacity and total - left <= capacity]
    if not fitting:
        raise ValueError(f"{len(sizes)} records of {total} bytes cannot be split into two pages of {capacity} bytes")
    return min(fitting)[1]
