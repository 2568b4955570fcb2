# cython: language_level=3
"""A growable byte buffer in C memory, for the hot loops that build blocks, keys and batches without Python objects.

``Buffer`` is a plain struct: ``buf_init`` before use, ``buf_free`` after (owners do it in ``__dealloc__``).
Appending may move ``data``, so never keep a pointer into it across an append.

The hot loops append short keys (20-30 bytes) tens of millions of times, so an append copies up to 32 bytes with a
few 8-byte moves the compiler inlines, and leaves longer copies (values, blocks) to the C library's ``memcpy``.
"""

from libc.stdint cimport uint64_t
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


cdef inline int buf_grow(Buffer* b, Py_ssize_t need) except -1 nogil:
    """Reallocate to the first doubling of the capacity that holds ``need`` bytes."""
    cdef Py_ssize_t cap = b.cap * 2 if b.cap else 256
    cdef unsigned char* p
    while cap < need:
        cap *= 2
    p = <unsigned char*>realloc(b.data, cap)
    if p == NULL:
        with gil:
            raise MemoryError(f"cannot grow a buffer to {cap} bytes")
    b.data = p
    b.cap = cap
    return 0


cdef inline int buf_reserve(Buffer* b, Py_ssize_t extra) except -1 nogil:
    """Make room for ``extra`` more bytes (doubling, so n appends cost O(n))."""
    if b.len + extra <= b.cap:
        return 0
    return buf_grow(b, b.len + extra)


cdef inline void copy_bytes(unsigned char* dst, const unsigned char* src, Py_ssize_t n) noexcept nogil:
    """``memcpy(dst, src, n)`` (no overlap); 8 to 32 bytes as 8-byte moves, the last one overlapping the one
    before it when ``n`` is not a multiple of 8."""
    cdef uint64_t w0, w1, w2, w3
    if n < 8 or n > 32:
        memcpy(dst, src, n)
    elif n <= 16:
        memcpy(&w0, src, 8)
        memcpy(&w1, src + n - 8, 8)
        memcpy(dst, &w0, 8)
        memcpy(dst + n - 8, &w1, 8)
    else:
        memcpy(&w0, src, 8)
        memcpy(&w1, src + 8, 8)
        memcpy(&w2, src + n - 16, 8)
        memcpy(&w3, src + n - 8, 8)
        memcpy(dst, &w0, 8)
        memcpy(dst + 8, &w1, 8)
        memcpy(dst + n - 16, &w2, 8)
        memcpy(dst + n - 8, &w3, 8)


cdef inline int buf_append(Buffer* b, const unsigned char* src, Py_ssize_t n) except -1 nogil:
    if n <= 0:
        return 0
    buf_reserve(b, n)
    copy_bytes(b.data + b.len, src, n)
    b.len += n
    return 0


cdef inline int buf_append_varint(Buffer* b, unsigned long long v) except -1 nogil:
    buf_reserve(b, 10)
    b.len += put_varint64(b.data + b.len, v)
    return 0


cdef inline int buf_assign(Buffer* b, const unsigned char* src, Py_ssize_t n) except -1 nogil:
    b.len = 0
    return buf_append(b, src, n)
