"""When a change may be buffered, and how buffered changes merge into their leaf: the change buffer's plug point.

Pass an instance of any class with the two functions of ``ChangeBufferPolicy`` as ``open_btree(...,
change_buffer_policy=...)`` (a plug point, minidb/plug_point.py); the engine's own is ``DefaultChangeBufferPolicy``.
Both speak plain values, so a student's policy can run in the grader's sandbox:

* ``can_buffer``: asked for every change whose leaf the tree's descent did not find in the pool (change_buffer.py
  says when that is). The engine checks a yes (``check_can_buffer``): a change it cannot safely buffer raises
  ValueError naming the policy, instead of overflowing or emptying a leaf later;
* ``merge``: asked when the leaf is read; the engine writes the difference between the records it gave and the
  records it got back into the page, through its logged mini-transaction (``check_merged`` checks the answer's
  shape first).

The engine's own policy is not asked through the plug point: change_buffer.py applies its rules (``bufferable``,
``last_changes``) directly, with the same answers, without handing over every record of the leaf.

This is exercise 04's seam (exercises/04_change_buffer).
"""

from __future__ import annotations

from ..plug_point import PlugPoint

PUT = "put"
DELETE = "delete"


class ChangeBufferPolicy(PlugPoint, option="change_buffer_policy"):
    """The interface of a change buffer policy (a plug point): ``can_buffer`` and ``merge``."""

    def can_buffer(self, unique: bool, op: str, record_bytes: int, leaf: tuple[int, int] | None,
                   entry_bytes: int, buffer_free: int) -> bool:
        """Whether a change (``op``: "put" or "delete") to a leaf not in the pool may be buffered.

        ``unique``: the index is unique; ``record_bytes``: what a put's record takes in the leaf (0 for a delete);
        ``leaf``: (free bytes, records) of the leaf as known since it left the pool with the changes buffered for
        it since, or None if unknown; ``entry_bytes``: what the change takes in the buffer; ``buffer_free``: bytes
        the buffer has left.
        """
        raise NotImplementedError

    def merge(self, records: list[tuple[bytes, bytes]],
              entries: list[tuple[str, bytes, bytes | None]]) -> list[tuple[bytes, bytes]]:
        """The leaf's records (key order) after applying ``entries`` ((op, key, value or None), oldest first)."""
        raise NotImplementedError


class DefaultChangeBufferPolicy(ChangeBufferPolicy):
    """InnoDB's rules: only non-unique indexes, only into a known leaf that surely keeps room and a record."""

    def can_buffer(self, unique, op, record_bytes, leaf, entry_bytes, buffer_free):
        return bufferable(unique, op, record_bytes, leaf, entry_bytes, buffer_free) is None

    def merge(self, records, entries):
        merged = dict(records)
        for key, value in last_changes(entries).items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return sorted(merged.items())

    def __repr__(self) -> str:
        return "DefaultChangeBufferPolicy()"


DEFAULT_POLICY = DefaultChangeBufferPolicy()


def last_changes(entries: list[tuple[str, bytes, bytes | None]]) -> dict[bytes, bytes | None]:
    """Each key's last change among ``entries`` (oldest first): its value after a put, None after a delete."""
    return {key: (value if op == PUT else None) for op, key, value in entries}


def bufferable(unique: bool, op: str, record_bytes: int, leaf, entry_bytes: int, buffer_free: int) -> str | None:
    """Why the change may not be buffered, or None if it may (the rules of ``DefaultChangeBufferPolicy``)."""
    if unique:
        return "the index is unique: the leaf must be read to look for a duplicate key"
    if leaf is None:
        return "the leaf's free space is unknown (it has not left the pool since the engine opened)"
    if entry_bytes > buffer_free:
        return f"the change buffer is full ({buffer_free} bytes left, the change takes {entry_bytes})"
    if op == PUT and record_bytes > leaf[0]:
        return f"the record ({record_bytes} bytes) may not fit in the leaf ({leaf[0]} bytes free): it would split"
    if op == DELETE and leaf[1] <= 1:
        return "the delete might empty the leaf, which must then be merged with a sibling"
    return None


def check_can_buffer(policy, answer, unique, op, record_bytes, leaf, entry_bytes, buffer_free) -> bool:
    """``answer`` as a bool if it is one the engine can act on, else ValueError naming ``policy``."""
    if not isinstance(answer, bool):
        raise ValueError(f"change_buffer_policy {policy!r}: can_buffer returned {answer!r}; it must be True or False")
    if answer:
        why = bufferable(unique, op, record_bytes, leaf, entry_bytes, buffer_free)
        if why is not None:
            raise ValueError(f"change_buffer_policy {policy!r}: can_buffer said yes to a {op} that cannot be "
                             f"buffered: {why}")
    return answer


def check_merged(policy, merged) -> list[tuple[bytes, bytes]]:
    """``merged`` if it is a list of (key, value) bytes pairs in strictly ascending key order, else ValueError."""
    if not isinstance(merged, list):
        raise ValueError(f"change_buffer_policy {policy!r}: merge returned {type(merged).__name__}; it must be a "
                         f"list of (key, value) pairs")
    previous = None
    for record in merged:
        if (not isinstance(record, tuple) or len(record) != 2 or not isinstance(record[0], bytes)
                or not isinstance(record[1], bytes)):
            raise ValueError(f"change_buffer_policy {policy!r}: merge returned {record!r} among the records; each "
                             f"must be a (key, value) tuple of bytes")
        if previous is not None and not previous < record[0]:
            raise ValueError(f"change_buffer_policy {policy!r}: merge returned key {record[0]!r} after "
                             f"{previous!r}; keys must be strictly ascending")
        previous = record[0]
    return merged
