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
was synced survives. Under a server's group commit (``set_group_commit``) the server acknowledges a commit only
after the ``sync_log`` of its group.

**Keyspaces** are created with ``create_keyspace(name, unique=...)`` (a put to a keyspace that does not exist
creates it, unique); ``unique`` is the one keyspace option: ``False`` marks a non-unique secondary index, whose
puts an engine may apply blind (the B+tree's change buffer; the LSM's puts are always blind). ``is_unique(name)``
answers which it is.

**Counters.** ``work()`` returns the cumulative counters of ``WORK``, under the same names in every engine, cheaply
enough (no IO, no tree walk) to read around every step of a workload: the CPU model charges the work units
(``minidb.sim.cpu``), the driver computes cache hit rates. ``stats()`` is everything else an engine counts, in its
own words; IO itself is in ``device.stats``. ``last_write_memory()`` is the memory the last ``write`` held at its
peak (the batch and any copy the engine made of it), which a transaction reports as its peak memory.

**Bulk load.** ``bulk_load(keyspace, pairs)`` fills a keyspace with an index being built (``CREATE INDEX``,
minidb/index_build.py), sorted by key. Its default here writes the sorted entries in write batches of
``BULK_LOAD_BATCH``, so that a B+tree's pages split at the right edge and fill to the fill factor, as InnoDB's sorted
index build fills them; an engine with a cheaper path overrides it (the LSM writes SST files and ingests them, as
MyRocks' bulk load does).

**Transactions.** ``begin(**options)`` starts one of the kind the engine keeps its changes in: buffered in a batch
until commit (the default, MyRocks's way), or made in place with undo (the B+tree's, InnoDB's way); both honour the
same interface and knobs (``minidb.transaction``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Iterable, Iterator

from .transaction import Transaction  # begin()'s default: a buffered transaction

# The counters of Engine.work(), in every engine: name -> what is counted (the first eight are minidb.sim.cpu
# units).
WORK = {
    "lz4_compress_bytes": "bytes compressed with LZ4 (uncompressed size)",
    "lz4_decompress_bytes": "bytes decompressed from LZ4 (uncompressed size)",
    "zstd_compress_bytes": "bytes compressed with ZSTD (uncompressed size)",
    "zstd_decompress_bytes": "bytes decompressed from ZSTD (uncompressed size)",
    "zlib_compress_bytes": "bytes compressed with zlib (uncompressed size; compressed B+tree pages)",
    "zlib_decompress_bytes": "bytes decompressed from zlib (uncompressed size)",
    "key_compares": "key comparisons in searches, inserts and merges",
    "page_visits": "B+tree pages or LSM blocks looked up in the cache on the way to a key",
    "flush_entries": "entries an LSM flush took from its memtables (0 in an engine without flushes)",
    "compaction_entries": "entries an LSM compaction took from its input SSTs (0 in an engine without compactions)",
    "cache_hits": "lookups the buffer pool or block cache answered",
    "cache_misses": "lookups that had to read the device",
}

# The write batch is in Cython (write_batch.pyx): engines' loads build one per transaction, a put per index entry.
from .write_batch import BATCH_OP_OVERHEAD, BatchTooLarge, WriteBatch, check_key  # noqa: F401 (re-exported)

BULK_LOAD_BATCH = 1000  # entries per write batch of the default bulk_load


def sorted_entries(keyspace: str, pairs: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``pairs`` (key, value) sorted by key, as bytes; ValueError naming ``keyspace`` if a key repeats."""
    rows = sorted((bytes(k), bytes(v)) for k, v in pairs)
    for (a, _), (b, _) in zip(rows, rows[1:]):
        if a == b:
            raise ValueError(f"bulk load into keyspace {keyspace!r}: key {a.hex()} appears twice")
    return rows


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

    def bulk_load(self, keyspace: str, pairs: Iterable[tuple[bytes, bytes]], *, unique: bool = False) -> int:
        """Make ``pairs`` the content of the new ``keyspace`` (or of one a failed load left part-filled), written in
        key order; returns the batches (or files) written; ValueError if a key repeats."""
        rows = sorted_entries(keyspace, pairs)
        self.create_keyspace(keyspace, unique=unique)
        stale = [k for k, _ in self.scan(keyspace)]  # left by a load that failed part way
        for start in range(0, len(stale), BULK_LOAD_BATCH):
            batch = WriteBatch()
            for k in stale[start:start + BULK_LOAD_BATCH]:
                batch.delete(keyspace, k)
            self.write(batch)
        for start in range(0, len(rows), BULK_LOAD_BATCH):
            batch = WriteBatch()
            for k, v in rows[start:start + BULK_LOAD_BATCH]:
                batch.put(keyspace, k, v)
            self.write(batch)
        return -(-len(rows) // BULK_LOAD_BATCH)

    def begin(self, **options):
        """A new transaction on this engine, of the kind the engine holds changes in (``minidb.transaction``);
        ``options`` are ``Transaction``'s knobs. By default a buffered ``Transaction``: one batch at commit."""
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

    def __enter__(self):
        """The engine itself, for a ``with`` block that closes it."""
        return self

    def __exit__(self, *exc) -> None:
        """Close the engine when the ``with`` block ends, normally or with an error."""
        self.close()

    def set_group_commit(self, on: bool) -> None:
        """Let a server's group commit make commits durable, ``sync_log`` once per group, where the engine's sync
        policy syncs at every commit (MySQL 5.7's binlog flush stage; ``minidb.sim.server``); ``on`` False takes the
        syncs back. An engine without a log ignores it."""

    def sync_log(self) -> None:
        """Write and sync the log up to the last write where group commit holds the commits' syncs back (a group
        commit's flush stage); nothing to do otherwise (a log synced at each commit, or left to the OS)."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the engine; the device then holds a database that reopens without recovery."""

    @abstractmethod
    def stats(self) -> dict:
        """Engine counters (cache hits, pages or blocks read, ...) as a dict; IO itself is in ``device.stats``."""

    @abstractmethod
    def work(self) -> dict[str, int]:
        """The cumulative counters of ``WORK``, every one of them, cheaply (no IO)."""

    def serial_work(self) -> dict[str, int]:
        """The cumulative part of ``work()``'s CPU units (and the log bytes it checksums and copies) that the real
        engine does one writer at a time (``minidb.sim.server``); none for an engine without a shared write path."""
        return {}

    @abstractmethod
    def last_write_memory(self) -> int:
        """Bytes the last ``write`` held at its peak (0 before the first)."""

    @property
    def stopped(self) -> bool:
        """True while a failure it cannot go on from keeps the engine refusing every call (until ``resume()`` or
        a reopen, as the engine's docstring says); an engine that never stops says False."""
        return False

    @property
    def background_error(self) -> str | None:
        """Why a failure in background work (a flush, a compaction, a WAL write) keeps the engine refusing writes,
        reads still served, until ``resume()``; None while it takes writes (always, for an engine without one)."""
        return None

    def resume(self) -> None:
        """Leave the ``stopped`` or ``background_error`` state once its cause is gone (space freed); the failure's
        error if it persists, EngineStopped if only a reopen recovers this engine; a no-op while it runs."""

    @abstractmethod
    def keyspaces(self) -> list[str]:
        """Names of the keyspaces that exist, sorted."""

    @abstractmethod
    def create_keyspace(self, name: str, *, unique: bool = True, column_family: str | None = None) -> None:
        """Create keyspace ``name``; no-op if it exists with the same ``unique``, ValueError if with another.

        ``column_family`` (an index's ``COMMENT 'cfname=...'``) places it in that family of an engine that has
        them; an engine without column families ignores it. Callers pass it only when an index names one."""

    @abstractmethod
    def is_unique(self, name: str) -> bool:
        """The ``unique`` flag keyspace ``name`` was created with; ValueError naming the keyspaces if unknown."""
