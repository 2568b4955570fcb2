# cython: language_level=3
"""The engine's built-in bloom filter: LevelDB's util/bloom.cc and util/hash.cc, bit for bit.

A bloom filter answers "may this SST hold key K?" with no false negatives and, at 10 bits per key, about 1% false
positives, so a point lookup skips the data block read of almost every SST that does not hold the key.

For n keys it allocates ``n * bits_per_key`` bits (at least 64) and sets ``k = bits_per_key * ln 2`` bits per key.
The k bit positions come from one 32-bit hash by double hashing: ``h, h + delta, h + 2*delta, ...`` modulo the bit
count, with ``delta`` the hash rotated right by 17 bits. The filter is the bit array followed by one byte holding
k, so a reader needs no other parameter. A plain-Python version of the same policy is exercise 01's solution; the
two build identical filters.

``BloomFilterPolicy`` implements the FilterPolicy interface of ``filter_policy.py`` (``name``, ``create_filter``,
``key_may_match``); the table builder and reader also use its ``cdef`` fast paths, which hash keys as they stream
by instead of collecting them in a Python list.
"""

from libc.stdint cimport uint8_t, uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from minidb.coding cimport load_le32

cdef extern from *:
    """
    #define MINIDB_PREFETCH(p) __builtin_prefetch(p)
    """
    void MINIDB_PREFETCH(const void* p) noexcept nogil

cdef enum:
    PREFETCH_KEYS = 8  # keys whose filter bytes are fetched into the CPU cache ahead of setting their bits

cdef uint32_t SEED = 0xbc9f1d34  # LevelDB's BloomHash seed
cdef uint32_t M = 0xc6a4a793  # multiplier of LevelDB's murmur-like Hash


cdef uint32_t bloom_hash(const unsigned char* data, Py_ssize_t n) noexcept nogil:
    """LevelDB's ``Hash(data, n, 0xbc9f1d34)``: four bytes at a time (little-endian), then the tail."""
    cdef uint32_t h = SEED ^ (<uint32_t>n * M)
    cdef Py_ssize_t i = 0
    cdef Py_ssize_t rest
    while i + 4 <= n:
        h += load_le32(data + i)
        h *= M
        h ^= h >> 16
        i += 4
    rest = n - i
    if rest == 3:
        h += <uint32_t>data[i + 2] << 16
    if rest >= 2:
        h += <uint32_t>data[i + 1] << 8
    if rest >= 1:
        h += data[i]
        h *= M
        h ^= h >> 24
    return h


cdef class BloomFilterPolicy:
    """LevelDB's built-in bloom filter policy with ``bits_per_key`` bits per key (10: ~1% false positives)."""

    def __cinit__(self, int bits_per_key=10):
        if bits_per_key < 1:
            raise ValueError(f"bad bits_per_key {bits_per_key!r}: must be >= 1")
        self.bits_per_key = bits_per_key
        # ln 2 probes per bit per key minimise false positives; LevelDB rounds down and clamps to 1..30.
        self.k = min(30, max(1, <int>(bits_per_key * 0.69)))

    @property
    def name(self):
        """Stored in every SST beside its filter: a reader trusts a filter only if its policy has this name."""
        return "leveldb.BuiltinBloomFilter2"

    cdef bytes build(self, const uint32_t* hashes, Py_ssize_t n):
        """The filter for keys with these bloom hashes.

        A filter of a big table is larger than the CPU cache and each key sets k bits scattered over it, so setting
        them one key at a time waits for memory k times per key. Instead the k positions of each key are computed
        PREFETCH_KEYS keys ahead and their bytes asked for (a prefetch) while the bits of earlier keys are set.
        """
        cdef Py_ssize_t nbits = n * self.bits_per_key
        cdef Py_ssize_t nbytes, i
        cdef int j, k = self.k
        cdef uint32_t h, delta
        cdef uint32_t pos[PREFETCH_KEYS][30]  # bit positions of the keys in flight, k per key
        cdef uint32_t* p
        cdef uint8_t* array
        if nbits < 64:  # tiny filters would have a very high false-positive rate
            nbits = 64
        nbytes = (nbits + 7) // 8
        nbits = nbytes * 8
        array = <uint8_t*>malloc(nbytes + 1)
        if array == NULL:
            raise MemoryError(f"bloom filter of {nbytes} bytes")
        try:
            memset(array, 0, nbytes)
            for i in range(n + PREFETCH_KEYS):
                p = pos[i % PREFETCH_KEYS]
                if i >= PREFETCH_KEYS:  # set the bits of the key computed PREFETCH_KEYS steps ago
                    for j in range(k):
                        array[p[j] >> 3] |= <uint8_t>(1 << (p[j] & 7))
                if i < n:
                    h = hashes[i]
                    delta = (h >> 17) | (h << 15)  # rotate right 17 bits
                    for j in range(k):
                        p[j] = h % <uint32_t>nbits
                        MINIDB_PREFETCH(array + (p[j] >> 3))
                        h += delta
            array[nbytes] = <uint8_t>k
            return (<const char*>array)[:nbytes + 1]
        finally:
            free(array)

    cdef bint may_match(self, const unsigned char* key, Py_ssize_t n, const unsigned char* filt,
                        Py_ssize_t flen) noexcept:
        cdef Py_ssize_t nbits
        cdef uint32_t h, delta, bitpos
        cdef int k, j
        if flen < 2:
            return False
        k = filt[flen - 1]
        if k > 30:
            # Reserved by LevelDB for future encodings: a reader that cannot decode must say "may match".
            return True
        nbits = (flen - 1) * 8
        h = bloom_hash(key, n)
        delta = (h >> 17) | (h << 15)
        for j in range(k):
            bitpos = h % <uint32_t>nbits
            if (filt[bitpos >> 3] & (1 << (bitpos & 7))) == 0:
                return False
            h += delta
        return True

    def create_filter(self, list keys):
        """FilterPolicy: a filter for ``keys`` (a list of bytes)."""
        cdef Py_ssize_t n = len(keys), i
        cdef uint32_t* hashes = <uint32_t*>malloc(max(1, n) * sizeof(uint32_t))
        cdef bytes key
        if hashes == NULL:
            raise MemoryError()
        try:
            for i in range(n):
                key = keys[i]
                hashes[i] = bloom_hash(key, len(key))
            return self.build(hashes, n)
        finally:
            free(hashes)

    def key_may_match(self, bytes key, bytes filter):
        """FilterPolicy: False if ``key`` surely was not among the filter's keys, True if it may have been."""
        return self.may_match(key, len(key), filter, len(filter))

    def __repr__(self):
        return f"BloomFilterPolicy(bits_per_key={self.bits_per_key})"


def bloom_hash_of(bytes key):
    """LevelDB's bloom hash of ``key`` (for tests and for comparing with other implementations)."""
    return bloom_hash(key, len(key))
