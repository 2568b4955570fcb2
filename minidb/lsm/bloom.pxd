# cython: language_level=3
from libc.stdint cimport uint32_t


cdef uint32_t bloom_hash(const unsigned char* data, Py_ssize_t n) noexcept nogil


cdef class BloomFilterPolicy:
    cdef readonly int bits_per_key  # filter bits spent per key
    cdef readonly int k  # probes per key: bits_per_key * ln 2, clamped to 1..30

    cdef bytes build(self, const uint32_t* hashes, Py_ssize_t n)
    cdef bint may_match(self, const unsigned char* key, Py_ssize_t n, const unsigned char* filt,
                        Py_ssize_t flen) noexcept
