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
*undo*: for every key changed, the value it had before.

**Atomicity and failures.** A batch either commits as a whole or leaves no trace. Recovery replays every group,
then rolls back the batch whose COMMIT group is not in the log, from its undo (``_rollback``). If anything fails in
the middle of a batch (an IO error, a full disk, a corrupt page), the engine discards its in-memory state and
recovers from the tablespace and the log, which rolls the batch back, then raises the error. After
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
change on (``_txn_from``), where its undo is. Its rollback is a recovery, as after a failed batch.

**Counting.** All IO goes through the device, attributed to a cause (``foreground``, ``eviction``,
``page-cleaner``, ``checkpoint``, ``sync-flush``, ``recovery``) and tagged with the keyspace each page belongs to, so
``device.stats`` has page reads and writes per index. ``stats()`` adds the engine's own counters.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..errors import CorruptionError, DeviceCrashed, EngineStopped, MiniDBError, ReadOnlyError
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
from .in_place import InPlaceTransaction
from .mtr import Mtr
from .options import BTreeOptions, PageCleanerOptions
from .page_cleaner import PageCleaner
from .pager import Pager
from .recovery import replay
from .redo_log import GROUP, RedoLog, read_checkpoint
from .split_policy import DEFAULT_POLICY
from .tree import BTree
from .tree_context import TreeContext
from .tree_core import MISSING, apply_ops, validate_ops
from .verify import PageReader, check_space, walk_free_list, walk_tree

_NO_CLEANER = object()  # default marker: use PageCleanerOptions()


