"""Exercise 01: a bloom filter, as LevelDB builds one for every table file. Fill in every NotImplementedError.

An LSM engine asks its filter policy for a small *filter* per table file (``create_filter``) and, before reading a
block to look for a key, asks the filter whether the key may be in the file (``key_may_match``). "No" must be right
every time (a false negative would lose data); "maybe" may be wrong a little (each false positive costs one wasted
block read). The notebook ``bloom.md`` walks you through it; ``pytest exercises/01_bloom`` grades your work.

Your filters must be LevelDB's, bit for bit (util/bloom.cc and util/hash.cc), because filters are stored on disk:
a filter written today must be read the same way by any process, tomorrow or on another machine.
"""

from __future__ import annotations

SEED = 0xBC9F1D34  # LevelDB's seed for the bloom filter's hash
M = 0xC6A4A793  # the multiplier of LevelDB's hash
MASK = 0xFFFFFFFF  # keep 32 bits: C's uint32_t arithmetic wraps around at 2**32, Python's ints never do


def leveldb_hash(data: bytes, seed: int) -> int:
    """LevelDB's ``Hash(data, n, seed)``: a 32-bit hash, the same in every process (unlike Python's ``hash``).

    h = seed XOR (len(data) * M). Then, for each whole group of 4 bytes, read as a little-endian 32-bit number w:
    h = (h + w) * M, then h ^= h >> 16. If 1 to 3 bytes are left, add them, byte i shifted left by 8*i bits, then
    h = h * M and h ^= h >> 24. Keep h to 32 bits after every step.
    """
    raise NotImplementedError("leveldb_hash: see the notebook, section 'A hash that never changes'")


def bloom_hash(key: bytes) -> int:
    """The hash the bloom filter uses: ``leveldb_hash(key, SEED)`` (LevelDB's BloomHash)."""
    return leveldb_hash(key, SEED)


class BloomFilterPolicy:
    """LevelDB's built-in bloom filter policy, with ``bits_per_key`` bits of filter for each key."""

    def __init__(self, bits_per_key: int) -> None:
        """Keep ``bits_per_key``, and choose k, the number of bits set per key: int(bits_per_key * 0.69), kept
        between 1 and 30 (0.69 is ln 2, the best k per bit per key). ValueError if bits_per_key < 1."""
        raise NotImplementedError("BloomFilterPolicy.__init__")

    @property
    def name(self) -> str:
        """LevelDB's name for this filter format: ``"leveldb.BuiltinBloomFilter2"``."""
        raise NotImplementedError("BloomFilterPolicy.name")

    def create_filter(self, keys: list[bytes]) -> bytes:
        """The filter for ``keys``: a bit array of len(keys) * bits_per_key bits (at least 64, rounded up to whole
        bytes), followed by one byte holding k.

        For each key, with h = bloom_hash(key) and delta = h rotated right by 17 bits (32-bit), set the k bits
        h % nbits, (h + delta) % nbits, (h + 2*delta) % nbits, ... (adding delta in 32 bits each time).
        Bit number b is bit (b % 8) of byte (b // 8).
        """
        raise NotImplementedError("BloomFilterPolicy.create_filter")

    def key_may_match(self, key: bytes, filter: bytes) -> bool:
        """False if ``key`` surely was not in the keys ``filter`` was made from, True if it may have been.

        Read k from the last byte and test the same k bits ``create_filter`` sets. As in LevelDB: a filter shorter
        than 2 bytes matches nothing, and a k above 30 (reserved for future formats) matches everything.
        """
        raise NotImplementedError("BloomFilterPolicy.key_may_match")
