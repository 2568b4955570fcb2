"""Transactions: changes buffered in one write batch until commit, with a memory limit and commit in the middle.

A ``Transaction`` collects changes in a ``minidb.kv.WriteBatch`` that a single ``engine.write`` applies at commit,
atomically, as MyRocks buffers a transaction's changes until commit (seed 000). Reads through the transaction see
its own uncommitted changes (RocksDB's WriteBatchWithIndex does the same). It works on any ``minidb.kv.Engine``.

Seed 000 on what a big transaction costs: MyRocks "buffers in memory all changes from a transaction until commit
and at commit time the changes are briefly double buffered when copied into the memtable", so a huge transaction
can exhaust memory. The knobs, all off by default:

* ``max_bytes``: a limit on the memory the batch holds; a change that would pass it raises ``BatchTooLarge``
  (``rocksdb_max_row_locks`` became such a memory limit in MyRocks);
* ``max_rows``: a limit on the changes the batch holds (MyRocks's ``rocksdb_max_row_locks`` as a count); a change
  past it raises ``BatchTooLarge`` too;
* ``commit_in_the_middle=N``: commit automatically every N changes, and whenever a change would pass
  ``max_bytes`` or ``max_rows``, as MyRocks's ``rocksdb_commit_in_the_middle`` does for bulk loads: memory stays
  bounded whatever the transaction's size, but the transaction is no longer atomic: the chunks committed are
  durable on their own, and a rollback undoes only the changes since the last one.

What it reports: ``nbytes``, the bytes buffered now; ``peak_bytes``, the most memory one of its commits held,
as the engine reports it (``engine.last_write_memory()``: for the LSM the batch plus its copy in the memtable,
about twice the batch); ``chunks``, the commits done; and, summed over every transaction sharing it, a
``CommitStats`` (the denominators of per-commit figures and of write amplification).

Used as a context manager a transaction commits when the block ends normally and rolls back when it raises.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .kv import BatchTooLarge, Engine, WriteBatch


@dataclass
class CommitStats:
    """What transactions wrote to the engine, summed: the denominators of per-commit figures and write-amp."""

    commits: int = 0  # engine.write calls (one per commit, more with commit-in-the-middle)
    operations: int = 0  # puts and deletes written
    logical_bytes: int = 0  # bytes of keys and values written: what the client asked the engine to store


class Transaction:
    """Changes to one engine, applied atomically by ``commit`` in one write batch; see the module docstring."""

    def __init__(self, engine: Engine, *, max_bytes: int | None = None, max_rows: int | None = None,
                 commit_in_the_middle: int | None = None, stats: CommitStats | None = None) -> None:
        for name, value in (("max_rows", max_rows), ("commit_in_the_middle", commit_in_the_middle)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"bad {name}={value!r}: an int >= 1 (changes) or None")
        self.engine = engine  # the engine the changes go to
        self.max_bytes = max_bytes  # most bytes the batch may hold, None for no limit
        self.max_rows = max_rows  # most changes the batch may hold, None for no limit
        self.commit_in_the_middle = commit_in_the_middle  # changes per automatic chunk commit, None for none
        self.batch = WriteBatch(max_bytes)  # changes not yet written to the engine (checks max_bytes)
        self.stats = stats if stats is not None else CommitStats()  # what this transaction wrote, summed
        self.peak_bytes = 0  # most memory one of its commits held, as the engine reports it
        self.chunks = 0  # engine writes done, automatic chunks included
        self.closed = False  # True after commit or rollback
        self._overlay: dict[str, dict[bytes, bytes | None]] = {}  # keyspace -> key -> staged value (None: deleted)

    @property
    def nbytes(self) -> int:
        """Bytes buffered now."""
        return self.batch.nbytes

    # -- reads ------------------------------------------------------------------------------------------------------
    def get(self, keyspace: str, key: bytes) -> bytes | None:
        """The value of ``key`` as this transaction sees it: its own change if it made one, else the engine's."""
        self._check_open("read")
        staged = self._overlay.get(keyspace)
        if staged is not None and key in staged:
            return staged[key]
        return self.engine.get(keyspace, key)

    def scan(self, keyspace: str, lo: bytes | None = None, hi: bytes | None = None) -> Iterator[tuple[bytes, bytes]]:
        """(key, value) pairs with ``lo <= key < hi`` in key order, as this transaction sees them."""
        self._check_open("scan")
        staged = self._overlay.get(keyspace)
        base = self.engine.scan(keyspace, lo, hi)
        if not staged:
            return iter(base)
        mine = sorted((k, v) for k, v in staged.items() if (lo is None or k >= lo) and (hi is None or k < hi))
        return _merge(iter(base), mine)

    # -- writes -----------------------------------------------------------------------------------------------------
    def put(self, keyspace: str, key: bytes, value: bytes) -> None:
        """Stage: set ``key`` to ``value`` in ``keyspace``."""
        self._stage(keyspace, key, value)

    def delete(self, keyspace: str, key: bytes) -> None:
        """Stage: remove ``key`` from ``keyspace`` (no error if it is absent)."""
        self._stage(keyspace, key, None)

    def _stage(self, keyspace: str, key: bytes, value: bytes | None) -> None:
        self._check_open("write")
        if self.commit_in_the_middle is not None and len(self.batch) >= self.commit_in_the_middle:
            self._write()
        try:
            self._add(keyspace, key, value)
        except BatchTooLarge:
            if self.commit_in_the_middle is None or not len(self.batch):
                raise
            self._write()
            self._add(keyspace, key, value)  # still too large on an empty batch: raises for the caller
        self._overlay.setdefault(keyspace, {})[bytes(key)] = value

    def _add(self, keyspace: str, key: bytes, value: bytes | None) -> None:
        if self.max_rows is not None and len(self.batch) >= self.max_rows:
            raise BatchTooLarge(f"transaction would hold {len(self.batch) + 1} changes, over its limit of "
                                f"{self.max_rows} (max_rows): commit it and start a new one")
        if value is None:
            self.batch.delete(keyspace, key)
        else:
            self.batch.put(keyspace, key, value)

    def _write(self) -> None:
        """Apply the batch to the engine and start an empty one."""
        if len(self.batch):
            logical = self.batch.logical_bytes()
            self.engine.write(self.batch)
            self.peak_bytes = max(self.peak_bytes, self.engine.last_write_memory())
            self.chunks += 1
            self.stats.commits += 1
            self.stats.operations += len(self.batch)
            self.stats.logical_bytes += logical
        self.batch = WriteBatch(self.max_bytes)
        self._overlay.clear()

    # -- ending -----------------------------------------------------------------------------------------------------
    def commit(self) -> None:
        """Apply every staged change atomically (one ``engine.write``) and end the transaction."""
        self._check_open("commit")
        self._write()
        self.closed = True

    def rollback(self) -> None:
        """Drop the changes staged since the last commit (chunks already committed stay) and end the transaction."""
        self._check_open("roll back")
        self.batch.clear()
        self._overlay.clear()
        self.closed = True

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise ValueError(f"cannot {what}: the transaction has already committed or rolled back")

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.closed:
            return
        if exc_type is None:
            self.commit()
        else:
            self.rollback()


def _merge(base: Iterator[tuple[bytes, bytes]], mine: list[tuple[bytes, bytes | None]]):
    """Merge the engine's sorted pairs with a transaction's sorted staged changes (which win; None hides a key)."""
    i, n = 0, len(mine)
    for key, value in base:
        while i < n and mine[i][0] < key:
            if mine[i][1] is not None:
                yield mine[i]
            i += 1
        if i < n and mine[i][0] == key:
            if mine[i][1] is not None:
                yield mine[i]
            i += 1
            continue
        yield key, value
    for k, v in mine[i:]:
        if v is not None:
            yield k, v
