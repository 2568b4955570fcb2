# cython: language_level=3
"""TableIter: iterates one SST as a two-level iterator (LevelDB's table/two_level_iterator.cc).

The first level is the table's index block (one entry per data block: its last key -> its handle); the second is
the data block the current index entry points to, loaded through ``loader(offset, size)``: the table reader's
function that goes through the block cache for reads, or a ``Readahead`` for compactions, which it calls at C speed.
Seeking a key seeks the index (the first block whose last key is >= the key), loads that block and seeks inside it.
One BlockIter is re-aimed at each block loaded, rather than a new one made per block.
"""

from libc.stdint cimport uint64_t

from .block cimport Block, BlockIter
from .format cimport decode_handle
from .iterator cimport InternalIterator
from .readahead cimport Readahead


cdef class TableIter(InternalIterator):
    """An InternalIterator over one SST; see the module docstring."""

    cdef BlockIter index_iter  # over the index block
    cdef BlockIter data_iter  # over the current data block, or None
    cdef object loader  # loader(offset, size) -> Block
    cdef Readahead readahead  # the loader when it is a Readahead (called without Python), else None
    cdef object origin  # file name, for messages
    cdef uint64_t block_offset  # offset of the data block loaded, to skip reloading it

    def __cinit__(self, Block index, loader, origin="sst"):
        self.index_iter = BlockIter(index)
        self.data_iter = None
        self.loader = loader
        self.readahead = loader if isinstance(loader, Readahead) else None
        self.origin = origin
        self.block_offset = <uint64_t>-1
        self.valid = False

    cdef int load_block(self) except -1:
        """Load the data block the index iterator points to (if not loaded already)."""
        cdef uint64_t offset, size
        cdef Block block
        decode_handle(self.index_iter.val, self.index_iter.vlen, &offset, &size, self.origin)
        if self.data_iter is None or offset != self.block_offset:
            block = self.readahead.block(offset, size) if self.readahead is not None else self.loader(offset, size)
            if self.data_iter is None:
                self.data_iter = BlockIter(block)
            else:
                self.data_iter.aim(block)
            self.block_offset = offset
        return 0

    cdef int settle(self) except -1:
        """Skip forward past exhausted data blocks; then mirror the data iterator's position."""
        while self.data_iter is None or not self.data_iter.valid:
            if not self.index_iter.valid:
                self.valid = False
                return 0
            if self.data_iter is not None:
                self.index_iter.next()
                if not self.index_iter.valid:
                    self.valid = False
                    return 0
            self.load_block()
            self.data_iter.seek_to_first()
        self.valid = True
        self.key = self.data_iter.key
        self.klen = self.data_iter.klen
        self.val = self.data_iter.val
        self.vlen = self.data_iter.vlen
        return 0

    cdef int seek_to_first(self) except -1:
        self.index_iter.seek_to_first()
        self.data_iter = None
        if self.index_iter.valid:
            self.load_block()
            self.data_iter.seek_to_first()
        return self.settle()

    cdef int seek(self, const unsigned char* target, Py_ssize_t n) except -1:
        self.index_iter.seek(target, n)
        self.data_iter = None
        if self.index_iter.valid:
            self.load_block()
            self.data_iter.seek(target, n)
        return self.settle()

    cdef int next(self) except -1:
        if self.valid:
            self.data_iter.next()
            self.settle()
        return 0
