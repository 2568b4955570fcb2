# cython: language_level=3
"""The client's view of a scan (RocksDB's db/db_iter.cc): newest live version of each key, in key order.

The merging iterator below yields every version of every key, newest first for equal user keys, tombstones
included. A client must see, for each user key, only its newest version, and nothing for a key whose newest
version is a tombstone. ``user_entries`` does that filtering in C and yields ``(key, value)`` pairs with the
keyspace prefix stripped, from ``start`` up to (not including) ``end``.
"""

from .buffer cimport Buffer, buf_assign, buf_free, buf_init
from .dbformat cimport TRAILER_SIZE, TYPE_DELETION, compare_user
from .iterator cimport InternalIterator


def user_entries(InternalIterator it, bytes start, bytes end, Py_ssize_t strip):
    """Yield ``(user_key[strip:], value)`` for live keys in ``[start, end)``; ``start`` is an internal key."""
    cdef Buffer prev
    cdef bint have_prev = False
    cdef Py_ssize_t ulen
    buf_init(&prev)
    try:
        it.seek(start, len(start))
        while it.valid:
            ulen = it.klen - TRAILER_SIZE
            if compare_user(it.key, ulen, end, len(end)) >= 0:
                break
            if have_prev and compare_user(prev.data, prev.len, it.key, ulen) == 0:
                it.next()  # an older version of a key already decided
                continue
            buf_assign(&prev, it.key, ulen)
            have_prev = True
            if it.key[it.klen - 1] == TYPE_DELETION:
                it.next()
                continue
            item = ((<const char*>it.key)[strip:ulen], (<const char*>it.val)[:it.vlen])
            it.next()
            yield item
    finally:
        buf_free(&prev)
