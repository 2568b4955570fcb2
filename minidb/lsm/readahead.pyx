# cython: language_level=3
"""Readahead: a compaction's sequential block reads, served from chunks read ahead of need.

A compaction reads each input file from its first block to its last, so instead of one device read per 4 KiB block
it reads ``size`` bytes at a time (RocksDB's ``compaction_readahead_size``, 2 MiB) and cuts the blocks out of that
chunk; compaction reads bypass the block cache. The table iterator calls ``block`` once per data block, millions of
times in a big compaction, so the common case (a block stored uncompressed, its crc right) is checked in C where the
block lies in the chunk, and only its own bytes are copied out. Anything else (a compressed block, a bad crc, a
handle out of bounds, a short read) takes the table reader's general path, which decompresses it, counts the work
and raises the errors.
"""

from libc.stdint cimport uint64_t

from minidb.coding cimport load_le32
from .block cimport Block
from .format cimport block_crc

from .format import BLOCK_TRAILER_SIZE, FOOTER_SIZE

cdef uint64_t TRAILER = BLOCK_TRAILER_SIZE  # the format's sizes as C numbers, so a block is checked without Python
cdef uint64_t FOOTER = FOOTER_SIZE


cdef class Readahead:
    """Serves the data blocks of ``table`` (a TableReader) from chunks of ``size`` bytes read ahead of need."""

    def __cinit__(self, table, Py_ssize_t size):
        self.table = table
        self.file = table.file
        self.name = table.name
        self.work = table.work
        self.file_size = table.size
        self.size = max(size, 1)
        self.start = 0
        self.buf = b""

    cdef Block block(self, uint64_t offset, uint64_t size):
        """The data block at ``offset`` of stored size ``size``: from the chunk, or after reading the next one."""
        cdef uint64_t blocks_end = self.file_size - FOOTER if self.file_size >= FOOTER else 0
        cdef uint64_t need, rel
        cdef const unsigned char* p
        if offset > blocks_end or size > blocks_end or offset + size + TRAILER > blocks_end:
            self.table.check_handle(offset, size)  # raises CorruptionError
        need = size + TRAILER
        if not (self.start <= offset and offset + need <= self.start + <uint64_t>len(self.buf)):
            self.buf = self.file.read(offset, min(max(<uint64_t>self.size, need), self.file_size - offset))
            self.start = offset
        rel = offset - self.start
        origin = f"{self.name} offset {offset}"
        self.work["page_visits"] += 1
        if rel + need <= <uint64_t>len(self.buf):
            p = <const unsigned char*>self.buf + rel
            if p[size] == 0 and block_crc(p, size, 0) == load_le32(p + size + 1):  # stored as is, intact
                return Block(self.buf[rel:rel + size], origin)
        return Block(self.table.decoded(self.buf[rel:rel + need], origin), origin)

    def __call__(self, uint64_t offset, uint64_t size):
        """``block`` for Python callers."""
        return self.block(offset, size)
