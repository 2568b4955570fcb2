# cython: language_level=3
"""The merge loop of flushes and compactions (RocksDB's db/compaction/compaction_iterator.cc, without snapshots).

Input: one sorted stream of internal keys (a MergingIterator over the memtables or input files; for equal user keys
the newest version comes first). Output: SST files, through ``outputs``. For each user key only its newest version
can matter to a reader, because this engine has no snapshots, so the loop

* keeps the first (newest) entry of each user key and drops the older ones (counted in KeyDrop);
* drops a tombstone when no older version of its key can exist below the output level (``drop_tombstones`` for a
  compaction into the bottommost level, otherwise asking ``deeper``, the key ranges of the files below), since then
  it has nothing left to hide (counted in KeyDrop too);
* sets the sequence number of each kept value (a tombstone keeps its own) to 0 when ``zero_sequences`` (a
  compaction into the bottommost level: nothing older lies below, and with no snapshots no reader needs to tell two
  versions apart there), as RocksDB's ``CompactionIterator::PrepareOutput`` does. The trailer then repeats the same
  8 bytes in every entry, which the compressors shrink to almost nothing; the user key, the value and the order are
  unchanged (each user key has one entry, and a newer version of it can only be above, where every read looks
  first);
* cuts a new output file when the current one reaches ``target_file_size`` bytes (0: never). Every entry is the only
  one of its user key, so a cut never splits a key's versions across files.

The loop runs in C over the iterators' pointers: no Python object is made per entry.
"""

from libc.stdint cimport uint64_t

from minidb.coding cimport store_be64

from .buffer cimport Buffer, buf_assign, buf_free, buf_init
from .dbformat cimport TRAILER_SIZE, TYPE_DELETION, TYPE_VALUE, compare_user
from .iterator cimport InternalIterator
from .table_builder cimport TableBuilder


cdef class KeyRanges:
    """User-key ranges of the files in the levels below a compaction's output, asked in increasing key order.

    ``levels`` is a list per level of sorted, non-overlapping ``(smallest user key, largest user key)`` pairs
    (RocksDB's ``KeyNotExistsBeyondOutputLevel`` with its per-level cursors).
    """

    cdef list levels  # per level: list of (lo, hi) bytes pairs
    cdef list cursors  # per level: index of the first range whose hi >= the last key asked

    def __cinit__(self, list levels):
        self.levels = [list(level) for level in levels]
        self.cursors = [0] * len(self.levels)

    cdef bint may_contain(self, const unsigned char* key, Py_ssize_t n) except -1:
        cdef int li, i
        cdef list ranges
        cdef bytes lo, hi
        for li in range(len(self.levels)):
            ranges = self.levels[li]
            i = self.cursors[li]
            while i < len(ranges):
                hi = ranges[i][1]
                if compare_user(hi, len(hi), key, n) >= 0:
                    break
                i += 1
            self.cursors[li] = i
            if i < len(ranges):
                lo = ranges[i][0]
                if compare_user(lo, len(lo), key, n) <= 0:
                    return True
        return False

    def contains(self, bytes user_key):
        """Python access for tests: may a file below hold ``user_key``? (keys must be asked in order)."""
        return self.may_contain(user_key, len(user_key))


def merge_into_tables(InternalIterator source, outputs, *, bint drop_tombstones=False, KeyRanges deeper=None,
                      uint64_t target_file_size=0, bint zero_sequences=False):
    """Write ``source``'s newest version of each key into tables made by ``outputs``; see the module docstring.

    ``outputs.new_table()`` returns a TableBuilder for the next output file; ``outputs.finish_table(builder)`` is
    called once per builder, in order. Returns ``(entries read, entries dropped)``.
    """
    cdef uint64_t key_in = 0, key_drop = 0
    cdef Buffer prev, zeroed  # the last user key kept; the entry's key with sequence 0 (zero_sequences)
    cdef bint have_prev = False
    cdef Py_ssize_t ulen
    cdef TableBuilder builder = None
    buf_init(&prev)
    buf_init(&zeroed)
    try:
        source.seek_to_first()
        while source.valid:
            key_in += 1
            ulen = source.klen - TRAILER_SIZE
            if have_prev and compare_user(prev.data, prev.len, source.key, ulen) == 0:
                key_drop += 1  # an older version, hidden by the newer one already kept or dropped
                source.next()
                continue
            buf_assign(&prev, source.key, ulen)
            have_prev = True
            if source.key[source.klen - 1] == TYPE_DELETION and (
                    drop_tombstones or (deeper is not None and not deeper.may_contain(source.key, ulen))):
                key_drop += 1  # nothing older can exist below: the tombstone has done its job
                source.next()
                continue
            if builder is None:
                builder = outputs.new_table()
            if zero_sequences and source.key[source.klen - 1] == TYPE_VALUE:
                buf_assign(&zeroed, source.key, source.klen)
                store_be64(zeroed.data + ulen, <uint64_t>TYPE_VALUE)  # sequence 0, same type
                builder.add(zeroed.data, zeroed.len, source.val, source.vlen)
            else:
                builder.add(source.key, source.klen, source.val, source.vlen)
            if target_file_size and builder.estimated_size() >= target_file_size:
                outputs.finish_table(builder)
                builder = None
            source.next()
        if builder is not None:
            outputs.finish_table(builder)
    finally:
        buf_free(&prev)
        buf_free(&zeroed)
    return key_in, key_drop
