"""BTreeEngine: the InnoDB-like engine behind ``minidb.open_btree``, assembled from the parts in this package.

One tablespace holds one B+tree per keyspace (plus the catalog and the change buffer trees), all sharing one buffer
pool; one redo log records every change. A client write (``put``, ``delete`` or ``write(batch)``) is a
*transaction* made of mini-transactions (mtr.pyx): the changes are made in the pool, each mtr's pages pinned there
until its redo group is appended to the log; the last group ends with COMMIT, is written with the log buffer, and
is synced according to ``redo_sync``. Dirty pages reach the tablespace later: evicted from the LRU tail when a frame
is needed, written by the page cleaner, or by a checkpoint when the redo log fills up; always after their redo is
durable, and through the doublewrite buffer when it is on. Opening a database that was not closed replays its redo
log (recovery.py).

**Batches larger than the pool.** A batch that changes few pages is one mtr. Once an mtr has changed a quarter of
the pool's frames, its group is appended ending with CONTINUE and the batch goes on in a new mtr, so its earlier
pages may be written and evicted before it commits: a 1,000-row insert-benchmark commit touching thousands of
secondary-index leaves runs in a pool of a few hundred frames, as in InnoDB. Such a group also carries the batch's
*undo*: for every key changed, the value it had before (mini_transactions.py).

**Atomicity and failures.** A batch either commits as a whole or leaves no trace. Recovery replays every group,
then rolls back the batch whose COMMIT group is not in the log, from its undo (rollback.py). If anything fails in
the middle of a batch (an IO error, a full disk, a corrupt page), the engine discards its in-memory state and
recovers from the tablespace and the log, which rolls the batch back, then raises the error (failures.py). After
``DeviceCrashed`` the engine is dead: reopen the database with ``open_btree(device)``, as a restarted server would.

**A full disk** (seed 004's question, asked of InnoDB). The tablespace grows when a page is allocated, so the
statement that needs a new page gets ``TableFullError`` (error 1114, "The table is full"), is rolled back, and the
engine keeps running. A redo log write that fails is another matter: InnoDB aborts, since it cannot log changes; here
the engine stops (``EngineStopped`` on every call) until ``resume()`` recovers it in place once space is back (or the
database is reopened). Either way nothing acknowledged is lost: a commit is acknowledged only after its redo write.
Creating a keyspace is not part of a batch: a ``put`` to a new keyspace creates it first, in a redo group of its own
(as DDL commits on its own in MySQL), so a failed batch may leave a new, empty keyspace behind.

**Transactions.** ``begin()`` starts an ``InPlaceTransaction`` (in_place.py), InnoDB's kind: its changes are
client steps of one open batch, each made in the pages at once in mtrs whose groups end with CONTINUE and carry
its undo, until its commit appends the COMMIT group. While one is open it is the only writer; every other group
(a read's change-buffer merges, a new keyspace) ends with CONTINUE too, so that recovery still sees the batch as
open and rolls it back unless its COMMIT group is in the log; and the checkpoint keeps the log from its first
change on, where its undo is. Its rollback is a recovery, as after a failed batch. The engine holds it in its
transaction slot (transaction_slot.py), the one way the transaction reaches the engine.

**The class and its parts.** ``BTreeEngine`` keeps the client API and the wiring: it builds its parts when it
opens (``rebuild``) and applies client batches. Beside it, each in a module of its own: the mini-transactions
(mini_transactions.py), failures (failures.py), the in-place transaction's slot (transaction_slot.py), background
work (maintenance.py), the rollback of an open batch (rollback.py) and the statistics (engine_stats.py).

**Counting.** All IO goes through the device, attributed to a cause (``foreground``, ``eviction``,
``page-cleaner``, ``checkpoint``, ``sync-flush``, ``recovery``) and tagged with the keyspace each page belongs to, so
``device.stats`` has page reads and writes per index. ``stats()`` adds the engine's own counters.
"""

from __future__ import annotations

from functools import partial

