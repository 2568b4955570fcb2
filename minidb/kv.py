"""The key-value interface both engines implement (the *engine contract*), and the write batch they share.

This module is the one place the contract is written down; ``tests/kv/test_contract.py`` checks it against the
B+tree, the LSM and the test double alike. Whatever sits above an engine (tables, transactions, workloads, the
book) uses only what ``Engine`` declares here.

An engine stores several *keyspaces*, one per index of a table (``"primary"``, ``"idx_price"``, ...). Keys and
values are ``bytes``; keys sort as unsigned bytes (``memcmp`` order), which the table layer's key encoding makes
match the order of the columns.

Writes are either single (``put``, ``delete``) or grouped in a ``WriteBatch`` applied atomically by ``write``:
after a crash either all of a batch's changes are there or none is. A write is *acknowledged* when the call
returns; whether an acknowledged write survives a crash depends on the engine's sync policy, and every write that
was synced survives.

**Keyspaces** are created with ``create_keyspace(name, unique=...)`` (a put to a keyspace that does not exist
creates it, unique); ``unique`` is the one keyspace option: ``False`` marks a non-unique secondary index, whose
puts an engine may apply blind (the B+tree's change buffer; the LSM's puts are always blind). ``is_unique(name)``
answers which it is.

**Counters.** ``work()`` returns the cumulative counters of ``WORK``, under the same names in every engine, cheaply
enough (no IO, no tree walk) to read around every step of a workload: the CPU model charges the work units
(``minidb.sim.cpu``), the driver computes cache hit rates. ``stats()`` is everything else an engine counts, in its
own words; IO itself is in ``device.stats``. ``last_write_memory()`` is the memory the last ``write`` held at its
peak (the batch and any copy the engine made of it), which a transaction reports as its peak memory.

**Transactions.** ``begin(**options)`` starts one of the kind the engine keeps its changes in: buffered in a batch
until commit (the default, MyRocks's way), or made in place with undo (the B+tree's, InnoDB's way); both honour the
same interface and knobs (``minidb.transaction``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Iterator

# The counters of Engine.work(), in every engine: name -> what is counted (the first six are minidb.sim.cpu units).
WORK = {
    "lz4_compress_bytes": "bytes compressed with LZ4 (uncompressed size)",
    "lz4_decompress_bytes": "bytes decompressed from LZ4 (uncompressed size)",
    "zstd_compress_bytes": "bytes compressed with ZSTD (uncompressed size)",
    "zstd_decompress_bytes": "bytes decompressed from ZSTD (uncompressed size)",
    "key_compares": "key comparisons in searches, inserts and merges",
    "page_visits": "B+tree pages or LSM blocks looked up in the cache on the way to a key",
    "cache_hits": "lookups the buffer pool or block cache answered",
    "cache_misses": "lookups that had to read the device",
}

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

    def begin(self, **options):
        """A new transaction on this engine, of the kind the engine holds changes in (``minidb.transaction``);
        ``options`` are ``Transaction``'s knobs. By default a buffered ``Transaction``: one batch at commit."""
        from .transaction import Transaction  # transaction.py builds on this module

        return Transaction(self, **options)

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
    def work(self) -> dict[str, int]:
        """The cumulative counters of ``WORK``, every one of them, cheaply (no IO)."""

    @abstractmethod
    def last_write_memory(self) -> int:
        """Bytes the last ``write`` held at its peak (0 before the first)."""

    @property
    def stopped(self) -> bool:
        """True while a failure it cannot go on from keeps the engine refusing every call (until ``resume()`` or
        a reopen, as the engine's docstring says); an engine that never stops says False."""
        return False

    @abstractmethod
    def keyspaces(self) -> list[str]:
        """Names of the keyspaces that exist, sorted."""

    @abstractmethod
    def create_keyspace(self, name: str, *, unique: bool = True) -> None:
        """Create keyspace ``name``; no-op if it exists with the same ``unique``, ValueError if with another."""

    @abstractmethod
    def is_unique(self, name: str) -> bool:
        """The ``unique`` flag keyspace ``name`` was created with; ValueError naming the keyspaces if unknown."""
