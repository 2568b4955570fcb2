"""Exercise 02: how a full B+tree leaf splits. Fill in every NotImplementedError.

When a record does not fit in its leaf, the B+tree engine splits the leaf in two: the first records stay in the
page, the others move to a new page linked after it, and a *separator* key goes up to the parent so that searches
find the right page. Two decisions are yours, and the engine asks your ``SplitPolicy`` for both:

* ``choose_split``: how many records stay on the left. It decides how full the pages of the tree end up, hence how
  many pages (and page reads and writes) the table needs.
* ``separator``: which key the parent stores between the two pages. A shorter key leaves room for more children per
  internal page, so the tree is wider and lower.

The notebook ``leaf_split.md`` walks you through it; ``pytest exercises/02_btree_split`` grades your work, first
on its own, then inside the engine: ``minidb.btree.open_btree(device, split_policy=SplitPolicy())``.
"""

from __future__ import annotations


class SplitPolicy:
    """The engine's split plug point: ``choose_split`` and ``separator``."""

    def choose_split(self, sizes: list[int], insert_pos: int, capacity: int, fill_factor: float,
                     ascending: bool) -> int:
        """How many records stay in the left page: an int k with 1 <= k <= len(sizes) - 1.

        ``sizes``: the bytes each record of the overfull leaf takes (record and slot), in key order, the new record
        included, at index ``insert_pos``. ``capacity``: the bytes a page holds for records and slots. Both halves
        must fit: ``sum(sizes[:k]) <= capacity`` and ``sum(sizes[k:]) <= capacity``.

        Among the k that fit, choose the one whose left bytes ``sum(sizes[:k])`` are closest to a target:

        * ``ascending`` and the new record is the last one (``insert_pos == len(sizes) - 1``): the keys arrive in
          order and later inserts go to the right page, so the left page keeps ``fill_factor * capacity`` bytes
          (InnoDB splits at the insert point of a sequential load);
        * otherwise: half of the bytes, ``sum(sizes) / 2``, so that both pages have room for the inserts to come.

        Raise ValueError if no k fits (the engine never asks that).
        """
        raise NotImplementedError("choose_split: see the notebook, section 'Where to split'")

    def separator(self, left_last: bytes, right_first: bytes) -> bytes:
        """A key s with ``left_last < s <= right_first``, as short as possible, for the parent page.

        The shortest such key is the shortest prefix of ``right_first`` that is greater than ``left_last``.
        Keys compare as Python compares bytes (byte by byte, a prefix before any longer key), as the engine does.
        Raise ValueError unless ``left_last < right_first``.
        """
        raise NotImplementedError("separator: see the notebook, section 'The separator'")