from ..kv import BATCH_OP_OVERHEAD, Engine, WriteBatch, check_key
from ..storage.device import Device
from . import checkpoint as ckpt
from . import doublewrite as dw
from . import fsp
from . import page as pg
from . import page_zip as zp
from . import tablespace as ts
from .buffer_pool import BufferPool
from .catalog import Catalog, KeyspaceEntry, check_name
from .change_buffer import ChangeBuffer
from .database_files import check_page_size, database_exists
from .engine_stats import engine_stats
from .failures import Failures
from .in_place import InPlaceTransaction
from .maintenance import before_write, count_commit
from .mini_transactions import MiniTransactions
from .options import BTreeOptions
from .page_cleaner import PageCleaner
from .pager import Pager
from .recovery import replay
from .redo_log import RedoLog, read_checkpoint
from .rollback import roll_back
from .split_policy import DEFAULT_POLICY
from .transaction_slot import TransactionSlot
from .tree import BTree
from .tree_context import TreeContext, page_tag
from .tree_core import MISSING, apply_ops, validate_ops
from .verify import check_database


class BTreeEngine(Engine):
    """The B+tree engine (see the module docstring); open it with ``open_btree``."""

    def __init__(self, device: Device, options: BTreeOptions) -> None:
        self.device = device  # where every file lives and every IO is counted
        self.options = options  # the options it was opened with
        self.page_size = options.page_size  # bytes per page
        self.max_record = pg.max_record_bytes(options.page_size)  # most bytes of key + value per row
        self.max_key = pg.max_key_bytes(options.page_size)  # most bytes per key
        if options.block is not None:  # two rows must fit a compressed page even if they do not compress
            self.max_record = min(self.max_record, zp.max_record_bytes(options.block))
            self.max_key = min(self.max_key, self.max_record - 16)
        self.zip_stats = zp.ZipStats(options.compression_level)  # compressions of a compressed tablespace
        self.fill_factor = options.fill_factor  # see open_btree
        self.split_policy = options.split_policy or DEFAULT_POLICY  # leaf split plug point
        self.counters = {"commits": 0, "continued_mtrs": 0, "splits": 0, "root_splits": 0, "merges": 0,
                         "root_lifts": 0, "checkpoints": 0, "rollbacks": 0, "stops": 0,
                         "resumes": 0, "async_flushes": 0, "async_flush_pages": 0, "sync_flushes": 0,
                         "sync_flush_pages": 0, "redo_waits": 0}  # engine events since open
        self.cleaner = PageCleaner(options.page_cleaner, options.clock) if options.page_cleaner else None
        self.recovery: dict = {}  # what the last recovery did (empty for a new database)
        self.mtrs = MiniTransactions(self)  # the open mini-transaction and its batch (mini_transactions.py)
        self.transactions = TransactionSlot(self)  # the open in-place transaction (transaction_slot.py)
        self.failures = Failures(self)  # dead, stopped or recovering after a failure (failures.py)
        self._last_write_memory = 0  # bytes the last write held (its batch)
        self.io_at_open = device.stats.snapshot()  # IO before open, subtracted in stats()
        self.tree_by_id: dict[int, BTree] = {}  # index id -> tree, internal trees included (rebuilt by rebuild())
        self._compares_base = 0  # key comparisons of the trees that a rebuild replaced
        self.read_only = options.read_only  # opened for reading only: every write raises ReadOnlyError
        self._lock = None if self.read_only else device.lock()  # one writer per database, until close
        try:
            with device.stats.cause("recovery"):
                exists = database_exists(device, self.page_size, create_if_missing=options.create_if_missing,
                                         error_if_exists=options.error_if_exists, read_only=self.read_only)
            if not exists:
                for name in device.list():
                    device.delete(name)  # the debris of a creation that crashed (database_files.py)
            self.rebuild()
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise

    # -- opening, creating, recovering -----------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Build the in-memory state from the device: create a new database or recover an existing one (which
        rolls back the open batch or transaction, if any: it ends here). The engine does it when it opens, and
        again in place after a failure or an in-place transaction's rollback (failures.py)."""
        ps, opts, dev = self.page_size, self.options, self.device
        self._compares_base = self.key_compares()  # the trees about to be replaced keep their count
        self.transactions.open = None
        with dev.stats.cause("recovery"):
            cp = read_checkpoint(dev)
        if cp is not None:
            check_page_size(dev, cp.page_size, ps)  # ValueError for the caller's mistake, CorruptionError for damage
        self.pool = BufferPool(ps, opts.pool_frames)
        self.mtrs.reset(opts.pool_frames)
        ro = self.read_only
        self.redo = RedoLog(dev, opts.redo_log_bytes, opts.redo_sync, read_only=ro)
        with dev.stats.cause("recovery"):  # an existing tablespace is probed for its key block size
            self.tablespace = ts.Tablespace(dev, ps, create=cp is None, read_only=ro, block=opts.block,
                                            zip_stats=self.zip_stats)
        stored = self.tablespace.block if self.tablespace.compressed else None
        if stored != opts.block:
            raise ValueError(f"key_block_size {opts.key_block_size} does not match the database on {dev!r}, whose "
                             f"key block size is {None if stored is None else stored >> 10} (fixed when a database "
                             f"is created)")
        # Read-only page writes go to the tablespace's overlay in memory, which needs no torn-page protection.
        self.doublewrite = (dw.Doublewrite(dev, self.tablespace.block, dev.stats, opts.torn_page_repair,
                                           self.tablespace.valid) if opts.doublewrite and not ro else None)
        self.trees: dict[str, BTree] = {}  # keyspace name -> tree
        self.tree_by_id = {}  # index id -> tree, internal trees included
        self.pager = Pager(self.pool, self.tablespace, self.redo, self.doublewrite, dev.stats,
                           partial(page_tag, self.tree_by_id), opts.buffer_pool_bytes)
        self.free_check = ckpt.LogFreeCheck(self.pool, self.pager, self.redo, self.tablespace, self.doublewrite, ps,
                                            dev.stats, opts.clock, self.counters, self.transactions.keep_from)
        self.fsp = fsp.FileSpace(self.pager, self.mtrs.current)
        self.tree_context = TreeContext(  # what the trees and the change buffer work with
            pager=self.pager, fsp=self.fsp, current_mtr=self.mtrs.current, split_policy=self.split_policy,
            fill_factor=self.fill_factor, page_size=ps, max_key=self.max_key, max_record=self.max_record,
            counters=self.counters, trees=self.tree_by_id)
        self.catalog = Catalog(self._make_tree("__catalog", fsp.CATALOG_INDEX_ID, fsp.CATALOG_ROOT, True, False))
        cb_tree = self._make_tree("__change_buffer", fsp.CHANGE_BUFFER_INDEX_ID, fsp.CHANGE_BUFFER_ROOT, True, False)
        self.change_buffer = ChangeBuffer(self.tree_context, cb_tree,
                                          int(opts.change_buffer_max_size * opts.buffer_pool_bytes),
                                          opts.change_buffer_policy)
        self.tree_context.change_buffer = self.change_buffer
        if cp is None:
            self._create()
        else:
            self._recover()
        self.pager.on_read = self.change_buffer.on_read
        self.pager.on_evict = self.change_buffer.on_evict

    def _create(self) -> None:
        """A new database: the file-space header and the two internal roots, then a first checkpoint."""
        self.redo.create(0)
        mtr = self.mtrs.current()
        self.fsp.create(mtr, self.page_size)
        for root, index_id in ((fsp.CATALOG_ROOT, fsp.CATALOG_INDEX_ID),
                               (fsp.CHANGE_BUFFER_ROOT, fsp.CHANGE_BUFFER_INDEX_ID)):
            mtr.init(self.pager.new_page(root), pg.INDEX_PAGE, 0, index_id, pg.NIL_PAGE, pg.NIL_PAGE, 0, [])
        self.mtrs.commit(client=False)
        self.pager.release()
        self.free_check.sharp()

    def _recover(self) -> None:
        """An existing database: doublewrite repair, redo replay, then the catalog and the change buffer."""
        dev = self.device
        with dev.stats.cause("recovery"):
            self.redo.open()
            fsp.check_flushed_on_disk(self.tablespace, self.redo.checkpoint_lsn)  # before anything is written
            restored = []
            if dev.exists(dw.FILE):
                area = self.doublewrite or dw.Doublewrite(dev, self.tablespace.block, dev.stats,
                                                          self.options.torn_page_repair, self.tablespace.valid)
                restored = area.recover(self.tablespace, self.redo.checkpoint_lsn)
            self.recovery, undo = replay(self.redo, self.pool, self.pager)
            self.recovery["doublewrite_restored"] = restored
            # The log read back may have been written but never synced (a running engine that failed and is
            # recovering): make it durable before any page changed from it is written.
            self.redo.sync()
            self.fsp.check(self.page_size, self.redo.checkpoint_lsn)
            self.catalog.load()
            for name, entry in sorted(self.catalog.entries.items()):
                self._make_tree(name, entry.index_id, entry.root, entry.unique)
            self.change_buffer.load()
            self.pager.on_read = self.change_buffer.on_read  # from here on, a leaf read merges its buffered changes
            roll_back(self, undo)
            self.pager.release()
            # Only now, with no damage found, what recovery leaves behind goes: a recovery that fails deletes nothing.
            self.redo.settle()
            if self.doublewrite is None and not self.read_only and dev.exists(dw.FILE):
                dev.delete(dw.FILE)  # opened without doublewrite: its pages were restored above

    def _make_tree(self, name: str, index_id: int, root: int, unique: bool, register: bool = True) -> BTree:
        capacity = self.page_size - pg.HEADER_BYTES
        tree = BTree(self.pool, name, index_id, root, unique, int(self.fill_factor * capacity),
                     int(self.options.merge_threshold * capacity), self.tree_context)
        # Every keyspace's changes may be buffered: the policy says no for a unique index (its leaf must be read to
        # look for a duplicate); the engine's internal trees never are. A compressed tablespace buffers no changes:
        # whether a buffered insert will fit a compressed leaf is not known until it is merged (InnoDB estimates it
        # from page_zip's free space; here such leaves are read).
        tree.buffered = register and self.options.change_buffer and self.options.block is None
        if register:
            self.trees[name] = tree
        self.tree_by_id[index_id] = tree
        return tree

    # -- writes ----------------------------------------------------------------------------------------------------
    def put(self, keyspace: str, key: bytes, value: bytes) -> None:
        """Set ``key`` to ``value`` in ``keyspace`` (created, unique, if it does not exist)."""
        self.transactions.check_none()
        check_key(key)
        if not isinstance(value, (bytes, bytearray)):
            raise ValueError(f"a value must be bytes, got {type(value).__name__}")
        self._write_ops([(keyspace, bytes(key), bytes(value))], len(key) + len(value) + BATCH_OP_OVERHEAD)

    def delete(self, keyspace: str, key: bytes) -> None:
        """Remove ``key`` from ``keyspace``; removing an absent key is not an error."""
        self.transactions.check_none()
        check_key(key)
        self._write_ops([(keyspace, bytes(key), None)], len(key) + BATCH_OP_OVERHEAD)

    def write(self, batch: WriteBatch) -> None:
        """Apply every change of ``batch`` atomically, in order (one mini-transaction, or a sequence of them for a
        batch that changes more than a quarter of the pool: see the module docstring)."""
        if not isinstance(batch, WriteBatch):
            raise ValueError(f"write() takes a WriteBatch, got {type(batch).__name__}")
        self.transactions.check_none()
        if batch.ops:
            self._write_ops(batch.ops, batch.nbytes)

    def _write_ops(self, ops: list, memory: int, txn: InPlaceTransaction | None = None) -> None:
        """Apply ``ops`` (holding ``memory`` bytes) as a client batch; for ``txn``, as one step of its batch (its
        groups end with CONTINUE: transaction_slot.py)."""
        self._last_write_memory = memory
        self.failures.check_writable()
        new = sorted(validate_ops(ops, self.max_record, self.max_key, self.trees))
        for name in new:
            check_name(name)
        before_write(self)
        mtrs = self.mtrs
        with self.failures.guard():
            if new:
                mtrs.begin()  # the new keyspaces: a system change of its own, made durable with the batch
                for name in new:
                    self._create_tree(name, True)
                self.pager.release()
                mtrs.commit(client=False)
            mtrs.begin(batch=True)
            if txn is None:
                self.change_buffer.batch_first_seq = self.change_buffer.seq
            with self.device.stats.cause("foreground"):
                i, n, undo_held = 0, len(ops), 0
                while True:
                    # The fast path runs ops until one needs IO, a split or a merge, or the mtr is full.
                    i, full = apply_ops(ops, i, self.trees, mtrs.open, self.pool, mtrs.limit)
                    if not full:
                        if i >= n:
                            break
                        keyspace, key, value = ops[i]
                        if value is None:
                            self.trees[keyspace].delete(key)
                        else:
                            self.trees[keyspace].put(key, value)
                        self.pager.release()
                        i += 1
                        if len(mtrs.open.frames) < mtrs.limit:
                            continue
                    undo_held = max(undo_held, mtrs.open.undo_bytes)
                    mtrs.commit(client=False, last=False)  # its pages may now leave the pool
                    mtrs.begin(batch=True)
                undo_held = max(undo_held, mtrs.open.undo_bytes)
                mtrs.commit(client=txn is None, last=txn is None)
        if txn is not None:
            self._last_write_memory += undo_held  # an in-place change holds its undo until its group is appended
        else:
            count_commit(self)

    # -- in-place transactions (in_place.py) ---------------------------------------------------------------------
    def begin(self, **options) -> InPlaceTransaction:
        """A new transaction whose changes go to the pages as they are made, with undo (in_place.py);
        ``options`` are the knobs of ``minidb.transaction``. One at a time: ValueError if one is open."""
        return InPlaceTransaction(self, **options)

    def create_keyspace(self, name: str, *, unique: bool = True, column_family: str | None = None) -> None:
        """Create keyspace ``name``; ``unique=False`` marks a non-unique secondary index, whose changes may go to
        the change buffer. Creating an existing keyspace with the same options does nothing.

        ``column_family`` is ignored: InnoDB has no column families (every index is a tree in the tablespace with
        the same page size and pool), so a MyRocks ``COMMENT 'cfname=...'`` changes nothing here, as InnoDB keeps
        an index comment as text only."""
        self.failures.check_writable()
        self.transactions.check_none()
        check_name(name)
        if not isinstance(unique, bool):
            raise ValueError(f"bad unique {unique!r} for keyspace {name!r}: must be True or False")
        entry = self.catalog.entries.get(name)
        if entry is not None:
            if entry.unique != unique:
                raise ValueError(f"keyspace {name!r} exists with unique={entry.unique}, cannot open it with "
                                 f"unique={unique}")
            return
        before_write(self)
        self.mtrs.begin()
        with self.failures.guard():
            self._create_tree(name, unique)
            self.pager.release()
            self.mtrs.commit(client=True)

    def _create_tree(self, name: str, unique: bool) -> BTree:
        """A new empty tree and its catalog entry, in the open mini-transaction."""
        check_name(name)
        index_id = self.fsp.next_index_id()
        root = self.fsp.alloc()
        self.mtrs.current().init(root, pg.INDEX_PAGE, 0, index_id, pg.NIL_PAGE, pg.NIL_PAGE, 0, [])
        self.catalog.add(name, KeyspaceEntry(index_id, root.page_no, unique))
        return self._make_tree(name, index_id, root.page_no, unique)

    # -- reads -----------------------------------------------------------------------------------------------------
    def get(self, keyspace: str, key: bytes) -> bytes | None:
        """The value of ``key`` in ``keyspace``, or None."""
        self.failures.check_usable()
        check_key(key)
        tree = self.trees.get(keyspace)
        if tree is None:
            return None
        key = bytes(key)
        self.pool.op += 1
        value = tree.try_get(key)
        if value is MISSING:
            value = self.mtrs.read(tree.get, key)
        return value

    def scan(self, keyspace: str, lo: bytes | None = None, hi: bytes | None = None):
        """(key, value) pairs of ``keyspace`` with ``lo <= key < hi`` in key order, following the leaf links."""
        self.failures.check_usable()
        for bound in (lo, hi):
            if bound is not None and not isinstance(bound, (bytes, bytearray)):
                raise ValueError(f"scan bounds must be bytes or None, got {bound!r}")
        return self._scan(keyspace, None if lo is None else bytes(lo), None if hi is None else bytes(hi))

    def _scan(self, keyspace, lo, hi):
        if keyspace not in self.trees or (lo is not None and hi is not None and lo >= hi):
            return
        key, exclusive, nxt = lo or b"", False, None
        self.pool.op += 1
        while True:
            self.failures.check_usable()
            records, resume = self.mtrs.read(self.trees[keyspace].scan_step, key, exclusive, hi, nxt)
            version = self.mtrs.version
            yield from records
            if resume is None:
                return
            (key, nxt), exclusive = resume, True
            if self.mtrs.version != version:
                nxt = None  # the tree changed since: find the next key from the root instead of the leaf link

    # -- maintenance and failures (maintenance.py, failures.py) ------------------------------------------------
    def flush(self) -> None:
        """Write every dirty page and take a sharp checkpoint (nothing is left to recover)."""
        self.failures.check_writable()
        with self.failures.guard(), self.device.stats.cause("checkpoint"):
            self.free_check.sharp()

    def set_group_commit(self, on: bool) -> None:
        """Leave the redo log's commit syncs (``redo_sync="commit"``) to the server's group commit, ``sync_log``
        once per group (redo_log.py), or (``on`` False) take them back."""
        self.redo.group_commit = bool(on)

    def sync_log(self) -> None:
        """Write and sync the redo log up to the last commit, if group commit holds the commits' syncs back: a
        binlog group's flush stage. A failed write stops the engine, as any failed redo write does (failures.py)."""
        self.failures.check_writable()
        if not self.redo.defers_syncs:
            return  # the commits synced as their policy says (or never, under "none")
        with self.failures.guard():
            self.redo.sync()

    def resume(self) -> None:
        """Restart a stopped engine in place once space is back: recover from the tablespace and the redo log, as a
        reopen would, so nothing acknowledged is lost. The recovery's error if it fails again (the disk still full);
        a no-op while the engine runs. After ``DeviceCrashed`` reopen the database instead."""
        self.failures.resume()

    def close(self) -> None:
        """Flush and release the engine; closing twice is harmless. A dead or read-only engine closes without
        writing."""
        failures = self.failures
        if failures.closed:
            return
        if self.transactions.open is not None and failures.dead is None:
            self.transactions.open.rollback()  # as a server shutting down rolls back the transactions still open
        if failures.dead is None and not self.read_only:
            self.flush()  # if it fails the engine stays open (and locked): close again once the cause is fixed
        failures.closed = True
        if self._lock is not None:
            self._lock.release()

    # -- introspection ---------------------------------------------------------------------------------------------
    def keyspaces(self) -> list[str]:
        """Names of the keyspaces, sorted."""
        return sorted(self.trees)

    def is_unique(self, name: str) -> bool:
        """The ``unique`` flag keyspace ``name`` was created with (in the catalog); ValueError if unknown."""
        entry = self.catalog.entries.get(name)
        if entry is None:
            raise ValueError(f"no keyspace {name!r}; keyspaces: {', '.join(self.keyspaces()) or 'none'}")
        return entry.unique

    def check(self) -> dict:
        """Verify the whole database (verify.py): every tree's order, separators, levels and links, the free list,
        and that every page is used exactly once. Raises CorruptionError on the first violation; returns a summary.
        Pages not in the pool are read (and counted) but not cached."""
        self.failures.check_usable()
        return check_database(self)

    def key_compares(self) -> int:
        """Key comparisons the trees' searches made since open (CPU work, for ``minidb.sim.cpu``)."""
        return self._compares_base + sum(t.compares for t in self.tree_by_id.values())

    def work(self) -> dict[str, int]:
        """The counters of ``minidb.kv.WORK``: key comparisons, pages looked up in the buffer pool, its hits and
        misses (reads), and in a compressed tablespace the bytes zlib compressed and expanded (page_zip.pyx)."""
        pool = self.pool.counters()
        zs = self.zip_stats
        return {"lz4_compress_bytes": 0, "lz4_decompress_bytes": 0, "zstd_compress_bytes": 0,
                "zstd_decompress_bytes": 0, "zlib_compress_bytes": zs.compressed_in,
                "zlib_decompress_bytes": zs.decompressed_out, "key_compares": self.key_compares(),
                "page_visits": pool["read_requests"], "cache_hits": pool["hits"], "cache_misses": pool["reads"],
                "flush_entries": 0, "compaction_entries": 0}

    def serial_work(self) -> dict[str, int]:
        """The redo log's bytes, copied into the log buffer under log_sys->mutex and checksummed by the one log
        writer (``minidb.sim.server``): the LSN, which counts the redo bytes generated."""
        return {"crc32_bytes": self.redo.lsn, "copy_bytes": self.redo.lsn}

    @property
    def stopped(self) -> bool:
        """True after a failed redo write stopped the engine (until ``resume()`` recovers it in place)."""
        return self.failures.stopped

    def last_write_memory(self) -> int:
        """Bytes the last write held: its batch (changes are made in the pool's pages, with no second copy); for a
        change of an in-place transaction, the change and its undo record."""
        return self._last_write_memory

    def stats(self, trees: bool = True) -> dict:
        """Engine counters; with ``trees``, also each keyspace's height, pages, records and leaf fill (a walk of
        every tree, which reads the pages not in the pool: take it between measured phases); engine_stats.py."""
        self.failures.check_usable()
        return engine_stats(self, trees)
