# cython: language_level=3
"""BlockBuilder: builds one block of sorted key/value entries, as LevelDB's table/block_builder.cc.

Keys are prefix-compressed: each entry stores how many bytes it shares with the previous key, then only the rest::

    entry   := varint32 shared | varint32 non_shared | varint32 value_len | key[shared:] | value
    block   := entry* | restart offsets (fixed32 each) | fixed32 number of restarts

Every ``restart_interval`` entries (16 for data blocks, 1 for index blocks) an entry stores its whole key
(``shared == 0``) and its offset goes to the restart array: a reader binary-searches the restart points, then scans
at most ``restart_interval`` entries. A larger interval compresses more and searches slower.

Keys must be added in increasing order; the builder does not check it (the table builder's callers guarantee it,
and the reader's iterator would see a corrupt order as wrong answers, not a crash).
"""

from libc.stdint cimport uint32_t
from libc.stdlib cimport free, realloc

from .buffer cimport Buffer, buf_append, buf_append_varint, buf_assign, buf_free, buf_init, buf_reserve
from minidb.coding cimport store_le32


cdef class BlockBuilder:
    """Accumulates sorted entries into one block; ``finish`` returns its bytes. See the module docstring."""

    def __cinit__(self, int restart_interval=16):
        if restart_interval < 1:
            raise ValueError(f"bad block restart_interval {restart_interval!r}: must be >= 1")
        self.restart_interval = restart_interval
        buf_init(&self.buf)
        buf_init(&self.last_key)
        self.restarts = NULL
        self.restarts_cap = 0
        self.reset()

    def __dealloc__(self):
        buf_free(&self.buf)
        buf_free(&self.last_key)
        free(self.restarts)

    cdef void reset(self) noexcept:
        self.buf.len = 0
        self.last_key.len = 0
        self.nrestarts = 0
        self.counter = 0
        self.entries = 0

    cdef int add(self, const unsigned char* key, Py_ssize_t klen, const unsigned char* val,
                 Py_ssize_t vlen) except -1:
        """Append one entry (keys in increasing order)."""
        cdef Py_ssize_t shared = 0
        cdef Py_ssize_t limit
        cdef uint32_t* grown
        if self.counter == self.restart_interval or self.entries == 0:
            if self.nrestarts == self.restarts_cap:
                self.restarts_cap = self.restarts_cap * 2 if self.restarts_cap else 64
                grown = <uint32_t*>realloc(self.restarts, self.restarts_cap * sizeof(uint32_t))
                if grown == NULL:
                    raise MemoryError("block builder: cannot grow the restart array")
                self.restarts = grown
            self.restarts[self.nrestarts] = <uint32_t>self.buf.len
            self.nrestarts += 1
            self.counter = 0
        else:
            limit = klen if klen < self.last_key.len else self.last_key.len
            while shared < limit and self.last_key.data[shared] == key[shared]:
                shared += 1
        buf_reserve(&self.buf, 15 + klen - shared + vlen)
        buf_append_varint(&self.buf, shared)
        buf_append_varint(&self.buf, klen - shared)
        buf_append_varint(&self.buf, vlen)
        buf_append(&self.buf, key + shared, klen - shared)
        buf_append(&self.buf, val, vlen)
        buf_assign(&self.last_key, key, klen)
        self.counter += 1
        self.entries += 1
        return 0

    cdef Py_ssize_t size_estimate(self) noexcept:
        """Bytes the block would have if finished now."""
        return self.buf.len + 4 * (self.nrestarts + 1)

    cdef int seal(self) except -1:
        """Append the restart array and count to the entries: ``buf`` then holds the finished block, until
        ``reset``."""
        cdef int i
        cdef Py_ssize_t base
        if self.nrestarts == 0:  # an empty block still has one restart point, at offset 0
            self.restarts_cap = max(self.restarts_cap, 1)
            self.restarts = <uint32_t*>realloc(self.restarts, self.restarts_cap * sizeof(uint32_t))
            if self.restarts == NULL:
                raise MemoryError()
            self.restarts[0] = 0
            self.nrestarts = 1
        buf_reserve(&self.buf, 4 * (self.nrestarts + 1))
        base = self.buf.len
        for i in range(self.nrestarts):
            store_le32(self.buf.data + base + 4 * i, self.restarts[i])
        store_le32(self.buf.data + base + 4 * self.nrestarts, <uint32_t>self.nrestarts)
        self.buf.len = base + 4 * (self.nrestarts + 1)
        return 0

    cdef bytes finish(self):
        """The block's bytes (entries, restart array, restart count); call ``reset`` before reusing."""
        self.seal()
        return (<const char*>self.buf.data)[:self.buf.len]

    # -- Python access, for tests and for the small blocks built in Python (properties) -----------------------
    def add_entry(self, bytes key, bytes value):
        """Append ``key`` -> ``value`` (keys in increasing order)."""
        self.add(key, len(key), value, len(value))

    def current_size(self):
        """Bytes the block would have if finished now."""
        return self.size_estimate()

    def finish_block(self):
        """The finished block's bytes; the builder is reset for the next block."""
        data = self.finish()
        self.reset()
        return data

    @property
    def empty(self):
        """True if no entry was added since the last reset."""
        return self.entries == 0
