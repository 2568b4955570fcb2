# cython: language_level=3
from libc.stdint cimport uint32_t, uint64_t

from .block_builder cimport BlockBuilder
from .bloom cimport BloomFilterPolicy
from .buffer cimport Buffer


cdef class TableBuilder:
    cdef object file  # the device file written
    cdef str origin  # file name, for messages
    cdef Buffer out  # bytes produced but not yet appended to the file
    cdef readonly uint64_t offset  # bytes produced so far (appended or buffered): the next block's offset
    cdef Py_ssize_t write_buffer_size  # append to the file whenever this many bytes are buffered
    cdef BlockBuilder data_block  # the data block being filled
    cdef BlockBuilder index_block  # one entry per finished data block
    cdef Buffer last_key  # the last key added
    cdef Py_ssize_t block_size  # target size of a data block
    cdef int code  # compression type code for data blocks
    cdef BloomFilterPolicy bloom  # the built-in filter's fast path, or None
    cdef object policy  # the filter policy (built-in or a plug-in), or None for no filter
    cdef list filter_keys  # a plug-in policy's keys, collected for create_filter
    cdef uint32_t* hashes  # the built-in policy's key hashes
    cdef Py_ssize_t nhashes  # hashes collected
    cdef Py_ssize_t hashes_cap  # hashes allocated
    cdef Buffer last_user_key  # user key of the last entry, to give each user key one filter entry
    cdef readonly dict props  # properties given by the caller (level, column family, ...), extended by finish
    cdef readonly uint64_t num_entries  # entries added
    cdef readonly uint64_t num_deletions  # tombstones added
    cdef readonly uint64_t raw_key_size  # bytes of internal keys added
    cdef readonly uint64_t raw_value_size  # bytes of values added
    cdef readonly uint64_t num_data_blocks  # data blocks written
    cdef readonly uint64_t data_size  # bytes of data blocks written, trailers included
    cdef readonly bytes smallest  # first internal key added
    cdef readonly uint64_t smallest_seq  # smallest sequence number added
    cdef readonly uint64_t largest_seq  # largest sequence number added
    cdef readonly bint finished  # True after finish()
    cdef readonly dict compressed  # codec name -> raw bytes given to it (CPU work)

    cdef int add(self, const unsigned char* key, Py_ssize_t klen, const unsigned char* val,
                 Py_ssize_t vlen) except -1
    cdef int flush_data_block(self) except -1
    cdef uint64_t estimated_size(self) noexcept
    cdef bytes write_block(self, bytes raw, int code)
    cdef Py_ssize_t append_block_bytes(self, bytes raw, int code, unsigned char* handle) except -1
    cdef Py_ssize_t append_block(self, const unsigned char* stored, Py_ssize_t n, unsigned char code,
                                 unsigned char* handle) except -1
    cdef int emit(self, const unsigned char* data, Py_ssize_t n) except -1
    cdef int drain(self) except -1
    cdef dict properties(self)
