from libc.stdint cimport uint32_t, uint64_t

from .page cimport uchar


cdef class Frame:
    cdef readonly uint32_t page_no     # which page the frame holds
    cdef readonly bytearray buf        # the page's bytes (never resized, so ``data`` stays valid)
    cdef uchar* data                   # buf's bytes, for C
    cdef public bint dirty             # the frame holds changes the tablespace copy lacks
    cdef public uint64_t oldest_lsn    # start LSN of the first redo group the tablespace copy lacks
    cdef public int fix                # operations using the frame right now (buffer-fix); > 0: not evictable
    cdef public uint64_t mtr           # sequence number of the last mini-transaction that changed it
    cdef public bint old               # in the old sublist of the LRU list
    cdef Frame lru_prev, lru_next      # LRU list neighbours (prev is toward the young head)
    cdef Frame fl_prev, fl_next        # flush list neighbours (prev is toward the newest)
    cdef uint64_t loaded_op            # client operation during which the page was read in
    cdef uint64_t young_stamp          # pool.young_clock when the frame last moved to the LRU head
    cdef public bint uncounted         # just read in: its next lookup is the access that missed, not a hit
    cdef public object zip             # the compressed copy (page_zip.PageZip) in a compressed tablespace, or None
    cdef unsigned int changes          # changes the B+tree's fast path made to the page (tree_core.pyx: a leaf
                                       # search made ahead holds while this has not moved)


cdef class BufferPool:
    cdef readonly int page_size        # bytes per page
    cdef public int capacity           # frames the pool may hold (the pager lowers it for compressed copies)
    cdef public list table             # page number -> Frame or None
    cdef Frame lru_head, lru_tail      # most and least recently used
    cdef Frame old_head                # first (youngest) frame of the old sublist
    cdef readonly int n_lru            # frames in the pool
    cdef readonly int n_old            # frames in the old sublist
    cdef Frame fl_newest, fl_oldest    # flush list: dirty frames ordered by oldest_lsn
    cdef readonly int n_dirty          # dirty frames
    cdef public uint64_t op            # number of the current client operation (midpoint promotion)
    cdef public uint64_t mtr           # sequence number of the open mini-transaction, 0 if none
    cdef uint64_t young_clock          # moves to the LRU head so far
    cdef readonly uint64_t hits        # page accesses served from the pool
    cdef public uint64_t reads         # page accesses that had to read the page (misses)
    cdef readonly uint64_t evictions   # frames freed to make room
    cdef readonly uint64_t made_young  # old frames promoted to the young sublist
    cdef readonly uint64_t not_made_young  # old frames accessed again within the operation that read them

    cdef Frame lookup(self, uint32_t page_no)
    cdef void touch(self, Frame f)
    cdef void _unlink(self, Frame f)
    cdef void _push_head(self, Frame f)
    cdef void _balance(self)
    cdef void _flush_unlink(self, Frame f)
