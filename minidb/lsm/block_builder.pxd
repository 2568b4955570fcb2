# cython: language_level=3
from libc.stdint cimport uint32_t

from .buffer cimport Buffer


cdef class BlockBuilder:
    cdef Buffer buf  # the entries so far
    cdef Buffer last_key  # the previous key, for prefix compression
    cdef uint32_t* restarts  # offsets of the restart points in buf
    cdef int nrestarts  # restart points so far
    cdef int restarts_cap  # slots allocated in restarts
    cdef int counter  # entries since the last restart point
    cdef readonly int restart_interval  # entries between restart points
    cdef readonly int entries  # entries added since the last reset

    cdef int add(self, const unsigned char* key, Py_ssize_t klen, const unsigned char* val,
                 Py_ssize_t vlen) except -1
    cdef Py_ssize_t size_estimate(self) noexcept
    cdef int seal(self) except -1
    cdef bytes finish(self)
    cdef void reset(self) noexcept
