# cython: language_level=3
"""Python-level helpers for internal keys; the inline comparators live in ``dbformat.pxd``."""

from libc.stdint cimport uint64_t

from minidb.coding cimport load_be64, store_be64

MAX_SEQUENCE = (1 << 56) - 1  # sequence numbers take 7 bytes of the trailer
DELETION = TYPE_DELETION  # value type of a tombstone
VALUE = TYPE_VALUE  # value type of a put


def pack_internal_key(bytes user_key, uint64_t seq, int vtype):
    """The internal key ``user_key + BE64(seq << 8 | vtype)``."""
    if seq > MAX_SEQUENCE:
        raise ValueError(f"sequence number {seq} exceeds the 7-byte maximum {MAX_SEQUENCE}")
    if vtype not in (TYPE_DELETION, TYPE_VALUE):
        raise ValueError(f"unknown value type {vtype!r}: 0 (deletion) or 1 (value)")
    cdef unsigned char trailer[8]
    store_be64(trailer, (seq << 8) | <uint64_t>vtype)
    return user_key + (<char*>trailer)[:8]


def seek_key(bytes user_key):
    """The internal key that sorts before every version of ``user_key``: a search starts there."""
    return pack_internal_key(user_key, MAX_SEQUENCE, TYPE_VALUE)


def parse_internal_key(bytes ikey):
    """``(user_key, seq, vtype)`` of an internal key; ValueError if it is shorter than its trailer."""
    cdef Py_ssize_t n = len(ikey)
    if n < TRAILER_SIZE:
        raise ValueError(f"internal key {ikey!r} is shorter than its {TRAILER_SIZE}-byte trailer")
    cdef const unsigned char* p = ikey
    cdef uint64_t t = load_be64(p + n - TRAILER_SIZE)
    return ikey[:n - TRAILER_SIZE], t >> 8, <int>(t & 0xff)


def compare_internal_keys(bytes a, bytes b):
    """-1, 0 or 1: the order of two internal keys (user key ascending, sequence descending)."""
    cdef int r = compare_internal(a, len(a), b, len(b))
    return (r > 0) - (r < 0)
