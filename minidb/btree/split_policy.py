"""How a full leaf splits: how many records stay left, and which key goes up to the parent as the separator.

This is the plug point of the split exercise (minidb/plug_point.py): pass an instance of any class with the two
functions of ``SplitPolicy`` as ``open_btree(..., split_policy=...)``. The engine checks every answer
(``check_split``, ``check_separator``) and raises ValueError for an impossible one, so a wrong policy fails loudly
instead of corrupting the tree.

The engine's own policy, ``DefaultSplitPolicy``, is InnoDB's:

* **Ascending inserts** (the new record goes to the end of the page and the previous insert into that page did
  too): split *at the insert point*. Every old record stays in the left page, which was filled up to the fill
  factor (15/16 by default, see ``page_put``), and the new record starts the right page. A PK-order load therefore
  leaves its pages at the fill factor instead of half full.
* **Anything else**: split in the middle (by bytes), so each half has room for the random inserts to come. Random
  inserts then leave leaves about ln 2 ~ 69% full on average (Yao, "On random 2-3 trees", 1978).

Separators are shortened (suffix truncation, like LevelDB's ``FindShortestSeparator``): the parent needs only
*some* key ``s`` with ``left_last < s <= right_first``, and a short one leaves room for more children per page.
Only leaves use the plug-in; internal pages always split with the default rule.
"""

from __future__ import annotations

from ..plug_point import PlugPoint
from .split_plan import middle_split  # the byte-balanced split, in C: the engine runs it at every split


class SplitPolicy(PlugPoint, option="split_policy"):
    """The interface of a split policy (a plug point): ``choose_split`` and ``separator``."""

    def choose_split(self, sizes: list[int], insert_pos: int, capacity: int, fill_factor: float,
                     ascending: bool) -> int:
        """How many records stay in the left page.

        ``sizes``: bytes each record of the overfull page takes (record plus its slot), in key order, the new
        record included at ``insert_pos``. ``capacity``: bytes a page holds for records and slots. ``ascending``:
        the insert pattern is sequential (see the module docstring). The answer ``k`` must leave both
        ``sizes[:k]`` and ``sizes[k:]`` non-empty and within ``capacity``.
        """
        raise NotImplementedError

    def separator(self, left_last: bytes, right_first: bytes) -> bytes:
        """A key ``s`` with ``left_last < s <= right_first`` for the parent page, ideally short."""
        raise NotImplementedError


class DefaultSplitPolicy(SplitPolicy):
    """The engine's policy: split at the insert point for ascending inserts, else in the middle by bytes."""

    def choose_split(self, sizes, insert_pos, capacity, fill_factor, ascending):
        n = len(sizes)
        if ascending and 1 <= insert_pos <= n - 1:
            # The page reached the fill limit: keep every old record left, start the right page with the new one.
            return insert_pos
        return middle_split(sizes, capacity)

    def separator(self, left_last, right_first):
        return shortest_separator(left_last, right_first)

    def __repr__(self) -> str:
        return "DefaultSplitPolicy()"


DEFAULT_POLICY = DefaultSplitPolicy()


def shortest_separator(left_last: bytes, right_first: bytes) -> bytes:
    """The shortest prefix of ``right_first`` that is greater than ``left_last`` (requires left_last < right_first).

    Either the keys first differ at byte i (then right_first[i] > left_last[i] and right_first[:i+1] is enough),
    or left_last is a prefix of right_first (then one more byte of right_first is enough).
    """
    n = min(len(left_last), len(right_first))
    i = 0
    while i < n and left_last[i] == right_first[i]:
        i += 1
    return right_first[:i + 1]


def check_split(policy, k, sizes: list[int], capacity: int) -> int:
    """``k`` if it is a possible split of ``sizes`` into two pages of ``capacity`` bytes, else ValueError."""
    n = len(sizes)
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= n - 1:
        raise ValueError(f"split policy {policy!r}: choose_split returned {k!r} for {n} records; it must be an "
                         f"int with 1 <= k <= {n - 1} (both pages keep at least one record)")
    left = sum(sizes[:k])
    right = sum(sizes[k:])
    if left > capacity or right > capacity:
        raise ValueError(f"split policy {policy!r}: choose_split returned {k} for {n} records, which leaves "
                         f"{left} bytes on the left and {right} on the right; a page holds {capacity}")
    return k


def check_separator(policy, sep, left_last: bytes, right_first: bytes, max_key: int) -> bytes:
    """``sep`` if ``left_last < sep <= right_first`` and it fits in an index page, else ValueError."""
    if not isinstance(sep, bytes):
        raise ValueError(f"split policy {policy!r}: separator returned {sep!r}; it must be bytes")
    if not left_last < sep <= right_first:
        raise ValueError(f"split policy {policy!r}: separator {sep!r} is not in ({left_last!r}, {right_first!r}]: "
                         f"it must be greater than the left page's last key and at most the right page's first")
    if len(sep) > max_key:
        raise ValueError(f"split policy {policy!r}: separator of {len(sep)} bytes is longer than the "
                         f"{max_key} bytes a key may have")
    return sep
