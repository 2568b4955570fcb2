"""The B+tree's transactions: each change made in the pages as it comes, with undo, as InnoDB does.

MyRocks holds a transaction's changes in memory until commit (``minidb.transaction.Transaction``), so its memory
grows with the transaction. InnoDB makes each change in place: the row goes to its page in the buffer pool at once,
and the value it replaced is written to an undo log so that a rollback, or recovery after a crash, can put it back.
The transaction itself holds next to nothing, one change at a time, whatever its size.

Here each change is one client step of the engine's open *batch* (engine.py): its mini-transactions change the
pages and their redo groups end with CONTINUE, carrying the change's undo (the key's previous value); ``commit``
appends the COMMIT group, written and synced like any commit. The transaction reaches its engine only through the
engine's transaction slot (transaction_slot.py), which holds it while it is open. So:

* **memory**: what a change holds until its group reaches the log buffer (the change and its undo record), which
  the engine reports as ``last_write_memory()``; the undo then lives in the redo log, on the device, counted there;
* **rollback** is recovery: the engine rebuilds its state from the tablespace and the log, and recovery takes back
  the batch that has no COMMIT, newest change first, from its undo (rollback.py). The buffer pool
  starts cold after it, as after a restart;
* **a crash** before ``commit`` leaves no trace of the transaction once the database is reopened; with
  ``commit_in_the_middle`` the chunks already committed stay, as they would with MyRocks;
* **one writer**: while a transaction is open the engine refuses other writes (``put``, ``write``, ...), and the
  log from the transaction's first change on is kept (a checkpoint does not pass it), since its undo is there;
* **reads** (``get``, ``scan``, here or on the engine) see the transaction's changes at once: they are in the pages.
  An error in the middle of a change (a full disk, say) rolls the whole transaction back, as recovery does.

The knobs are those of every transaction (``minidb.transaction``): ``max_rows`` counts the changes since the last
commit; ``max_bytes`` limits what the transaction holds at once, which for this kind is one change.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..kv import BATCH_OP_OVERHEAD, check_key
from ..transaction import BaseTransaction


class InPlaceTransaction(BaseTransaction):
    """A transaction whose changes go to the B+tree's pages as they are made (see the module docstring); start one
    with ``engine.begin()``."""

    def __init__(self, engine, **options) -> None:
        super().__init__(engine, **options)
        self._logical = 0  # bytes of keys and values changed since the last commit
        self._slot = engine.transactions  # the engine's side (transaction_slot.py): the only way this one reaches it
        self._slot.begin(self)

    @property
    def nbytes(self) -> int:
        """Bytes held now: none between changes (each change's undo is in the log once the change returns)."""
        return 0

    def get(self, keyspace: str, key: bytes) -> bytes | None:
        """The value of ``key``: the engine's, which already holds this transaction's changes."""
        self._check_open("read")
        return self.engine.get(keyspace, key)

    def scan(self, keyspace: str, lo: bytes | None = None, hi: bytes | None = None) -> Iterator[tuple[bytes, bytes]]:
        """(key, value) pairs with ``lo <= key < hi`` in key order: the engine's, with this transaction's changes."""
        self._check_open("scan")
        return self.engine.scan(keyspace, lo, hi)

    def _change(self, keyspace: str, key: bytes, value: bytes | None) -> None:
        check_key(key)
        if value is not None and not isinstance(value, (bytes, bytearray)):
            raise ValueError(f"a value must be bytes, got {type(value).__name__}")
        size = len(key) + (0 if value is None else len(value)) + BATCH_OP_OVERHEAD
        if self.max_bytes is not None and size > self.max_bytes:
            raise self._too_large(size)
        self._slot.change(self, keyspace, bytes(key), None if value is None else bytes(value))
        self.peak_bytes = max(self.peak_bytes, self.engine.last_write_memory())
        self._logical += size - BATCH_OP_OVERHEAD

    def _commit_chunk(self) -> None:
        if self.rows:
            self._slot.commit()
            self._counted(self.rows, self._logical)
            self._logical = 0

    def _drop(self) -> None:
        self._slot.rollback()
        self._logical = 0

    def commit(self) -> None:
        """Make the changes since the last commit durable (the COMMIT group) and end the transaction."""
        super().commit()
        self._slot.end(self)

    def rollback(self) -> None:
        """Take back the changes since the last commit (by recovery, see the module docstring) and end."""
        super().rollback()
        self._slot.end(self)

    def _check_open(self, what: str) -> None:
        super()._check_open(what)
        if not self._slot.holds(self):
            self.closed = True
            raise ValueError(f"cannot {what}: the transaction was rolled back when the engine recovered from an "
                             f"error (its changes since the last commit are gone); begin a new one")
