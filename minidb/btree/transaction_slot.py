"""The engine's side of an in-place transaction (in_place.py): the one named way it reaches its engine, as
LevelDB's WriteBatch is reached through write_batch_internal.h.

The slot holds the engine's open transaction. While one is open it is the only writer (``check_none`` refuses the
engine's other writes), the redo log is kept from its first change since its last commit (``keep_from``, which the
checkpoint asks: its undo is there), and the change buffer tells the entries of its open chunk from the committed
ones. The transaction asks for five things, each in one call: ``begin``, ``change`` (made in the pages at once, as
one step of the engine's open batch), ``commit`` (the COMMIT group), ``rollback`` (a recovery, as after a failed
batch) and ``end``; ``holds(txn)`` says whether it is still the open one (a failure's recovery ends it). Like
write_batch_internal.h, the slot is the one place besides the engine that reaches the engine's write path
(``_write_ops``, for a change made as a step of the open batch).
"""

from __future__ import annotations

from ..kv import BATCH_OP_OVERHEAD
from .maintenance import count_commit


class TransactionSlot:
    """The open in-place transaction of one engine (``engine``, which holds the slot); see the module docstring."""

    def __init__(self, engine) -> None:
        self.engine = engine  # the BTreeEngine the transaction changes
        self.open = None  # the open in_place.InPlaceTransaction, the only writer while it is open; or None
        self.from_lsn = 0  # LSN where the open transaction's uncommitted groups start: the log is kept from here

    def begin(self, txn) -> None:
        """Make ``txn`` the open transaction; ValueError if one is open, ReadOnlyError on a read-only engine."""
        self.engine.failures.check_writable()
        self.check_none()
        self.open = txn
        self._chunk_start()

    def _chunk_start(self) -> None:
        """The open transaction starts a chunk: the log is kept from here, its change-buffer entries from here."""
        engine = self.engine
        self.from_lsn = engine.redo.lsn
        engine.change_buffer.batch_first_seq = engine.change_buffer.seq

    def change(self, txn, keyspace: str, key: bytes, value: bytes | None) -> None:
        """One change of ``txn``, made in the pages now (memory: the change and its undo record)."""
        memory = len(key) + (0 if value is None else len(value)) + BATCH_OP_OVERHEAD
        self.engine._write_ops([(keyspace, key, value)], memory, txn)

    def commit(self) -> None:
        """Commit the open transaction's changes so far: the COMMIT group, written and synced per ``redo_sync``."""
        engine = self.engine
        engine.failures.check_writable()
        with engine.failures.guard():
            engine.mtrs.begin()
            engine.mtrs.commit(client=True)
        count_commit(engine)
        self._chunk_start()

    def rollback(self) -> None:
        """Take back the open transaction's changes since its last commit: recover, which rolls back the open
        batch."""
        engine = self.engine
        engine.failures.check_writable()
        if not engine.mtrs.groups:
            return  # nothing of it reached the log since the last commit, so nothing was changed
        engine.counters["rollbacks"] += 1
        engine.failures.recover_in_place()
        engine.mtrs.version += 1

    def end(self, txn) -> None:
        """``txn`` has committed or rolled back: the slot is free again (if it still held it)."""
        if self.open is txn:
            self.open = None

    def holds(self, txn) -> bool:
        """Whether ``txn`` is still the open transaction (a recovery after a failure ends it)."""
        return self.open is txn

    def check_none(self) -> None:
        """ValueError if a transaction is open: it is the only writer."""
        self.engine.failures.check_usable()  # a closed or stopped engine says so first, open transaction or not
        if self.open is not None:
            raise ValueError("a transaction is open on this B+tree engine (engine.begin()), and it is the only "
                             "writer: write through it, or commit or roll it back first")

    def keep_from(self) -> int | None:
        """The LSN the checkpoint must not pass: the open transaction's first uncommitted group, or None."""
        return self.from_lsn if self.open is not None else None
