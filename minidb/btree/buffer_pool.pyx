"""The buffer pool: page frames in memory, an LRU list with midpoint insertion, and the flush list.

InnoDB's buffer pool, reduced to what changes the IO an engine does:

* **Frames.** ``capacity = buffer_pool_bytes // page_size`` frames. ``table[page_no]`` finds a page's frame.
* **LRU with midpoint insertion.** The LRU list runs from the *young* head to the tail, where victims are taken.
  Its last 37% is the *old* sublist (``innodb_old_blocks_pct = 37``). A page read from disk enters at the head
  of the old sublist (just behind its first frame, as InnoDB does), not at the head of the list, and moves to the
  young head only when it is accessed again by a *later* client operation (InnoDB uses
  ``innodb_old_blocks_time``, one second, for "later"). A page read once by a scan therefore leaves soon and
  cannot push the hot pages out. A young page moves back to the head only when it has drifted out of the first
  quarter of the young sublist (InnoDB's ``buf_page_peek_if_young``), so that hot pages do not churn the list on
  every access.
* **Flush list.** Dirty frames ordered by ``oldest_lsn``, the start LSN of the first change their tablespace copy
  lacks. A checkpoint writes from its old end: the checkpoint LSN can advance to the oldest remaining ``oldest_lsn``.
* **Pins.** A frame is not evictable while an operation uses it (``fix > 0``) or while the open mini-transaction
  has changed it: its redo is not in the log yet, so the write-ahead rule forbids writing it.

The pool only keeps lists and counters; reading, writing and choosing what to write is ``pager.py``'s job.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE

from .page cimport OFF_LSN, wr64

OLD_PCT = 37  # innodb_old_blocks_pct: the old sublist is 37% of the LRU list


cdef class Frame:
    """One page in memory and its bookkeeping (see the field comments in buffer_pool.pxd)."""

    def __cinit__(self, uint32_t page_no, bytearray buf):
        self.page_no = page_no
        self.buf = buf
        self.data = <uchar*> PyByteArray_AS_STRING(buf)

    def __repr__(self):
        state = "dirty" if self.dirty else "clean"
        return f"<Frame page={self.page_no} {state} fix={self.fix} {'old' if self.old else 'young'}>"


cdef class BufferPool:
    """Frames, LRU list and flush list; see the module docstring."""

    def __cinit__(self, int page_size, int capacity):
        if capacity < 1:
            raise ValueError(f"a buffer pool needs at least one frame, got {capacity}")
        self.page_size = page_size
        self.capacity = capacity
        self.table = []

    # -- lookup ----------------------------------------------------------------------------------------------------
    cdef Frame lookup(self, uint32_t page_no):
        """The frame holding ``page_no`` (touched in the LRU, counted as a hit), or None.

        A miss is counted by whoever reads the page in (``reads``); the lookup that follows the read is the same
        access, so it is not counted again as a hit.
        """
        cdef object obj
        cdef Frame f
        if page_no < <uint32_t> PyList_GET_SIZE(self.table):
            obj = <object> PyList_GET_ITEM(self.table, page_no)
            if obj is not None:
                f = <Frame> obj
                if f.uncounted:
                    f.uncounted = False
                else:
                    self.hits += 1
                self.touch(f)
                return f
        return None

    def get(self, uint32_t page_no):
        """The frame holding ``page_no``, counted as a hit and touched in the LRU; None if absent."""
        return self.lookup(page_no)

    def peek(self, uint32_t page_no):
        """The frame holding ``page_no`` or None, without counting or touching anything."""
        if page_no < len(self.table):
            return self.table[page_no]
        return None

    def __contains__(self, uint32_t page_no):
        return self.peek(page_no) is not None

    def __len__(self):
        return self.n_lru

    @property
    def full(self):
        """True when every frame is in use: a new page needs an eviction first."""
        return self.n_lru >= self.capacity

    def frames(self):
        """Every frame, from the LRU head (young) to the tail."""
        out = []
        cdef Frame f = self.lru_head
        while f is not None:
            out.append(f)
            f = f.lru_next
        return out

    # -- LRU list --------------------------------------------------------------------------------------------------
    cdef void _unlink(self, Frame f):
        if f.lru_prev is not None:
            f.lru_prev.lru_next = f.lru_next
        else:
            self.lru_head = f.lru_next
        if f.lru_next is not None:
            f.lru_next.lru_prev = f.lru_prev
        else:
            self.lru_tail = f.lru_prev
        if f is self.old_head:
            self.old_head = f.lru_next
        if f.old:
            self.n_old -= 1
        f.lru_prev = f.lru_next = None
        self.n_lru -= 1

    cdef void _push_head(self, Frame f):
        f.lru_prev = None
        f.lru_next = self.lru_head
        if self.lru_head is not None:
            self.lru_head.lru_prev = f
        self.lru_head = f
        if self.lru_tail is None:
            self.lru_tail = f
        f.old = False
        self.n_lru += 1
        self.young_clock += 1
        f.young_stamp = self.young_clock

    cdef void _balance(self):
        """Move the midpoint so that the old sublist is OLD_PCT of the list (at least one frame)."""
        cdef int target = self.n_lru * OLD_PCT // 100
        if target < 1 and self.n_lru > 0:
            target = 1
        while self.n_old > target and self.old_head is not None:
            self.old_head.old = False
            self.old_head = self.old_head.lru_next
            self.n_old -= 1
        while self.n_old < target:
            if self.old_head is None:
                self.old_head = self.lru_tail
            elif self.old_head.lru_prev is not None:
                self.old_head = self.old_head.lru_prev
            else:
                break
            self.old_head.old = True
            self.n_old += 1

    cdef void touch(self, Frame f):
        """An access to a frame already in the pool: maybe promote it (see the module docstring)."""
        if f.old:
            if f.loaded_op == self.op:
                self.not_made_young += 1
                return
            self._unlink(f)
            self._push_head(f)
            self.made_young += 1
            self._balance()
        elif self.young_clock - f.young_stamp > <uint64_t> ((self.n_lru - self.n_old) // 4):
            self._unlink(f)
            self._push_head(f)
            self._balance()

    def add(self, uint32_t page_no, bytearray buf, bint read=True):
        """Put a page at the midpoint: one just ``read`` from disk (a miss) or a new one; the pool must not be full."""
        if self.n_lru >= self.capacity:
            raise RuntimeError(f"buffer pool full ({self.capacity} frames): evict before adding page {page_no}")
        if len(buf) != self.page_size:
            raise ValueError(f"page {page_no}: frame of {len(buf)} bytes in a pool of {self.page_size}-byte pages")
        while len(self.table) <= page_no:
            self.table.append(None)
        if self.table[page_no] is not None:
            raise RuntimeError(f"page {page_no} is already in the buffer pool")
        cdef Frame f = Frame(page_no, buf)
        f.loaded_op = self.op
        if read:
            self.reads += 1
            f.uncounted = True
        # Insert just behind the old head (InnoDB inserts after LRU_old): in the old sublist even when the
        # midpoint then moves one frame toward the tail to keep the sublist at OLD_PCT.
        if self.old_head is None:
            f.lru_prev = self.lru_tail
            f.lru_next = None
            if self.lru_tail is not None:
                self.lru_tail.lru_next = f
            else:
                self.lru_head = f
            self.lru_tail = f
            self.old_head = f
        else:
            f.lru_prev = self.old_head
            f.lru_next = self.old_head.lru_next
            if self.old_head.lru_next is not None:
                self.old_head.lru_next.lru_prev = f
            else:
                self.lru_tail = f
            self.old_head.lru_next = f
        f.old = True
        self.n_old += 1
        self.n_lru += 1
        self._balance()
        self.table[page_no] = f
        return f

    def pinned(self, Frame f):
        """True if the open mini-transaction changed ``f``: its redo is not in the log yet."""
        return f.mtr != 0 and f.mtr == self.mtr

    def evictable(self, Frame f):
        """True if ``f`` may leave the pool once clean: no operation uses it and the open mtr did not change it."""
        return f.fix == 0 and not (f.mtr != 0 and f.mtr == self.mtr)

    def victims(self, int limit):
        """Up to ``limit`` evictable frames, starting at the LRU tail (dirty ones included)."""
        out = []
        cdef Frame f = self.lru_tail
        while f is not None and len(out) < limit:
            if f.fix == 0 and not (f.mtr != 0 and f.mtr == self.mtr):
                out.append(f)
            f = f.lru_prev
        return out

    def clean_victim(self, int limit):
        """The first clean frame among ``victims(limit)``, or None: the frame eviction can take without a write.
        (Most misses find one at the tail: this spares them building the list of ``victims``.)"""
        cdef Frame f = self.lru_tail
        cdef int seen = 0
        while f is not None and seen < limit:
            if f.fix == 0 and not (f.mtr != 0 and f.mtr == self.mtr):
                if not f.dirty:
                    return f
                seen += 1
            f = f.lru_prev
        return None

    def tail(self, int depth):
        """The last ``depth`` frames of the LRU list, tail first (what the page cleaner's LRU scan looks at)."""
        out = []
        cdef Frame f = self.lru_tail
        while f is not None and len(out) < depth:
            out.append(f)
            f = f.lru_prev
        return out

    def evict(self, Frame f):
        """Remove a clean, evictable frame from the pool."""
        if f.dirty:
            raise RuntimeError(f"cannot evict dirty page {f.page_no}: write it first")
        if not self.evictable(f):
            raise RuntimeError(f"cannot evict page {f.page_no}: it is in use")
        self._unlink(f)
        self._balance()
        self.table[f.page_no] = None
        self.evictions += 1

    # -- mini-transactions and the flush list ----------------------------------------------------------------------
    def begin(self, uint64_t seq):
        """A mini-transaction with sequence number ``seq`` opens: frames it changes are pinned until it ends."""
        self.mtr = seq

    def end(self):
        """The open mini-transaction ended (committed or abandoned): its frames are unpinned."""
        self.mtr = 0

    def commit(self, list frames, uint64_t start_lsn, uint64_t end_lsn):
        """A redo group [start_lsn, end_lsn) covering changes to ``frames`` is in the log: stamp and dirty them."""
        cdef Frame f
        cdef Py_ssize_t i
        for i in range(PyList_GET_SIZE(frames)):
            f = <Frame> PyList_GET_ITEM(frames, i)
            wr64(f.data + OFF_LSN, end_lsn)
            if not f.dirty:
                f.dirty = True
                f.oldest_lsn = start_lsn
                f.fl_prev = None
                f.fl_next = self.fl_newest
                if self.fl_newest is not None:
                    self.fl_newest.fl_prev = f
                self.fl_newest = f
                if self.fl_oldest is None:
                    self.fl_oldest = f
                self.n_dirty += 1

    cdef void _flush_unlink(self, Frame f):
        if f.fl_prev is not None:
            f.fl_prev.fl_next = f.fl_next
        else:
            self.fl_newest = f.fl_next
        if f.fl_next is not None:
            f.fl_next.fl_prev = f.fl_prev
        else:
            self.fl_oldest = f.fl_prev
        f.fl_prev = f.fl_next = None
        f.dirty = False
        self.n_dirty -= 1

    def cleaned(self, Frame f):
        """The frame was written to the tablespace: it is clean and leaves the flush list."""
        if f.dirty:
            self._flush_unlink(f)

    def oldest_dirty(self, int limit, uint64_t below=0xFFFFFFFFFFFFFFFF):
        """Up to ``limit`` dirty, unpinned frames with the smallest oldest_lsn (< ``below``), oldest first."""
        out = []
        cdef Frame f = self.fl_oldest
        while f is not None and len(out) < limit and f.oldest_lsn < below:
            if not (f.mtr != 0 and f.mtr == self.mtr):
                out.append(f)
            f = f.fl_prev
        return out

    @property
    def oldest_lsn(self):
        """oldest_lsn of the oldest dirty frame, or None if nothing is dirty."""
        return None if self.fl_oldest is None else self.fl_oldest.oldest_lsn

    @property
    def young_count(self):
        """Frames in the young sublist."""
        return self.n_lru - self.n_old

    @property
    def old_count(self):
        """Frames in the old sublist."""
        return self.n_old

    @property
    def dirty_count(self):
        """Dirty frames."""
        return self.n_dirty

    def counters(self):
        """Hit/miss and LRU counters as a dict (InnoDB's Innodb_buffer_pool_* status names in spirit)."""
        requests = self.hits + self.reads
        return {
            "frames": self.capacity,
            "pages": self.n_lru,
            "young": self.n_lru - self.n_old,
            "old": self.n_old,
            "dirty": self.n_dirty,
            "read_requests": requests,
            "hits": self.hits,
            "reads": self.reads,
            "hit_rate": self.hits / requests if requests else 1.0,
            "evictions": self.evictions,
            "made_young": self.made_young,
            "not_made_young": self.not_made_young,
        }
