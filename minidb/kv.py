"""The key-value interface both engines implement, and the write batch they share.

An engine stores several *keyspaces*, one per index of a table (``"primary"``, ``"idx_price"``, ...). Keys and
values are ``bytes``; keys sort as unsigned bytes (``memcmp`` order), which the table layer's key encoding makes
match the order of the columns. A keyspace exists from its first write.

Writes are either single (``put``, ``delete``) or grouped in a ``WriteBatch`` applied atomically by ``write``:
after a crash either all of a batch's changes are there or none is. A write is *acknowledged* when the call
returns; whether an acknowledged write survives a crash depends on the engine's sync policy, and every write that
was synced survives.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Iterator

# The write batch is in Cython (write_batch.pyx): engines' loads build one per transaction, a put per index entry.
from .write_batch import BATCH_OP_OVERHEAD, BatchTooLarge, WriteBatch, check_key  # noqa: F401 (re-exported)


class Engine(ABC):
    """What the table layer, the workloads and the book use of an engine. Each method's contract is one line."""

    def put(self, keyspace: str, key: bytes, value: bytes) -> None:
        """Set ``key`` to ``value`` in ``keyspace`` (by default, a batch of one)."""
        batch = WriteBatch()
        batch.put(keyspace, key, value)
        self.write(batch)

    def delete(self, keyspace: str, key: bytes) -> None:
        """Remove ``key`` from ``keyspace``; removing an absent key is not an error (by default, a batch of one)."""
        batch = WriteBatch()
        batch.delete(keyspace, key)
        self.write(batch)

    @abstractmethod
    def get(self, keyspace: str, key: bytes) -> bytes | None:
        """The value of ``key`` in ``keyspace``, or None."""

    @abstractmethod
    def scan(self, keyspace: str, lo: bytes | None = None, hi: bytes | None = None) -> Iterator[tuple[bytes, bytes]]:
        """(key, value) pairs of ``keyspace`` with ``lo <= key < hi`` in key order (None: unbounded)."""

    @abstractmethod
    def write(self, batch: WriteBatch) -> None:
        """Apply every change of ``batch`` atomically, in order."""

    @abstractmethod
    def flush(self) -> None:
        """Write buffered changes to their final files (memtables to SSTs, dirty pages to the tablespace)."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the engine; the device then holds a database that reopens without recovery."""

    @abstractmethod
    def stats(self) -> dict:
        """Engine counters (cache hits, pages or blocks read, ...) as a dict; IO itself is in ``device.stats``."""

    @abstractmethod
    def keyspaces(self) -> list[str]:
        """Names of the keyspaces that exist, sorted."""
