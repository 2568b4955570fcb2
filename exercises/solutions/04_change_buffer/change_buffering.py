"""Reference solution of exercise 04: the change buffer's two decisions, in plain Python.

Buffer a change only when applying it later cannot fail (no split, no empty leaf, room in the buffer) and needs no
look at the leaf now (not a unique index); merge by keeping each key's last change. Read it after
trying the exercise yourself.
"""

from __future__ import annotations


class ChangeBufferPolicy:
    """The B+tree's change buffer policy: the engine takes an instance as ``change_buffer_policy``."""

    def can_buffer(self, unique: bool, op: str, record_bytes: int, leaf: tuple[int, int] | None, entry_bytes: int,
                   buffer_free: int) -> bool:
        """InnoDB's rules: non-unique index, known leaf, room in the buffer, no split and no empty leaf at the merge."""
        if unique or leaf is None or entry_bytes > buffer_free:
            return False
        free_bytes, records = leaf
        if op == "put":
            return record_bytes <= free_bytes
        if op == "delete":
            return records >= 2
        raise ValueError(f"unknown change {op!r}: 'put' or 'delete'")

    def merge(self, records: list[tuple[bytes, bytes]], entries: list[tuple[str, bytes, bytes | None]]
              ) -> list[tuple[bytes, bytes]]:
        """The last change to each key wins: keep the records no change touched, add the keys whose last change is a
        put, and sort."""
        last: dict[bytes, bytes | None] = {}  # key -> its value after the changes (None: deleted)
        for op, key, value in entries:
            if op not in ("put", "delete"):
                raise ValueError(f"unknown change {op!r}: 'put' or 'delete'")
            last[key] = value if op == "put" else None
        untouched = [record for record in records if record[0] not in last]
        return sorted(untouched + [(key, value) for key, value in last.items() if value is not None])
