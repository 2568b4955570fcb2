"""Exercise 04: the change buffer of a B+tree. Fill in every NotImplementedError.

Inserting a row into a table with secondary indexes inserts an entry into each index, and an index entry goes into
a leaf of that index's B+tree: if the leaf is not in the buffer pool, it must be read first, one random read per
index per row. InnoDB's change buffer avoids the read: it records the change and applies it later, when the leaf is
read anyway. Two decisions are yours, the two methods of your ``ChangeBufferPolicy``, and the B+tree engine asks it
for both:

* ``can_buffer``: may this change be recorded instead of reading its leaf?
* ``merge``: when the leaf is finally read, what are its records once the recorded changes are applied?

A change is ``("put", key, value)`` or ``("delete", key, None)``; a leaf's records are ``(key, value)`` pairs in key
order (keys compare as Python compares bytes). The notebook ``change_buffering.md`` walks you through it;
``pytest exercises/04_change_buffer`` grades your work, on its own, then inside the engine:
``minidb.btree.open_btree(device, change_buffer_policy=ChangeBufferPolicy())`` (the engine's plug point, whose
contract the docstrings below state: minidb/btree/change_buffer_policy.py holds the engine's own policy, this
exercise's answer, and your copy of the course has it compiled only).
"""

from __future__ import annotations


class ChangeBufferPolicy:
    """The B+tree's change buffer policy: the engine takes an instance as ``change_buffer_policy``."""

    def can_buffer(self, unique: bool, op: str, record_bytes: int, leaf: tuple[int, int] | None, entry_bytes: int,
                   buffer_free: int) -> bool:
        """Whether a change to a leaf that is not in the buffer pool may go to the change buffer. It may unless:

        * the index is ``unique``: only reading the leaf tells whether the key is already there;
        * ``leaf`` is None: the engine does not know the leaf's free space and record count (it learns them when the
          leaf leaves the pool), otherwise ``leaf`` is ``(free_bytes, records)``, the changes buffered since counted;
        * the change takes more than the ``buffer_free`` bytes the buffer has left (it takes ``entry_bytes``);
        * ``op`` is "put" and its record (``record_bytes``) may not fit in the leaf's free bytes: the merge would have
          to split the leaf;
        * ``op`` is "delete" and the leaf may have only one record left: the merge could empty it.
        """
        raise NotImplementedError("can_buffer: see the notebook, section 'When a change may wait'")

    def merge(self, records: list[tuple[bytes, bytes]], entries: list[tuple[str, bytes, bytes | None]]
              ) -> list[tuple[bytes, bytes]]:
        """The leaf's records after the buffered ``entries`` are applied, oldest first: a new list of ``(key, value)``
        tuples in ascending key order. A put inserts its key or replaces its value; a delete removes its key if it is
        there. Do not change the lists you are given.
        """
        raise NotImplementedError("merge: see the notebook, section 'Merging on read'")