def open_btree(device: Device, *, page_size: int = 16384, buffer_pool_bytes: int = 128 << 20,
               fill_factor: float = 15 / 16, merge_threshold: float = 0.5, doublewrite: bool = True,
               change_buffer: bool = True, change_buffer_max_size: float = 0.25, redo_sync="commit",
               redo_log_bytes: int = 64 << 20, page_cleaner=_NO_CLEANER, split_policy=None,
               torn_page_repair=None, change_buffer_policy=None,
               clock=None, create_if_missing: bool = True, error_if_exists: bool = False,
               read_only: bool = False, key_block_size: int | None = None,
               compression_level: int = 6) -> BTreeEngine:
    """Open (or create) the B+tree database on ``device``; an existing one is recovered from its redo log.

    * ``page_size``: 4096, 8192 or 16384, fixed at creation; reopening with another size raises ValueError.
    * ``buffer_pool_bytes``: the buffer pool (``buffer_pool_bytes // page_size`` frames, at least 16).
    * ``fill_factor``: how full ascending (PK-order) inserts leave pages, 15/16 as InnoDB.
    * ``merge_threshold``: a page below this fill after a delete is merged with a sibling (InnoDB's 50%).
    * ``doublewrite``: write pages through the doublewrite buffer (torn pages become repairable, writes double).
    * ``change_buffer``, ``change_buffer_max_size``: buffer changes to uncached leaves of non-unique indexes
      (``create_keyspace(name, unique=False)``), in at most this fraction of the pool.
    * ``redo_sync``: ``"commit"`` (sync the redo log at every commit), ``("every", N)`` or ``"none"``.
    * ``redo_log_bytes``: the redo log capacity; as the log fills, page writes and checkpoints are forced, and past
      its sync point a client waits for them (checkpoint.py).
    * ``page_cleaner``: a ``PageCleanerOptions`` (the default one if not given), or None for no page cleaner.
    * ``split_policy``: the leaf split plug point (``split_policy.SplitPolicy``); None for the engine's own.
    * ``torn_page_repair``: how recovery finds torn pages and their doublewrite copies (``doublewrite.TornPageRepair``,
      the exercise's plug point); None for the engine's own.
    * ``change_buffer_policy``: what the change buffer buffers and how it merges
      (``change_buffer_policy.ChangeBufferPolicy``, the exercise's plug point); None for the engine's own.
    * ``clock``: a ``minidb.sim.Clock``; when given, the page cleaner runs once per simulated second.
    * ``create_if_missing``: create a database where there is none (else ``DatabaseMissingError``);
      ``error_if_exists``: ``DatabaseExistsError`` if there is one. Files without a checkpoint are never taken for
      "no database" (``NotADatabaseError``, see database_files.py).
    * ``read_only``: recover into memory only (redo replayed, an open batch rolled back, torn pages repaired, all
      in the pool and an in-memory overlay); no file is created, written, renamed or deleted, no lock is taken, and
      every write raises ``ReadOnlyError``. A read-write open holds the device's ``LOCK`` until ``close``.
    * ``key_block_size``: None (pages stored as they are) or 1, 2, 4, 8, 16 (KiB, at most the page size): every
      page is stored as a zlib-compressed image of that many bytes (page_zip.pyx), InnoDB's compressed tables; fixed
      at creation like the page size. ``compression_level``: the zlib level (innodb_compression_level, 6).
      A cached page then takes ``page_size + key_block_size`` bytes of the pool (both copies), rows are limited to
      what two of them fit a block uncompressed, and changes are not buffered (see ``_make_tree``).
    """
    if not isinstance(device, Device):
        raise ValueError(f"bad device {device!r}: must be a minidb.storage Device (SimDevice or DirDevice)")
    options = BTreeOptions(
        page_size=page_size, buffer_pool_bytes=buffer_pool_bytes, fill_factor=fill_factor,
        merge_threshold=merge_threshold, doublewrite=doublewrite, change_buffer=change_buffer,
        change_buffer_max_size=change_buffer_max_size, redo_sync=redo_sync, redo_log_bytes=redo_log_bytes,
        page_cleaner=PageCleanerOptions() if page_cleaner is _NO_CLEANER else page_cleaner,
        split_policy=split_policy, torn_page_repair=torn_page_repair,
        change_buffer_policy=change_buffer_policy, clock=clock, create_if_missing=create_if_missing,
        error_if_exists=error_if_exists, read_only=read_only, key_block_size=key_block_size,
        compression_level=compression_level)
    return BTreeEngine(device, options)


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
        self.version = 0  # bumped by every committed change (a scan re-descends after one)
        self.recovery: dict = {}  # what the last recovery did (empty for a new database)
        self._mtr: Mtr | None = None  # the open mini-transaction
        self._mtr_buffer = Mtr()  # reused by every mini-transaction (its redo buffer stays allocated)
        self._mtr_seq = 0  # sequence number of the last mini-transaction
        self._txn: InPlaceTransaction | None = None  # the open transaction, the only writer while it is open
        self._txn_from = 0  # LSN where the open transaction's uncommitted groups start: the log kept from here
        self._closed = False  # close() was called
        self._last_write_memory = 0  # bytes the last write held (its batch)
        self._dead: BaseException | None = None  # why the engine refuses work (a crash), or None
        self._base = device.stats.snapshot()  # IO before open, subtracted in stats()
        self._compares_base = 0  # key comparisons of the trees that a rollback's reopen replaced
        self.read_only = options.read_only  # opened for reading only: every write raises ReadOnlyError
        self._lock = None if self.read_only else device.lock()  # one writer per database, until close
        try:
            with device.stats.cause("recovery"):
                exists = database_exists(device, self.page_size, create_if_missing=options.create_if_missing,
                                         error_if_exists=options.error_if_exists, read_only=self.read_only)
            if not exists:
                for name in device.list():
                    device.delete(name)  # the debris of a creation that crashed (database_files.py)
            self._open()
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise

    # -- opening, creating, recovering -----------------------------------------------------------------------------
    def _open(self) -> None:
        """Build the in-memory state from the device: create a new database or recover an existing one (which
        rolls back the open transaction, if any: it ends here)."""
        ps, opts, dev = self.page_size, self.options, self.device
        self._txn = None
        with dev.stats.cause("recovery"):
            cp = read_checkpoint(dev)
        if cp is not None:
            check_page_size(dev, cp[2], ps)  # ValueError for the caller's mistake, CorruptionError for damage
        self.pool = BufferPool(ps, opts.pool_frames)
        self._mtr_frames = max(1, opts.pool_frames // 4)  # a batch's mtr ends once it has changed this many frames
        self._batch_groups = 0  # groups the open batch has appended so far (they end with CONTINUE)
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
        self.pager = Pager(self.pool, self.tablespace, self.redo, self.doublewrite, dev.stats, self._tag_of,
                           opts.buffer_pool_bytes)
        self.free_check = ckpt.LogFreeCheck(self.pool, self.pager, self.redo, self.tablespace, self.doublewrite, ps,
                                            dev.stats, opts.clock, self.counters, self._keep_from)
        self.fsp = fsp.FileSpace(self.pager, self.current_mtr)
        self.trees: dict[str, BTree] = {}  # keyspace name -> tree
        self.tree_by_id: dict[int, BTree] = {}  # index id -> tree, internal trees included
        self.tree_context = TreeContext(  # what the trees and the change buffer work with
            pager=self.pager, fsp=self.fsp, current_mtr=self.current_mtr, split_policy=self.split_policy,
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
        mtr = self.current_mtr()
        self.fsp.create(mtr, self.page_size)
        for root, index_id in ((fsp.CATALOG_ROOT, fsp.CATALOG_INDEX_ID),
                               (fsp.CHANGE_BUFFER_ROOT, fsp.CHANGE_BUFFER_INDEX_ID)):
            mtr.init(self.pager.new_page(root), pg.INDEX_PAGE, 0, index_id, pg.NIL_PAGE, pg.NIL_PAGE, 0, [])
        self._commit_mtr(client=False)
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
            self._rollback(undo)
            self.pager.release()
            # Only now, with no damage found, what recovery leaves behind goes: a recovery that fails deletes nothing.
            self.redo.settle()
            if self.doublewrite is None and not self.read_only and dev.exists(dw.FILE):
                dev.delete(dw.FILE)  # opened without doublewrite: its pages were restored above

    def _rollback(self, undo: list) -> None:
        """Take back the changes of the batch that did not commit, newest first, from its undo records.

        The rollback is an ordinary sequence of logged changes (it may split or merge pages, and merge buffered
        changes into the leaves it reads, like any other), done in mtrs whose UNDONE records say how many undo
        records each has taken back: if it is cut short by a crash, the next recovery finishes it. Its last group
        ends with COMMIT, which closes the batch in the log. Nothing is buffered here: the change buffer learns
        which leaves have room only as they leave the pool, which it starts to watch after recovery.

        Before anything else: the entries the batch buffered (its undo records of the change buffer's tree) are
        removed, all at once, so that no read merges them and no page merge frees a leaf they wait for (removing
        is idempotent, so they need no UNDONE count); then the leaves that replay brought into the pool, where no
        read will merge them, get their buffered changes merged. All in the rollback's own mtrs, so that no group
        ends with COMMIT while the batch is still open.
        """
        self.recovery["rolled_back"] = len(undo)
        self._begin_mtr()
        for index_id, key, old in undo:
            if index_id == fsp.CHANGE_BUFFER_INDEX_ID:
                if old is not None:
                    raise CorruptionError(f"redo log: undo record puts back change buffer entry {key.hex()}, but "
                                          f"a batch only ever adds entries")
                self.change_buffer.discard(key)
                self.pager.release()
                self._rollback_step(0)
        for page_no in sorted(self.change_buffer.pending):
            frame = self.pool.peek(page_no)
            if frame is not None:
                self.pager.fix(frame)  # the merge may read change buffer pages: keep this one in the pool
                self.change_buffer.merge(frame)
                self.pager.release()
                self._rollback_step(0)
        done = 0
        for index_id, key, old in reversed(undo):
            tree = self.tree_by_id.get(index_id)
            if tree is None:
                raise CorruptionError(f"redo log: undo record for index {index_id}, which does not exist")
            if index_id != fsp.CHANGE_BUFFER_INDEX_ID:  # those were removed above
                if old is None:
                    tree.delete(key)
                else:
                    tree.put(key, old)
                self.pager.release()
            done += 1
            if self._rollback_step(done):
                done = 0
        if done:
            self._mtr.undone(done)
        self._commit_mtr(client=False)

    def _rollback_step(self, done: int) -> bool:
        """Once the rollback's mtr has changed its share of the pool: log that ``done`` more undo records are
        taken back, append the group (the batch still open) and go on in a new mtr; True if it did."""
        if len(self._mtr.frames) < self._mtr_frames:
            return False
        if done:
            self._mtr.undone(done)
        self._commit_mtr(client=False, last=False)
        self._begin_mtr()
        return True

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

    def _tag_of(self, frame) -> str:
        """The IO tag of a page: its keyspace, or __fsp / __free / __catalog / __change_buffer."""
        page = pg.Page(frame.buf)
        if page.type == pg.INDEX_PAGE:
            tree = self.tree_by_id.get(page.index_id)
            return tree.name if tree is not None else f"__index{page.index_id}"
        return {pg.FSP_PAGE_TYPE: "__fsp", pg.FREE_PAGE: "__free"}.get(page.type, "")

    # -- mini-transactions -------------------------------------------------------------------------------------------
    def current_mtr(self) -> Mtr:
        """The open mini-transaction; a system one (no client commit) is opened if none is. While a transaction
        is open it keeps undo, for the change-buffer merges of the transaction's own entries (change_buffer.py)."""
        if self._mtr is None:
            self._begin_mtr(batch=self._txn is not None)
        return self._mtr

    def _begin_mtr(self, batch: bool = False) -> None:
        """Open a mini-transaction; ``batch``: it belongs to a client batch (it keeps undo)."""
        self._mtr_seq += 1
        self._mtr = self._mtr_buffer
        self._mtr.begin(self._mtr_seq, GROUP.size, batch)
        self.pool.begin(self._mtr_seq)

    def _commit_mtr(self, client: bool, last: bool = True) -> None:
        """Append the open mtr's redo as one group and dirty its pages. ``last``: the group ends its transaction
        (COMMIT; for a ``client`` batch the log is written and synced per policy); else it ends with CONTINUE and
        carries the batch's undo. If the append fails the mtr stays open, for ``_failed`` to roll back. While a
        transaction is open only its commit (``client``) ends the batch."""
        mtr = self._mtr
        if self._txn is not None and not client:
            last = False
        if mtr.nrecords or (last and self._batch_groups):
            with mtr.group(last) as group:
                start, end = (self.redo.commit if client and last else self.redo.append)(group)
            self.pool.commit(mtr.frames, start, end)
            self.version += 1
            if last:
                self._batch_groups = 0
            else:
                self._batch_groups += 1
                self.counters["continued_mtrs"] += 1
        elif client and last and self.redo.buffered:
            self.redo.commit(None)  # e.g. the keyspaces a batch of deletes created: durable with the batch
        self._mtr = None
        self.pool.end()

    # -- failures --------------------------------------------------------------------------------------------------
    def _check_usable(self) -> None:
        if self._closed:
            raise ValueError("the B+tree engine is closed")
        if self._dead is not None:
            raise type(self._dead)(f"the B+tree engine stopped after {self._dead!r}: reopen the database with "
                                   f"open_btree(device) to recover it")

    @contextmanager
    def _failure_guard(self):
        """Run the block; if anything in it fails, handle the failure (``_failed``) and re-raise it."""
        try:
            yield
        except BaseException as exc:
            self._failed(exc)
            raise

    def _check_writable(self) -> None:
        self._check_usable()
        if self.read_only:
            raise ReadOnlyError("the B+tree engine was opened with read_only=True: it refuses writes")

    def _failed(self, exc: BaseException) -> None:
        """An operation failed: after a crash the engine is dead; after a failed redo write it stops (until
        ``resume()``); after any other error, changes the open mini-transaction made are undone by recovering from
        the device (see the module docstring)."""
        mtr, self._mtr = self._mtr, None
        self.pager.release()
        if isinstance(exc, DeviceCrashed):
            self._dead = exc
            return
        if getattr(exc, "redo_write_failed", False):  # a NoSpaceError or RedoWriteError of the redo log
            self._dead = EngineStopped(f"{exc.strerror}: InnoDB cannot run without its redo log and aborts; free "
                                       f"space, then resume() (or reopen the database)")
            self.counters["stops"] += 1
            return
        if (mtr is None or mtr.nrecords == 0) and not self._batch_groups:
            self.pool.end()
            return
        self.counters["rollbacks"] += 1
        self._compares_base = self.key_compares()
        try:
            self._open()
        except BaseException as again:
            self._dead = again if isinstance(again, (DeviceCrashed, CorruptionError)) else MiniDBError(
                f"recovering after {exc!r} failed: {again!r}")
        self.version += 1

    # -- writes ----------------------------------------------------------------------------------------------------
    def put(self, keyspace: str, key: bytes, value: bytes) -> None:
        """Set ``key`` to ``value`` in ``keyspace`` (created, unique, if it does not exist)."""
        self._check_no_txn()
        check_key(key)
        if not isinstance(value, (bytes, bytearray)):
            raise ValueError(f"a value must be bytes, got {type(value).__name__}")
        self._last_write_memory = len(key) + len(value) + BATCH_OP_OVERHEAD
        self._write_ops([(keyspace, bytes(key), bytes(value))])

    def delete(self, keyspace: str, key: bytes) -> None:
        """Remove ``key`` from ``keyspace``; removing an absent key is not an error."""
        self._check_no_txn()
        check_key(key)
        self._last_write_memory = len(key) + BATCH_OP_OVERHEAD
        self._write_ops([(keyspace, bytes(key), None)])

    def write(self, batch: WriteBatch) -> None:
        """Apply every change of ``batch`` atomically, in order (one mini-transaction, or a sequence of them for a
        batch that changes more than a quarter of the pool: see the module docstring)."""
        if not isinstance(batch, WriteBatch):
            raise ValueError(f"write() takes a WriteBatch, got {type(batch).__name__}")
        self._check_no_txn()
        if batch.ops:
            self._last_write_memory = batch.nbytes
            self._write_ops(batch.ops)

    def _write_ops(self, ops: list, txn: InPlaceTransaction | None = None) -> None:
        """Apply ``ops`` as a client batch; for ``txn``, as one step of its batch (its groups end with CONTINUE)."""
        self._check_writable()
        new = sorted(validate_ops(ops, self.max_record, self.max_key, self.trees))
        for name in new:
            check_name(name)
        self._background()
        with self._failure_guard():
            if new:
                self._begin_mtr()  # the new keyspaces: a system change of its own, made durable with the batch
                for name in new:
                    self._create_tree(name, True)
                self.pager.release()
                self._commit_mtr(client=False)
            self._begin_mtr(batch=True)
            if txn is None:
                self.change_buffer.batch_first_seq = self.change_buffer.seq
            with self.device.stats.cause("foreground"):
                i, n, undo_held = 0, len(ops), 0
                while True:
                    # The fast path runs ops until one needs IO, a split or a merge, or the mtr is full.
                    i, full = apply_ops(ops, i, self.trees, self._mtr, self.pool, self._mtr_frames)
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
                        if len(self._mtr.frames) < self._mtr_frames:
                            continue
                    undo_held = max(undo_held, self._mtr.undo_bytes)
                    self._commit_mtr(client=False, last=False)  # its pages may now leave the pool
                    self._begin_mtr(batch=True)
                undo_held = max(undo_held, self._mtr.undo_bytes)
                self._commit_mtr(client=txn is None, last=txn is None)
        if txn is not None:
            self._last_write_memory += undo_held  # an in-place change holds its undo until its group is appended
        else:
            self._counted_commit()

    def _counted_commit(self) -> None:
        self.counters["commits"] += 1
        if self.cleaner is not None:
            self.cleaner.commits += 1

    # -- in-place transactions (in_place.py) ---------------------------------------------------------------------
    def begin(self, **options) -> InPlaceTransaction:
        """A new transaction whose changes go to the pages as they are made, with undo (in_place.py);
        ``options`` are the knobs of ``minidb.transaction``. One at a time: ValueError if one is open."""
        return InPlaceTransaction(self, **options)

    def _txn_begin(self, txn: InPlaceTransaction) -> None:
        self._check_writable()
        self._check_no_txn()
        self._txn = txn
        self._txn_chunk_start()

    def _txn_chunk_start(self) -> None:
        """The open transaction starts a chunk: the log is kept from here, its change-buffer entries from here."""
        self._txn_from = self.redo.lsn
        self.change_buffer.batch_first_seq = self.change_buffer.seq

    def _txn_change(self, txn: InPlaceTransaction, keyspace: str, key: bytes, value: bytes | None) -> None:
        """One change of ``txn``, made in the pages now (memory: the change and its undo record)."""
        self._last_write_memory = len(key) + (0 if value is None else len(value)) + BATCH_OP_OVERHEAD
        self._write_ops([(keyspace, key, value)], txn)

    def _txn_commit(self) -> None:
        """Commit the open transaction's changes so far: the COMMIT group, written and synced per ``redo_sync``."""
        self._check_writable()
        with self._failure_guard():
            self._begin_mtr()
            self._commit_mtr(client=True)
        self._counted_commit()
        self._txn_chunk_start()

    def _txn_rollback(self) -> None:
        """Take back the open transaction's changes since its last commit: recover, which rolls back the open batch."""
        self._check_writable()
        if not self._batch_groups:
            return  # nothing of it reached the log since the last commit, so nothing was changed
        self.counters["rollbacks"] += 1
        self._compares_base = self.key_compares()
        self._open()
        self.version += 1

    def _txn_end(self, txn: InPlaceTransaction) -> None:
        if self._txn is txn:
            self._txn = None

    def _check_no_txn(self) -> None:
        self._check_usable()  # a closed or stopped engine says so first, whatever the transaction's state
        if self._txn is not None:
            raise ValueError("a transaction is open on this B+tree engine (engine.begin()), and it is the only "
                             "writer: write through it, or commit or roll it back first")

    def create_keyspace(self, name: str, *, unique: bool = True, column_family: str | None = None) -> None:
        """Create keyspace ``name``; ``unique=False`` marks a non-unique secondary index, whose changes may go to
        the change buffer. Creating an existing keyspace with the same options does nothing.

        ``column_family`` is ignored: InnoDB has no column families (every index is a tree in the tablespace with
        the same page size and pool), so a MyRocks ``COMMENT 'cfname=...'`` changes nothing here, as InnoDB keeps
        an index comment as text only."""
        self._check_writable()
        self._check_no_txn()
        check_name(name)
        if not isinstance(unique, bool):
            raise ValueError(f"bad unique {unique!r} for keyspace {name!r}: must be True or False")
        entry = self.catalog.entries.get(name)
        if entry is not None:
            if entry.unique != unique:
                raise ValueError(f"keyspace {name!r} exists with unique={entry.unique}, cannot open it with "
                                 f"unique={unique}")
            return
        self._background()
        self._begin_mtr()
        with self._failure_guard():
            self._create_tree(name, unique)
            self.pager.release()
            self._commit_mtr(client=True)

    def _create_tree(self, name: str, unique: bool) -> BTree:
        """A new empty tree and its catalog entry, in the open mini-transaction."""
        check_name(name)
        index_id = self.fsp.next_index_id()
        root = self.fsp.alloc()
        self.current_mtr().init(root, pg.INDEX_PAGE, 0, index_id, pg.NIL_PAGE, pg.NIL_PAGE, 0, [])
        self.catalog.add(name, KeyspaceEntry(index_id, root.page_no, unique))
        return self._make_tree(name, index_id, root.page_no, unique)

    # -- reads -----------------------------------------------------------------------------------------------------
    def get(self, keyspace: str, key: bytes) -> bytes | None:
        """The value of ``key`` in ``keyspace``, or None."""
        self._check_usable()
        check_key(key)
        tree = self.trees.get(keyspace)
        if tree is None:
            return None
        key = bytes(key)
        self.pool.op += 1
        value = tree.try_get(key)
        if value is MISSING:
            value = self._read(tree.get, key)
        return value

    def scan(self, keyspace: str, lo: bytes | None = None, hi: bytes | None = None):
        """(key, value) pairs of ``keyspace`` with ``lo <= key < hi`` in key order, following the leaf links."""
        self._check_usable()
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
            self._check_usable()
            records, resume = self._read(self.trees[keyspace].scan_step, key, exclusive, hi, nxt)
            version = self.version
            yield from records
            if resume is None:
                return
            (key, nxt), exclusive = resume, True
            if self.version != version:
                nxt = None  # the tree changed since: find the next key from the root instead of the leaf link

    def _read(self, fn, *args):
        """Run a read that needs IO: leaves it reads may merge buffered changes, committed as a system group."""
        with self._failure_guard(), self.device.stats.cause("foreground"):
            result = fn(*args)
            if self._mtr is not None:
                self._commit_mtr(client=False)
        self.pager.release()
        return result

    # -- background work -------------------------------------------------------------------------------------------
    def _background(self) -> None:
        """Before a client write: the page cleaner if due, then the redo log's free check (checkpoint.py)."""
        with self._failure_guard():
            if self.cleaner is not None and self.cleaner.due():
                with self.device.stats.cause("page-cleaner"):
                    self.cleaner.run(self.pool, self.pager, self._merge_leaf, self.change_buffer,
                                     self.free_check.modified_age(), self.redo.capacity)
            self.free_check.run()

    def _merge_leaf(self, page_no: int, tag: str) -> None:
        """Read a leaf with buffered changes (reading merges them) in its own mini-transaction."""
        self.pager.fetch(page_no, tag)
        if self._mtr is not None:
            self._commit_mtr(client=False)
        self.pager.release()

    def _keep_from(self) -> int | None:
        """The LSN the checkpoint must not pass: the open transaction's first uncommitted group, or None."""
        return self._txn_from if self._txn is not None else None

    def flush(self) -> None:
        """Write every dirty page and take a sharp checkpoint (nothing is left to recover)."""
        self._check_writable()
        with self._failure_guard(), self.device.stats.cause("checkpoint"):
            self.free_check.sharp()

    def resume(self) -> None:
        """Restart a stopped engine in place once space is back: recover from the tablespace and the redo log, as a
        reopen would, so nothing acknowledged is lost. The recovery's error if it fails again (the disk still full);
        a no-op while the engine runs. After ``DeviceCrashed`` reopen the database instead."""
        if self._closed:
            raise ValueError("the B+tree engine is closed")
        if self._dead is None:
            return
        if not isinstance(self._dead, EngineStopped):
            self._check_usable()  # raises: only a reopen recovers from a crash
        self._compares_base = self.key_compares()
        self._mtr = None
        self._batch_groups = 0
        self._open()
        self._dead = None
        self.version += 1
        self.counters["resumes"] += 1

    def close(self) -> None:
        """Flush and release the engine; closing twice is harmless. A dead or read-only engine closes without
        writing."""
        if self._closed:
            return
        if self._txn is not None and self._dead is None:
            self._txn.rollback()  # as a server shutting down rolls back the transactions still open
        if self._dead is None and not self.read_only:
            self.flush()  # if it fails the engine stays open (and locked): close again once the cause is fixed
        self._closed = True
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> BTreeEngine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

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

    def _internal_trees(self) -> list[BTree]:
        return [self.tree_by_id[fsp.CATALOG_INDEX_ID], self.tree_by_id[fsp.CHANGE_BUFFER_INDEX_ID]]

    def check(self) -> dict:
        """Verify the whole database (verify.py): every tree's order, separators, levels and links, the free list,
        and that every page is used exactly once. Raises CorruptionError on the first violation; returns a summary.
        Pages not in the pool are read (and counted) but not cached."""
        self._check_usable()
        read = PageReader(self.pool, self.tablespace, self.device.stats)
        reports = [walk_tree(t.name, t.index_id, t.root, read)
                   for t in self._internal_trees() + [self.trees[n] for n in self.keyspaces()]]
        head = read(fsp.FSP_PAGE, "__fsp").buf
        page_count = fsp.read_u32(head, fsp.OFF_PAGE_COUNT)
        free = walk_free_list(read, fsp.read_u32(head, fsp.OFF_FREE_HEAD), fsp.read_u32(head, fsp.OFF_FREE_COUNT),
                              page_count)
        check_space(reports, free, page_count)
        by_name = {r.name: r for r in reports}
        for page_no, index_id in self.change_buffer.owner.items():
            tree = self.tree_by_id.get(index_id)
            if tree is None or page_no not in by_name[tree.name].pages:
                raise CorruptionError(f"change buffer: entries for page {page_no}, which is not a page of index "
                                      f"{index_id}")
        return {
            "pages": page_count,
            "free_pages": len(free),
            "keyspaces": {r.name: {"height": r.height, "leaf_pages": r.leaf_pages,
                                   "internal_pages": r.internal_pages, "records": r.records} for r in reports},
        }

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
        return isinstance(self._dead, EngineStopped)

    def last_write_memory(self) -> int:
        """Bytes the last write held: its batch (changes are made in the pool's pages, with no second copy); for a
        change of an in-place transaction, the change and its undo record."""
        return self._last_write_memory

    def stats(self, trees: bool = True) -> dict:
        """Engine counters; with ``trees``, also each keyspace's height, pages, records and leaf fill (a walk of
        every tree, which reads the pages not in the pool: take it between measured phases)."""
        self._check_usable()
        io = self.device.stats - self._base
        read = PageReader(self.pool, self.tablespace, self.device.stats)
        head = read(fsp.FSP_PAGE, "__fsp").buf
        pages, free_pages = fsp.read_u32(head, fsp.OFF_PAGE_COUNT), fsp.read_u32(head, fsp.OFF_FREE_COUNT)
        out = {
            "page_size": self.page_size,
            **self.counters,
            "key_compares": self.key_compares(),
            "buffer_pool": self.pool.counters(),
            "space": {"tablespace_bytes": self.tablespace.size, "pages": pages, "free_pages": free_pages,
                      "used_pages": pages - free_pages},
            "change_buffer": {"enabled": self.options.change_buffer, **self.change_buffer.stats()},
            "page_cleaner": self.cleaner.stats() if self.cleaner is not None else None,
            "redo": {"lsn": self.redo.lsn, "checkpoint_lsn": self.redo.checkpoint_lsn, "age": self.redo.age,
                     "modified_age": self.free_check.modified_age(), "capacity": self.redo.capacity,
                     "files": self.redo.file_names(), "groups": self.redo.groups},
            "doublewrite": self.doublewrite is not None,
            "compression": self._compression_stats(),
            "recovery": dict(self.recovery),
            "io": _io_by_tag(io),
            "keyspaces": {},
        }
        for name in self.keyspaces():
            tree = self.trees[name]
            entry = {"unique": tree.unique, **out["io"].get(name, {"page_reads": {}, "page_writes": {}})}
            if trees:
                r = walk_tree(name, tree.index_id, tree.root, read)
                entry.update(height=r.height, leaf_pages=r.leaf_pages, internal_pages=r.internal_pages,
                             records=r.records, leaf_fill=r.leaf_fill,
                             leaf_fill_mean=sum(r.leaf_fill) / len(r.leaf_fill))
            out["keyspaces"][name] = entry
        return out

    def _compression_stats(self) -> dict:
        """The key block size, INNODB_CMP's counters, and the pool memory each copy of the cached pages takes
        (compressed copies kept after their frame left, pager.py, included)."""
        frames, kept = len(self.pool), len(self.pager.zip_only)
        block = self.options.block or 0
        return {"key_block_size": self.options.key_block_size, **self.zip_stats.as_dict(),
                "pool_pages": self.pool.capacity,
                "pool_uncompressed_bytes": frames * self.page_size, "pool_compressed_bytes": (frames + kept) * block,
                "pool_compressed_only_pages": kept, "compressed_only_hits": self.pager.zip_only_hits}


def _io_by_tag(io) -> dict:
    """{tag: {"page_reads": {cause: n}, "page_writes": {cause: n}, "doublewrite_writes": {cause: n}}} of data pages."""
    out: dict = {}
    for kind, cause, tag in io.labels():
        if kind not in ("data", "doublewrite"):
            continue
        counts = io.total(kind=kind, cause=cause, tag=tag)
        entry = out.setdefault(tag, {"page_reads": {}, "page_writes": {}})
        if kind == "data":
            if counts.reads:
                entry["page_reads"][cause] = entry["page_reads"].get(cause, 0) + counts.reads
            if counts.writes:
                entry["page_writes"][cause] = entry["page_writes"].get(cause, 0) + counts.writes
        elif counts.write_bytes:
            dbl = entry.setdefault("doublewrite_bytes", {})
            dbl[cause] = dbl.get(cause, 0) + counts.write_bytes
    return out
