"""The change buffer: changes to leaves of non-unique indexes that are not in the pool, recorded instead of done.

Maintaining a secondary index is read-modify-write for a B+tree: inserting an index entry needs the leaf it goes
to, and with a pool much smaller than the data that leaf is usually on disk, so each row insert costs a random
page read per secondary index (seed 000). For a *non-unique* index nothing needs checking, so InnoDB records the
change in its change buffer (formerly the insert buffer, ``ibuf``) and applies it later, when the leaf is read
anyway or in the background; many changes to one leaf then cost one read.

As in InnoDB the buffer is itself a B+tree in the tablespace (index id 2, root page 2), so buffered changes are
redo-logged and survive a crash like any page change. Its entries are keyed by (leaf page number, sequence
number), so the changes to one leaf sort together, in the order they were made::

    key:   page u32 big-endian | seq u64 big-endian
    value: op u8 (1 put, 2 delete) | index id u32 | key length u16 | key | value

**When a change is buffered**: the change buffer is on, the tree's descent found the level-1 page but not the leaf,
and the policy (change_buffer_policy.py, the exercise's plug point) agrees; the engine's own agrees when the index is
non-unique and the change surely fits: the buffer knows the leaf's free space and record count
from when it was evicted (InnoDB keeps the same in its ibuf bitmap pages; here it is kept in memory, so after a
restart a leaf is read once before changes to it are buffered). Buffered inserts never make a leaf overflow and
buffered deletes never empty it, so merging never splits or merges pages. The buffer holds at most
``change_buffer_max_size`` of the pool (25% by default, ``innodb_change_buffer_max_size``).

**When changes are merged**: whenever the leaf is read into the pool, for whatever reason (a get, a scan, a
change that could not be buffered), before anyone looks at it; and by the page cleaner, a few leaves per run. The
policy's ``merge`` computes the leaf's records with the changes applied, and the difference is written into the page
(deletes first, then puts, in key order), each change logged.

**Merges and rollback.** A merge moves changes from the buffer into the leaf; what the index holds (its leaves with
their buffered changes applied) stays the same. So when a client batch that spans several mini-transactions
(engine.py) merges entries buffered *before* it, it logs no undo for them: if the batch is rolled back, they stay
merged. The entries the batch buffered itself are its own changes: buffering one logs an undo that removes the
entry again, and merging one logs the leaf key's previous value, never the entry (whose leaf page number the
batch's later splits and merges may have made meaningless). A rollback removes the failed batch's own entries
before anything else, so it never merges them.
"""

from __future__ import annotations

import struct

from ..errors import CorruptionError
from . import page as pg
from .change_buffer_policy import (DEFAULT_POLICY, DELETE, PUT, bufferable, check_can_buffer, check_merged,
                                   last_changes)

OP_PUT = 1
OP_DELETE = 2
ENTRY_KEY = struct.Struct(">IQ")  # leaf page, sequence number
ENTRY_HEAD = struct.Struct("<BIH")  # op, index id, key length


