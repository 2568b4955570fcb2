# cython: language_level=3
"""Block and BlockIter: reading one block written by BlockBuilder (LevelDB's table/block.cc).

A ``Block`` wraps the decompressed bytes of a block and checks its restart array. A ``BlockIter`` walks its entries,
rebuilding each key from the shared prefix of the previous one, and seeks by binary search over the restart points
(whose keys are stored whole) followed by a short linear scan. Malformed bytes raise ``CorruptionError`` naming the
block's origin (file and offset), never a crash or a wrong answer.

A block's checksum only proves the bytes are the ones written; a block written wrong (or forged with a valid
checksum) must not make the iterator read outside the block or loop. So ``Block`` checks the whole structure once,
when it is made from the bytes read (it then sits in the block cache): every entry decodes inside the entries area,
with arithmetic that cannot wrap (a length is compared with the room left, never added to another length); a shared
prefix is never longer than the previous key; keys are strictly ascending under the block's comparator (internal
keys at least 8 bytes long); restart points are ascending entry boundaries starting at 0, each with no shared prefix.
"""

from libc.stdint cimport uint32_t, uint64_t

from minidb.errors import CorruptionError

from .buffer cimport Buffer, buf_append, buf_free, buf_init, buf_reserve
from minidb.coding cimport get_varint64, load_le32
from .dbformat cimport TRAILER_SIZE, compare_internal, compare_user


cdef class Block:
    """The bytes of one block, checked for a sane restart array. ``internal_keys`` picks the comparator."""

    def __cinit__(self, bytes data, object origin="block", bint internal_keys=True):
        self.data = data
        self.ptr = data
        self.origin = origin
        self.internal_keys = internal_keys
        cdef Py_ssize_t n = len(data)
        if n < 4:
            raise CorruptionError(f"block too short ({n} bytes) in {origin}")
        self.nrestarts = load_le32(self.ptr + n - 4)
        if self.nrestarts == 0 or <uint64_t>self.nrestarts * 4 + 4 > <uint64_t>n:
            raise CorruptionError(f"bad restart count {self.nrestarts} in a block of {n} bytes in {origin}")
        self.restart_offset = n - 4 - 4 * <Py_ssize_t>self.nrestarts
        self.validate()

    cdef int validate(self) except -1:
        """CorruptionError unless the entries and the restart array have the structure the module docstring says."""
        cdef const unsigned char* base = self.ptr
        cdef const unsigned char* limit = base + self.restart_offset
        cdef const unsigned char* p = base
        cdef uint64_t shared, non_shared, vlen, room
        cdef Buffer prev, cur, tmp
        cdef uint32_t next_restart = 0, r = 0
        cdef Py_ssize_t offset
        cdef int cmp
        cdef str err = None
        if self.restart_point(0) != 0:
            raise CorruptionError(f"first restart point is not 0, in the block at {self.origin}")
        buf_init(&prev)
        buf_init(&cur)
        try:
            while p < limit:
                offset = p - base
                p = get_varint64(p, limit, &shared)
                if p != NULL:
                    p = get_varint64(p, limit, &non_shared)
                if p != NULL:
                    p = get_varint64(p, limit, &vlen)
                if p == NULL:
                    err = f"bad entry at offset {offset}: malformed header"
                    break
                room = <uint64_t>(limit - p)
                if shared > <uint64_t>prev.len or non_shared > room or vlen > room - non_shared:
                    err = f"bad entry at offset {offset}: reaches outside the block"
                    break
                if r < self.nrestarts:
                    next_restart = self.restart_point(r)
                    if next_restart < <uint32_t>offset:
                        err = f"restart point {r} at {next_restart} is not an entry boundary"
                        break
                    if next_restart == <uint32_t>offset:
                        if shared != 0:
                            err = f"restart point {r} at {offset} has a shared prefix"
                            break
                        r += 1
                cur.len = 0
                buf_append(&cur, prev.data, <Py_ssize_t>shared)
                buf_append(&cur, p, <Py_ssize_t>non_shared)
                if self.internal_keys and cur.len < TRAILER_SIZE:
                    err = f"internal key of {cur.len} bytes at offset {offset} (under {TRAILER_SIZE})"
                    break
                if offset > 0:
                    if self.internal_keys:
                        cmp = compare_internal(prev.data, prev.len, cur.data, cur.len)
                    else:
                        cmp = compare_user(prev.data, prev.len, cur.data, cur.len)
                    if cmp >= 0:
                        err = f"key at offset {offset} is not above the key before it"
                        break
                p += non_shared + vlen
                tmp = prev
                prev = cur
                cur = tmp
            # Every restart point was met at an entry (an empty block has the one restart point 0).
            if err is None and r != self.nrestarts and not (r == 0 and self.nrestarts == 1
                                                             and self.restart_point(0) == 0):
                err = f"{self.nrestarts - r} restart points are not entry boundaries"
        finally:
            buf_free(&prev)
            buf_free(&cur)
        if err is not None:
            raise CorruptionError(f"{err}, in the block at {self.origin}")
        return 0

    cdef uint32_t restart_point(self, uint32_t i) noexcept:
        return load_le32(self.ptr + self.restart_offset + 4 * i)

    def iterator(self):
        """A BlockIter over this block."""
        return BlockIter(self)

    def __len__(self):
        return len(self.data)


