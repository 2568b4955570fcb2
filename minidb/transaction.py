"""Transactions: many changes committed as one, with a row limit, a memory limit and commit in the middle.

There are two ways to hold a transaction's changes until commit, and an engine says which is its own
(``engine.begin()``, the ``minidb.kv.Engine`` contract):

* **buffered** (``Transaction``, any engine's default; MyRocks's way): the changes are collected in a
  ``minidb.kv.WriteBatch`` that a single ``engine.write`` applies at commit, atomically. Reads through the
  transaction see its own uncommitted changes (RocksDB's WriteBatchWithIndex does the same). Its memory grows with
  its size: seed 000 says MyRocks "buffers in memory all changes from a transaction until commit and at commit time
  the changes are briefly double buffered when copied into the memtable", so a huge transaction can exhaust memory;
* **in place** (``minidb.btree.in_place.InPlaceTransaction``, the B+tree's; InnoDB's way): each change goes to the
  pages as it is made, with undo to take it back, so the transaction holds one change at a time, whatever its size.

The knobs, the same for both and all off by default:

* ``max_rows``: a limit on the changes since the last commit, MyRocks's ``rocksdb_max_row_locks`` (a count of
  locked rows, 1 billion by default in seed 000); a change past it raises ``BatchTooLarge`` naming ``max_rows``;
* ``max_bytes``: a limit on the memory the transaction holds, the memory limit seed 000 says
  ``rocksdb_max_row_locks`` was to become; a change that would pass it raises ``BatchTooLarge`` naming
  ``max_bytes``, and the transaction stays as it was (commit it, or roll it back);
* ``commit_in_the_middle=N``: commit automatically every N changes, and whenever a change would pass
  ``max_bytes`` or ``max_rows``, as MyRocks's ``rocksdb_commit_in_the_middle`` does for bulk loads: memory stays
  bounded whatever the transaction's size, but the transaction is no longer atomic: the chunks committed are
  durable on their own, a crash keeps them, and a rollback undoes only the changes since the last one.

What it reports: ``nbytes``, the bytes it holds now; ``peak_bytes``, the most memory it held at once, as the engine
reports it (``engine.last_write_memory()``: for the LSM the batch plus its copy in the memtable, about twice the
batch); ``chunks``, the commits done; and, summed over every transaction sharing it, a ``CommitStats`` (the
denominators of per-commit figures and of write amplification).

Used as a context manager a transaction commits when the block ends normally and rolls back when it raises.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .write_batch import BATCH_OP_OVERHEAD, BatchTooLarge, WriteBatch


@dataclass
class CommitStats:
    """What transactions wrote to the engine, summed: the denominators of per-commit figures and write-amp."""

    commits: int = 0  # engine.write calls (one per commit, more with commit-in-the-middle)
    writing_commits: int = 0  # those that carried at least one change (a read-only one logs nothing to a binlog)
    operations: int = 0  # puts and deletes written
    logical_bytes: int = 0  # bytes of keys and values written: what the client asked the engine to store


class BaseTransaction:
    """What every kind of transaction shares: the knobs and their errors, commit in the middle, the counters, the
    context manager. A subclass says how a change is made (``_change``), how the open chunk is committed
    (``_commit_chunk``) and dropped (``_drop``), and how reads see the transaction's own changes."""

    def __init__(self, engine, *, max_bytes: int | None = None, max_rows: int | None = None,
                 commit_in_the_middle: int | None = None, stats: CommitStats | None = None) -> None:
        for name, value in (("max_bytes", max_bytes), ("max_rows", max_rows),
                            ("commit_in_the_middle", commit_in_the_middle)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                unit = "bytes" if name == "max_bytes" else "changes"
                raise ValueError(f"bad {name}={value!r}: an int >= 1 ({unit}) or None")
        self.engine = engine  # the engine the changes go to (a minidb.kv.Engine)
        self.max_bytes = max_bytes  # most bytes the transaction may hold in memory, None for no limit
        self.max_rows = max_rows  # most changes between two commits, None for no limit
        self.commit_in_the_middle = commit_in_the_middle  # changes per automatic chunk commit, None for none
        self.stats = stats if stats is not None else CommitStats()  # what this transaction wrote, summed
        self.peak_bytes = 0  # most memory the transaction held at once, as the engine reports it
        self.chunks = 0  # commits done, automatic chunks included
        self.rows = 0  # changes made since the last commit (the open chunk)
        self.closed = False  # True after commit or rollback

    # -- writes -----------------------------------------------------------------------------------------------------
    def put(self, keyspace: str, key: bytes, value: bytes) -> None:
        """Set ``key`` to ``value`` in ``keyspace``, as part of this transaction."""
        self._stage(keyspace, key, value)

    def delete(self, keyspace: str, key: bytes) -> None:
        """Remove ``key`` from ``keyspace`` (no error if it is absent), as part of this transaction."""
        self._stage(keyspace, key, None)

    def _stage(self, keyspace: str, key: bytes, value: bytes | None) -> None:
        """One change, after the commits in the middle and the limits have had their say."""
        self._check_open("write")
        middle = self.commit_in_the_middle
        if middle is not None and self.rows >= middle:
            self._commit_chunk()
        if self.max_rows is not None and self.rows >= self.max_rows:
            if middle is None:
                raise BatchTooLarge(
                    f"transaction would hold {self.rows + 1} changes, over its limit of {self.max_rows} "
                    f"(max_rows, our rocksdb_max_row_locks): commit it and start a new one, raise max_rows, or "
                    f"set commit_in_the_middle=N to commit every N changes")
            self._commit_chunk()
        try:
            self._change(keyspace, key, value)
        except BatchTooLarge:
            if middle is None or not self.rows:
                raise
            self._commit_chunk()
            self._change(keyspace, key, value)  # still too large alone: raises for the caller
        self.rows += 1

    def _too_large(self, holding: int) -> BatchTooLarge:
        """The memory limit's error: the transaction would hold ``holding`` bytes, over ``max_bytes``."""
        return BatchTooLarge(
            f"transaction would hold {holding} bytes, over its limit of {self.max_bytes} bytes (max_bytes, the "
            f"memory limit rocksdb_max_row_locks was to become; {self.rows} changes so far): commit it and start a "
            f"new one, raise max_bytes, or set commit_in_the_middle=N to commit every N changes")

    def _counted(self, operations: int, logical_bytes: int) -> None:
        """Count one commit of ``operations`` changes carrying ``logical_bytes`` of keys and values."""
        self.chunks += 1
        self.rows = 0
        self.stats.commits += 1
        self.stats.writing_commits += operations > 0
        self.stats.operations += operations
        self.stats.logical_bytes += logical_bytes

    # -- ending -----------------------------------------------------------------------------------------------------
    def commit(self) -> None:
        """Make every change since the last commit durable and visible as one, and end the transaction."""
        self._check_open("commit")
        self._commit_chunk()
        self.closed = True

    def rollback(self) -> None:
        """Take back the changes since the last commit (chunks already committed stay) and end the transaction."""
        self._check_open("roll back")
        self._drop()
        self.rows = 0
        self.closed = True

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise ValueError(f"cannot {what}: the transaction has already committed or rolled back")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.closed:
            return
        if exc_type is None:
            self.commit()
        else:
            self.rollback()

    # -- what a kind of transaction defines -------------------------------------------------------------------------
    @property
    def nbytes(self) -> int:
        """Bytes the transaction holds in memory now."""
        raise NotImplementedError

    def get(self, keyspace: str, key: bytes) -> bytes | None:
        """The value of ``key`` as this transaction sees it (its own changes included)."""
        raise NotImplementedError

    def scan(self, keyspace: str, lo: bytes | None = None, hi: bytes | None = None) -> Iterator[tuple[bytes, bytes]]:
        """(key, value) pairs with ``lo <= key < hi`` in key order, as this transaction sees them."""
        raise NotImplementedError

    def _change(self, keyspace: str, key: bytes, value: bytes | None) -> None:
        """Make one change (None: a delete); BatchTooLarge, changing nothing, if it would pass ``max_bytes``."""
        raise NotImplementedError

    def _commit_chunk(self) -> None:
        """Commit the changes since the last commit (nothing if there are none); the transaction stays open."""
        raise NotImplementedError

    def _drop(self) -> None:
        """Take back the changes since the last commit."""
        raise NotImplementedError


class Transaction(BaseTransaction):
    """Changes to one engine, buffered in a write batch and applied atomically by ``commit``; see the module
    docstring."""

    def __init__(self, engine, **options) -> None:
        super().__init__(engine, **options)
        self.batch = WriteBatch(self.max_bytes)  # changes not yet written to the engine (checks max_bytes)
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

    # -- changes ----------------------------------------------------------------------------------------------------
    def _change(self, keyspace: str, key: bytes, value: bytes | None) -> None:
        try:
            if value is None:
                self.batch.delete(keyspace, key)
            else:
                self.batch.put(keyspace, key, value)
        except BatchTooLarge as exc:  # the batch's own check of max_bytes: say which knob it was
            size = len(key) + (0 if value is None else len(value)) + BATCH_OP_OVERHEAD
            raise self._too_large(self.batch.nbytes + size) from exc
        staged = self._overlay.get(keyspace)
        if staged is None:  # (not setdefault: its default would be a new dict at every change)
            staged = self._overlay[keyspace] = {}
        staged[bytes(key)] = value

    def _commit_chunk(self) -> None:
        """Apply the batch to the engine in one ``write`` and start an empty one."""
        if len(self.batch):
            logical = self.batch.logical_bytes()
            self.engine.write(self.batch)
            self.peak_bytes = max(self.peak_bytes, self.engine.last_write_memory())
            self._counted(len(self.batch), logical)
        self.batch = WriteBatch(self.max_bytes)
        self._overlay.clear()

    def _drop(self) -> None:
        self.batch.clear()
        self._overlay.clear()


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