class ChangeBuffer:
    """Buffered changes of one database (see the module docstring)."""

    def __init__(self, ctx, tree, max_bytes: int, policy=None) -> None:
        self.ctx = ctx  # tree_context.TreeContext: pager, mtr provider, trees by index id, page limits
        self.tree = tree  # the change buffer's own B+tree
        self.max_bytes = max_bytes  # most bytes of buffered entries
        self.policy = policy or DEFAULT_POLICY  # decides what is buffered and merges it (change_buffer_policy.py)
        self.pending: dict[int, int] = {}  # leaf page -> entries waiting for it
        self.owner: dict[int, int] = {}  # leaf page -> index id of its tree
        self.estimates: dict[int, list[int]] = {}  # leaf page -> [free bytes, records] since it left the pool
        self.seq = 0  # sequence number of the next entry
        self.batch_first_seq = 0  # sequence number of the open client batch's first entry
        self.nbytes = 0  # bytes of entries (records and slots) in the buffer tree
        self.buffered_puts = 0  # puts buffered since open
        self.buffered_deletes = 0  # deletes buffered since open
        self.merged = 0  # entries applied to their leaf since open
        self.merged_pages = 0  # leaves merged since open (on read, including the page cleaner's reads)
        self.refused_full = 0  # changes not buffered because the buffer was full

    def load(self) -> None:
        """Count the entries already in the buffer tree (at open, after recovery)."""
        for key, value in self.tree.items(None, None):
            page_no, seq = ENTRY_KEY.unpack(key)
            self.pending[page_no] = self.pending.get(page_no, 0) + 1
            self.owner[page_no] = ENTRY_HEAD.unpack_from(value)[1]
            self.seq = max(self.seq, seq + 1)
            self.nbytes += pg.RECORD_OVERHEAD + len(key) + len(value)

    def buffer(self, tree, page_no: int, key: bytes, value: bytes | None) -> bool:
        """Record a put (``value``) or delete (None) for leaf ``page_no`` of ``tree`` instead of reading the
        leaf; False if it cannot be buffered (then the caller reads the leaf)."""
        est = self.estimates.get(page_no)
        op = OP_DELETE if value is None else OP_PUT
        entry_key = ENTRY_KEY.pack(page_no, self.seq)
        entry = ENTRY_HEAD.pack(op, tree.index_id, len(key)) + key + (value or b"")
        size = pg.RECORD_OVERHEAD + len(entry_key) + len(entry)
        if len(entry_key) + len(entry) > self.ctx.max_record:
            return False  # the entry would not fit in a page of the buffer's own tree
        need = pg.RECORD_OVERHEAD + len(key) + len(value) if op == OP_PUT else 0
        leaf = None if est is None else (est[0], est[1])
        name = PUT if op == OP_PUT else DELETE
        args = (tree.unique, name, need, leaf, size, self.max_bytes - self.nbytes)
        if self.policy is DEFAULT_POLICY:
            ok = bufferable(*args) is None  # the engine's own rules need no second opinion
        else:
            ok = check_can_buffer(self.policy, self.policy.can_buffer(*args), *args)
        if not ok:
            if est is not None and self.nbytes + size > self.max_bytes:
                self.refused_full += 1
            return False
        if op == OP_PUT:
            est[0] -= need
        else:
            est[1] -= 1
        self.tree.put(entry_key, entry)
        self.seq += 1
        self.nbytes += size
        self.pending[page_no] = self.pending.get(page_no, 0) + 1
        self.owner[page_no] = tree.index_id
        if op == OP_PUT:
            self.buffered_puts += 1
        else:
            self.buffered_deletes += 1
        return True

    def on_evict(self, frame) -> None:
        """A page leaves the pool: remember a leaf's free space and records, so changes to it can be buffered."""
        page = pg.Page(frame.buf)
        if page.type == pg.INDEX_PAGE and page.is_leaf:
            tree = self.ctx.trees.get(page.index_id)
            if tree is not None and tree.buffered:
                self.estimates[frame.page_no] = [page.free, page.nrecs]

    def on_read(self, frame) -> None:
        """A page was read into the pool: apply its buffered changes before anyone uses it."""
        self.estimates.pop(frame.page_no, None)
        if self.pending.get(frame.page_no):
            self.merge(frame)

    def merge(self, frame) -> None:
        """Apply every buffered change to the leaf in ``frame`` and remove them from the buffer; only the changes
        of the open client batch are undone if it rolls back (see the module docstring)."""
        page_no = frame.page_no
        page = pg.Page(frame.buf)
        if page.type != pg.INDEX_PAGE or not page.is_leaf:
            raise CorruptionError(f"change buffer: entries for page {page_no}, which is not a leaf "
                                  f"(type {page.type}, level {page.level})")
        mtr = self.ctx.current_mtr()
        in_batch = mtr.keeps_undo
        index_id = self.owner[page_no]
        before, during = [], []  # entries made before the open client batch, and by it
        try:
            # Taking entries out of the buffer is never undone: a rollback takes back the leaf's changes instead.
            mtr.keeps_undo = False
            for entry_key, entry in self.tree.items(ENTRY_KEY.pack(page_no, 0), ENTRY_KEY.pack(page_no + 1, 0)):
                op, _, klen = ENTRY_HEAD.unpack_from(entry)
                change = (PUT if op == OP_PUT else DELETE, entry[ENTRY_HEAD.size:ENTRY_HEAD.size + klen],
                          entry[ENTRY_HEAD.size + klen:] if op == OP_PUT else None)
                batch = in_batch and ENTRY_KEY.unpack(entry_key)[1] >= self.batch_first_seq
                (during if batch else before).append(change)
                self.tree.delete(entry_key)
                self.nbytes -= pg.RECORD_OVERHEAD + len(entry_key) + len(entry)
                self.merged += 1
            for changes, keeps_undo in ((before, False), (during, True)):
                if changes:
                    mtr.keeps_undo = keeps_undo
                    self._apply(frame, index_id, changes)
        finally:
            mtr.keeps_undo = in_batch
        self.pending.pop(page_no, None)
        self.owner.pop(page_no, None)
        self.merged_pages += 1

    def _apply(self, frame, index_id: int, changes: list) -> None:
        """Write what the policy's merge of ``changes`` changes in the leaf in ``frame``, each change logged (with
        the key's previous value as undo when the mtr keeps undo)."""
        page = pg.Page(frame.buf)
        if self.policy is DEFAULT_POLICY:
            gone, written = _default_merge(page, changes)
        else:  # a plugged-in policy answers with the whole leaf, which is checked, and the difference is written
            old = page.records()
            was, new = dict(old), dict(check_merged(self.policy, self.policy.merge(old, changes)))
            # The differences as sets, in key order (the order the records had): each page holds hundreds of
            # records, of which a merge changes a few.
            gone, written = sorted(was.keys() - new.keys()), sorted(new.items() - was.items())
        mtr = self.ctx.current_mtr()
        for key in gone:
            mtr.undo_before(frame, index_id, key)
            mtr.delete(frame, key)
        for key, value in written:
            mtr.undo_before(frame, index_id, key)
            if mtr.put(frame, key, value, self.ctx.page_size) == pg.FULL:
                raise CorruptionError(f"change buffer: the records {self.policy!r} merged do not fit in page "
                                      f"{frame.page_no}")

    def discard(self, entry_key: bytes) -> None:
        """Remove entry ``entry_key`` unmerged, if it is there (a rollback taking back a buffered change)."""
        entry = self.tree.get(entry_key)
        if entry is None:
            return
        self.tree.delete(entry_key)
        self.nbytes -= pg.RECORD_OVERHEAD + len(entry_key) + len(entry)
        page_no = ENTRY_KEY.unpack(entry_key)[0]
        self.pending[page_no] -= 1
        if not self.pending[page_no]:
            del self.pending[page_no]
            self.owner.pop(page_no, None)

    def candidates(self, pages: int) -> list[tuple[int, str]]:
        """Up to ``pages`` (leaf page, IO tag) with buffered changes, lowest page numbers first: what the page
        cleaner reads (reading a leaf merges it)."""
        out = []
        for page_no in sorted(self.pending)[:pages]:
            tree = self.ctx.trees.get(self.owner.get(page_no))
            out.append((page_no, tree.name if tree is not None else ""))
        return out

    def stats(self) -> dict:
        """Counters: entries pending, bytes, buffered and merged changes."""
        return {
            "pending_entries": sum(self.pending.values()),
            "pending_pages": len(self.pending),
            "bytes": self.nbytes,
            "max_bytes": self.max_bytes,
            "buffered": self.buffered_puts + self.buffered_deletes,
            "buffered_puts": self.buffered_puts,
            "buffered_deletes": self.buffered_deletes,
            "merged": self.merged,
            "merged_pages": self.merged_pages,
            "refused_full": self.refused_full,
        }


def _default_merge(page, changes: list) -> tuple[list[bytes], list[tuple[bytes, bytes]]]:
    """What the engine's own merge of ``changes`` does to the leaf ``page``, in key order: the keys it removes and
    the records it writes. The same difference the whole merged leaf gives, found by looking up only the keys the
    changes name (a few, in a leaf of hundreds)."""
    gone, written = [], []
    for key, value in sorted(last_changes(changes).items()):
        old = page.get(key)
        if value is None:
            if old is not None:
                gone.append(key)
        elif value != old:
            written.append((key, value))
    return gone, written
