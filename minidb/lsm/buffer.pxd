# cython: language_level=3
"""A growable byte buffer in C memory, for the hot loops that build blocks, keys and batches without Python objects.

``Buffer`` is a plain struct: ``buf_init`` before use, ``buf_free`` after (owners do it in ``__dealloc__``).
Appending may move ``data``, so never keep a pointer into it across an append.
"""

from libc.stdlib cimport free, realloc
from libc.string cimport memcpy

from minidb.coding cimport put_varint64


cdef struct Buffer:
    unsigned char* data  # the bytes, or NULL before the first append
    Py_ssize_t len  # bytes in use
    Py_ssize_t cap  # bytes allocated


cdef inline void buf_init(Buffer* b) noexcept nogil:
    b.data = NULL
    b.len = 0
    b.cap = 0


cdef inline void buf_free(Buffer* b) noexcept nogil:
    free(b.data)
    b.data = NULL
    b.len = 0
    b.cap = 0


cdef inline int buf_reserve(Buffer* b, Py_ssize_t extra) except -1 nogil:
    """Make room for ``extra`` more bytes (doubling, so n appends cost O(n))."""
    cdef Py_ssize_t need = b.len + extra
    cdef Py_ssize_t cap
    cdef unsigned char* p
    if need <= b.cap:
        return 0
    cap = b.cap * 2 if b.cap else 256
    while cap < need:
        cap *= 2
    p = <unsigned char*>realloc(b.data, cap)
    if p == NULL:
        with gil:
            raise MemoryError(f"cannot grow a buffer to {cap} bytes")
    b.data = p
    b.cap = cap
    return 0


cdef inline int buf_append(Buffer* b, const unsigned char* src, Py_ssize_t n) except -1 nogil:
    if n <= 0:
        return 0
    buf_reserve(b, n)
    if n:
        memcpy(b.data + b.len, src, n)
    b.len += n
    return 0


cdef inline int buf_append_varint(Buffer* b, unsigned long long v) except -1 nogil:
    buf_reserve(b, 10)
    b.len += put_varint64(b.data + b.len, v)
    return 0


cdef inline int buf_assign(Buffer* b, const unsigned char* src, Py_ssize_t n) except -1 nogil:
    b.len = 0
    return buf_append(b, src, n)
