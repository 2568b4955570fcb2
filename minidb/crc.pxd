from libc.stdint cimport uint32_t


cdef uint32_t crc32_update(uint32_t crc, const unsigned char* p, Py_ssize_t n) noexcept nogil
