"""Transactions: changes buffered in memory until commit, with memory accounting and commit in the middle.

Seed 000: MyRocks "buffers in memory all changes from a transaction until commit and at commit time the changes
are briefly double buffered when copied into the memtable", so a huge transaction can exhaust memory; the
workaround for bulk loads is ``rocksdb_commit_in_the_middle``, which commits every N rows.

A ``Transaction`` buffers its changes in a ``WriteBatch`` (which counts the bytes it holds) and commits them with
one ``engine.write``, atomically. It reports:

* ``nbytes``: bytes buffered now; ``peak_bytes``: the most memory a commit of this transaction held, the buffered
  batch plus its copy in the memtable (about twice the batch, the double buffering of the seed);
* ``max_bytes``: a limit on the buffer; a change that would exceed it raises ``BatchTooLarge`` (MyRocks'
  ``rocksdb_max_row_locks`` became such a memory limit);
* ``commit_in_the_middle=N``: commit automatically every N changes (and whenever the buffer would exceed
  ``max_bytes``), so memory stays bounded whatever the transaction's size. The chunks committed are durable on
  their own: a rollback undoes only the changes since the last chunk, as with MyRocks' option.

Reads through the transaction see its own uncommitted changes.
"""

from __future__ import annotations

from minidb.kv import BatchTooLarge, WriteBatch


class Transaction:
    """A buffered transaction on an LSMEngine; use as a context manager to commit (or roll back on error)."""

    def __init__(self, engine, *, max_bytes: int | None = None, commit_in_the_middle: int | None = None) -> None:
        if commit_in_the_middle is not None and (isinstance(commit_in_the_middle, bool)
                                                 or not isinstance(commit_in_the_middle, int)
                                                 or commit_in_the_middle < 1):
            raise ValueError(f"bad commit_in_the_middle={commit_in_the_middle!r}: an int >= 1 (changes per chunk) "
                             f"or None")
        self.engine = engine  # where commits go
        self.max_bytes = max_bytes  # buffer limit in bytes, None for none
        self.commit_in_the_middle = commit_in_the_middle  # changes per automatic chunk commit, None for none
        self.batch = WriteBatch(limit=max_bytes)  # the buffered changes
        self._pending: dict[tuple[str, bytes], bytes | None] = {}  # read-your-writes view of the buffer
        self.peak_bytes = 0  # most memory held during a commit (buffer + memtable copy)
        self.chunks = 0  # commits done, automatic ones included
        self.done = False  # True after commit() or rollback()

    @property
    def nbytes(self) -> int:
        """Bytes buffered now."""
        return self.batch.nbytes

    def put(self, keyspace: str, key: bytes, value: bytes) -> None:
        """Buffer: set ``key`` to ``value``."""
        self._add(keyspace, key, value)

    def delete(self, keyspace: str, key: bytes) -> None:
        """Buffer: remove ``key``."""
        self._add(keyspace, key, None)

    def _add(self, keyspace: str, key: bytes, value: bytes | None) -> None:
        self._check_active()
        if self.commit_in_the_middle is not None and len(self.batch) >= self.commit_in_the_middle:
            self._commit_chunk()
        try:
            self._append(keyspace, key, value)
        except BatchTooLarge:
            if self.commit_in_the_middle is None or not len(self.batch):
                raise
            self._commit_chunk()
            self._append(keyspace, key, value)
        self._pending[(keyspace, bytes(key))] = None if value is None else bytes(value)

    def _append(self, keyspace: str, key: bytes, value: bytes | None) -> None:
        if value is None:
            self.batch.delete(keyspace, key)
        else:
            self.batch.put(keyspace, key, value)

    def get(self, keyspace: str, key: bytes) -> bytes | None:
        """The value as this transaction sees it: its own changes first, then the engine."""
        hit = self._pending.get((keyspace, bytes(key)), ...)
        if hit is not ...:
            return hit
        return self.engine.get(keyspace, key)

    def _commit_chunk(self) -> None:
        if not len(self.batch):
            return
        self.engine.write(self.batch)
        self.peak_bytes = max(self.peak_bytes, self.engine.last_commit_memory)
        self.chunks += 1
        self.batch = WriteBatch(limit=self.max_bytes)
        self._pending.clear()

    def commit(self) -> None:
        """Write the buffered changes atomically (one WAL record)."""
        self._check_active()
        self._commit_chunk()
        self.done = True

    def rollback(self) -> None:
        """Drop the changes buffered since the last commit (chunks already committed stay)."""
        self._check_active()
        self.batch.clear()
        self._pending.clear()
        self.done = True

    def _check_active(self) -> None:
        if self.done:
            raise ValueError("the transaction is finished (committed or rolled back)")

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.done:
            return
        if exc_type is None:
            self.commit()
        else:
            self.rollback()
