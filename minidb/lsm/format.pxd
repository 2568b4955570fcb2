# cython: language_level=3
from libc.stdint cimport uint32_t, uint64_t


cdef int decode_handle(const unsigned char* p, Py_ssize_t n, uint64_t* offset, uint64_t* size,
                       object origin) except -1
cdef uint32_t block_crc(const unsigned char* stored, Py_ssize_t n, unsigned char code) noexcept nogil
