# cython: language_level=3
from libc.stdint cimport uint32_t

from .buffer cimport Buffer
from .iterator cimport InternalIterator


cdef class Block:
    cdef readonly bytes data  # the block's bytes (entries, restart array, count)
    cdef const unsigned char* ptr  # data's buffer
    cdef Py_ssize_t restart_offset  # where the restart array starts (= end of the entries)
    cdef uint32_t nrestarts  # restart points
    cdef readonly object origin  # where the block came from, for error messages ("000012.sst offset 4096")
    cdef readonly bint internal_keys  # True: keys are internal keys (data and index blocks); False: plain bytes

    cdef uint32_t restart_point(self, uint32_t i) noexcept
    cdef int validate(self) except -1


cdef class BlockIter(InternalIterator):
    cdef Block block  # the block iterated (kept alive: key and value pointers point into it)
    cdef Buffer keybuf  # the current key, rebuilt from its shared prefix and its own bytes
    cdef Py_ssize_t current  # offset of the current entry, or restart_offset when not valid
    cdef Py_ssize_t next_offset  # offset of the entry after the current one
    cdef uint32_t restart_index  # restart point at or before the current entry
    cdef readonly unsigned long long compares  # key comparisons made by seeks (CPU work)

    cdef int aim(self, Block block) except -1
    cdef int parse_at(self, Py_ssize_t offset) except -1
    cdef int compare(self, const unsigned char* a, Py_ssize_t an, const unsigned char* b, Py_ssize_t bn) noexcept
    cdef int seek_to_restart(self, uint32_t index) except -1
