# cython: language_level=3
"""Internal keys (RocksDB's db/dbformat.h): what the LSM stores for each version of a user key.

An internal key is the user key followed by an 8-byte trailer: a 7-byte sequence number and a 1-byte value type,
stored big-endian as the 64-bit number ``seq << 8 | type``. Internal keys sort by user key ascending (``memcmp``,
shorter first on a common prefix), then by trailer *descending*, so the newest version of a key comes first and a
search for ``(user_key, MAX_SEQUENCE)`` lands on it.
"""

from libc.stdint cimport uint64_t

from minidb.coding cimport load_be64

cdef enum:
    TYPE_DELETION = 0  # a tombstone: the key was deleted at this sequence number
    TYPE_VALUE = 1  # a put: the entry holds the key's value
    TRAILER_SIZE = 8  # bytes after the user key: sequence number (7) and type (1)


cdef inline uint64_t max_sequence() noexcept nogil:
    """The largest sequence number (2**56 - 1): a search for (user_key, max_sequence()) finds its newest version."""
    return (<uint64_t>1 << 56) - 1


cdef inline uint64_t key_word(const unsigned char* p) noexcept nogil:
    """The 8 bytes at ``p`` as a big-endian number (one load and a byte swap): comparing two such words compares
    the 8 bytes as memcmp would."""
    return load_be64(p)


cdef inline int compare_user(const unsigned char* a, Py_ssize_t an, const unsigned char* b,
                             Py_ssize_t bn) noexcept nogil:
    """memcmp order of two byte strings, the shorter first on a common prefix: <0, 0 or >0.

    Keys here are short (a 4-byte keyspace id and a few fields), so instead of calling the C library's memcmp
    (a call per comparison, tens of millions per compaction) it compares 8 bytes at a time as big-endian numbers,
    whose order is the bytes' order; the last 8 bytes of the common prefix are compared in one load that may
    overlap bytes already found equal."""
    cdef Py_ssize_t n = an if an < bn else bn
    cdef Py_ssize_t i = 0
    cdef uint64_t x, y
    if n >= 8:
        while i + 8 < n:
            x = key_word(a + i)
            y = key_word(b + i)
            if x != y:
                return -1 if x < y else 1
            i += 8
        x = key_word(a + n - 8)
        y = key_word(b + n - 8)
        if x != y:
            return -1 if x < y else 1
    else:
        while i < n:
            if a[i] != b[i]:
                return -1 if a[i] < b[i] else 1
            i += 1
    return -1 if an < bn else (1 if an > bn else 0)


cdef inline int compare_internal(const unsigned char* a, Py_ssize_t an, const unsigned char* b,
                                 Py_ssize_t bn) noexcept nogil:
    """Order of two internal keys: user key ascending, then trailer (sequence, type) descending."""
    cdef int r = compare_user(a, an - TRAILER_SIZE, b, bn - TRAILER_SIZE)
    cdef uint64_t ta, tb
    if r != 0:
        return r
    ta = key_word(a + an - TRAILER_SIZE)
    tb = key_word(b + bn - TRAILER_SIZE)
    return -1 if ta > tb else (1 if ta < tb else 0)
