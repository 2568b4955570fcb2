"""The mini-transactions of a B+tree engine: every change reaches the redo log as part of one.

A mini-transaction (mtr.pyx) pins the pages it changes in the pool while it is open; its commit appends its redo
records to the log as one group and marks its pages dirty with the group's LSNs. A client batch is one mtr, or a
sequence of them once one has changed ``limit`` frames (a quarter of the pool): their groups end with CONTINUE and
carry the batch's undo, until the last ends with COMMIT (engine.py tells why). The engine's own changes (a read's
change-buffer merges, a new keyspace, a rollback) are system mtrs of their own. While an in-place transaction is
open (transaction_slot.py), only its commit ends the batch: every other group ends with CONTINUE.

``version`` counts the groups appended and the rebuilds of the engine's state, so that a scan knows when the trees
changed under it. ``read`` runs a read that may change pages (a leaf it reads merges its buffered changes) and
commits those changes as a system group.
"""

from __future__ import annotations

from .mtr import Mtr
from .redo_log import GROUP


class MiniTransactions:
    """The open mini-transaction of one engine and the batch its groups belong to (see the module docstring). It
    works on the engine's pool, redo log, counters and open transaction (``engine``, which holds it)."""

    def __init__(self, engine) -> None:
        self.engine = engine  # the BTreeEngine these mtrs change
        self.open: Mtr | None = None  # the open mini-transaction
        self.groups = 0  # groups the open batch has appended so far (they end with CONTINUE)
        self.limit = 1  # a batch's mtr ends once it has changed this many frames (``reset``)
        self.version = 0  # bumped by every group appended and every rebuild (a scan re-descends after one)
        self._buffer = Mtr()  # reused by every mini-transaction (its redo buffer stays allocated)
        self._seq = 0  # sequence number of the last mini-transaction

    def reset(self, pool_frames: int) -> None:
        """For a pool of ``pool_frames`` frames just built: no batch open, a batch's mtr ends at a quarter of it."""
        self.limit = max(1, pool_frames // 4)
        self.groups = 0

    def current(self) -> Mtr:
        """The open mini-transaction; a system one (no client commit) is opened if none is. While a transaction
        is open it keeps undo, for the change-buffer merges of the transaction's own entries (change_buffer.py)."""
        if self.open is None:
            self.begin(batch=self.engine.transactions.open is not None)
        return self.open

    def begin(self, batch: bool = False) -> None:
        """Open a mini-transaction; ``batch``: it belongs to a client batch (it keeps undo)."""
        self._seq += 1
        self.open = self._buffer
        self.open.begin(self._seq, GROUP.size, batch)
        self.engine.pool.begin(self._seq)

    def commit(self, client: bool, last: bool = True) -> None:
        """Append the open mtr's redo as one group and dirty its pages. ``last``: the group ends its transaction
        (COMMIT; for a ``client`` batch the log is written and synced per policy); else it ends with CONTINUE and
        carries the batch's undo. If the append fails the mtr stays open, for the failure to roll back
        (failures.py). While a transaction is open only its commit (``client``) ends the batch."""
        engine = self.engine
        mtr, redo, pool = self.open, engine.redo, engine.pool
        if engine.transactions.open is not None and not client:
            last = False
        if mtr.nrecords or (last and self.groups):
            with mtr.group(last) as group:
                start, end = (redo.commit if client and last else redo.append)(group)
            pool.commit(mtr.frames, start, end)
            self.version += 1
            if last:
                self.groups = 0
            else:
                self.groups += 1
                engine.counters["continued_mtrs"] += 1
        elif client and last and redo.buffered:
            redo.commit(None)  # e.g. the keyspaces a batch of deletes created: durable with the batch
        self.open = None
        pool.end()

    def take(self) -> Mtr | None:
        """Take the open mini-transaction away (None if none is open): a failure discards it."""
        mtr, self.open = self.open, None
        return mtr

    def read(self, fn, *args):
        """Run a read that needs IO: leaves it reads may merge buffered changes, committed as a system group."""
        engine = self.engine
        with engine.failures.guard(), engine.device.stats.cause("foreground"):
            result = fn(*args)
            if self.open is not None:
                self.commit(client=False)
        engine.pager.release()
        return result