cdef class BlockIter(InternalIterator):
    """Iterates one block; see the module docstring."""

    def __cinit__(self, Block block):
        buf_init(&self.keybuf)
        self.compares = 0
        self.aim(block)

    cdef int aim(self, Block block) except -1:
        """Iterate ``block`` from now on (not positioned), reusing this iterator's key buffer."""
        self.block = block
        self.current = block.restart_offset
        self.next_offset = block.restart_offset
        self.restart_index = 0
        self.valid = False
        return 0

    def __dealloc__(self):
        buf_free(&self.keybuf)

    cdef int compare(self, const unsigned char* a, Py_ssize_t an, const unsigned char* b, Py_ssize_t bn) noexcept:
        self.compares += 1
        if self.block.internal_keys:
            return compare_internal(a, an, b, bn)
        return compare_user(a, an, b, bn)

    cdef int parse_at(self, Py_ssize_t offset) except -1:
        """Decode the entry at ``offset`` (the previous key must be in keybuf); past the end, become invalid."""
        cdef const unsigned char* base = self.block.ptr
        cdef const unsigned char* limit = base + self.block.restart_offset
        cdef const unsigned char* p = base + offset
        cdef uint64_t shared, non_shared, vlen
        self.current = offset
        if offset >= self.block.restart_offset:
            self.valid = False
            self.current = self.block.restart_offset
            self.next_offset = self.block.restart_offset
            return 0
        p = get_varint64(p, limit, &shared)
        if p != NULL:
            p = get_varint64(p, limit, &non_shared)
        if p != NULL:
            p = get_varint64(p, limit, &vlen)
        if (p == NULL or shared > <uint64_t>self.keybuf.len or non_shared > <uint64_t>(limit - p)
                or vlen > <uint64_t>(limit - p) - non_shared):  # never add two lengths: the sum could wrap
            self.valid = False
            raise CorruptionError(f"bad entry at offset {offset} of the block in {self.block.origin}")
        self.keybuf.len = <Py_ssize_t>shared
        buf_append(&self.keybuf, p, <Py_ssize_t>non_shared)
        self.key = self.keybuf.data
        self.klen = self.keybuf.len
        self.val = p + non_shared
        self.vlen = <Py_ssize_t>vlen
        self.next_offset = (p - base) + <Py_ssize_t>(non_shared + vlen)
        self.valid = True
        while (self.restart_index + 1 < self.block.nrestarts
               and self.block.restart_point(self.restart_index + 1) <= <uint32_t>offset):
            self.restart_index += 1
        return 0

    cdef int seek_to_restart(self, uint32_t index) except -1:
        cdef uint32_t off = self.block.restart_point(index)
        if off > self.block.restart_offset:
            raise CorruptionError(f"restart point {index} at {off} is past the entries in {self.block.origin}")
        self.restart_index = index
        self.keybuf.len = 0
        return self.parse_at(off)

    cdef int seek_to_first(self) except -1:
        return self.seek_to_restart(0)

    cdef int next(self) except -1:
        if self.valid:
            self.parse_at(self.next_offset)
        return 0

    cdef int seek(self, const unsigned char* target, Py_ssize_t n) except -1:
        """Position at the first entry >= target."""
        cdef uint32_t lo = 0, hi = self.block.nrestarts - 1, mid
        # Binary search for the last restart point whose key is < target.
        while lo < hi:
            mid = (lo + hi + 1) // 2
            self.seek_to_restart(mid)
            if not self.valid:
                raise CorruptionError(f"empty restart point {mid} in {self.block.origin}")
            if self.compare(self.key, self.klen, target, n) < 0:
                lo = mid
            else:
                hi = mid - 1
        self.seek_to_restart(lo)
        while self.valid and self.compare(self.key, self.klen, target, n) < 0:
            self.parse_at(self.next_offset)
        return 0

    def seek_key(self, bytes target):
        """Position at the first entry >= target; return (key, value) or None past the end (for Python callers)."""
        self.seek(target, len(target))
        if not self.valid:
            return None
        return (<const char*>self.key)[:self.klen], (<const char*>self.val)[:self.vlen]
