from libc.stdint cimport uint32_t

from .page cimport uchar

cdef enum:
    # Redo record types (the first byte of a record); see redo_records.pyx and FORMAT.md.
    REC_PUT = 1       # insert or replace a record in a page
    REC_DEL = 2       # delete a record from a page
    REC_INIT = 3      # the page now holds exactly these header fields and records
    REC_CUT = 4       # the page keeps only its first n records (left half of a split)
    REC_FIELD = 5     # bytes written at an offset of the page (links, flags, file-space header fields)
    REC_UNDO = 6      # no page: the value a key of an index had before the open transaction changed it
    REC_UNDONE = 7    # no page: this many more of the open transaction's UNDO records have been rolled back
    REC_CONTINUE = 254  # end of a redo group whose transaction continues in the next group
    REC_COMMIT = 255  # end of a redo group that ends its transaction (or a group that is a transaction alone)


cdef class RedoBuffer:
    cdef bytearray buf               # encoded records
    cdef Py_ssize_t n                # bytes of buf in use
    cdef Py_ssize_t start            # bytes reserved for the group header before the first record
    cdef readonly int nrecords       # records encoded so far

    cdef uchar* reserve(self, Py_ssize_t k) except NULL
    cdef int log_put(self, uint32_t page_no, const uchar* key, int klen, const uchar* val, int vlen) except -1
    cdef int log_del(self, uint32_t page_no, const uchar* key, int klen) except -1
    cdef int log_init_from(self, const uchar* p, int ps) except -1
    cdef int log_cut(self, uint32_t page_no, int keep, int flags) except -1
    cdef int log_field(self, uint32_t page_no, int offset, const uchar* data, int n) except -1
    cdef int log_undo(self, uint32_t index_id, const uchar* key, int klen, const uchar* old, int olen) except -1
    cdef int log_undone(self, uint32_t count) except -1
    cdef int log_from(self, RedoBuffer other) except -1
    cdef void forget_after(self, Py_ssize_t n, int nrecords) noexcept
