"""Reference solution of exercise 01: LevelDB's bloom filter policy, in plain Python.

It reproduces LevelDB's util/bloom.cc and util/hash.cc bit for bit, so a filter built here could be read by LevelDB
and the other way round. Read it after trying the exercise yourself.
"""

from __future__ import annotations

SEED = 0xBC9F1D34  # LevelDB's BloomHash seed (util/bloom.cc)
M = 0xC6A4A793  # the multiplier of LevelDB's Hash (util/hash.cc), a murmur-like mix
MASK = 0xFFFFFFFF  # C's uint32_t arithmetic wraps modulo 2**32; Python's ints do not, so we mask


def leveldb_hash(data: bytes, seed: int) -> int:
    """LevelDB's ``Hash(data, n, seed)`` (util/hash.cc): a 32-bit hash that is the same in every process."""
    h = (seed ^ (len(data) * M)) & MASK
    whole = len(data) - len(data) % 4
    for i in range(0, whole, 4):
        # Four bytes at a time, read as a little-endian uint32 (LevelDB's DecodeFixed32).
        h = ((h + int.from_bytes(data[i : i + 4], "little")) * M) & MASK
        h ^= h >> 16
    rest = data[whole:]
    if rest:
        # The C switch falls through: the last bytes are added high to low, then mixed once.
        for i in range(len(rest) - 1, -1, -1):
            h = (h + (rest[i] << (8 * i))) & MASK
        h = (h * M) & MASK
        h ^= h >> 24
    return h


def bloom_hash(key: bytes) -> int:
    """The hash the bloom filter uses: ``leveldb_hash(key, 0xbc9f1d34)`` (LevelDB's BloomHash)."""
    return leveldb_hash(key, SEED)


class BloomFilterPolicy:
    """LevelDB's built-in bloom filter: ``bits_per_key`` bits per key and k = bits_per_key * ln 2 probes."""

    def __init__(self, bits_per_key: int) -> None:
        if bits_per_key < 1:
            raise ValueError(f"bits_per_key must be at least 1, got {bits_per_key!r}")
        self.bits_per_key = bits_per_key  # filter bits spent on each key
        # ln 2 (0.69) probes per bit per key minimise the false-positive rate; LevelDB rounds down and clamps.
        self.k = min(30, max(1, int(bits_per_key * 0.69)))  # bits set (and tested) per key

    @property
    def name(self) -> str:
        """The name stored beside every filter, so a reader never trusts a filter built by another policy."""
        return "leveldb.BuiltinBloomFilter2"

    def create_filter(self, keys: list[bytes]) -> bytes:
        """A filter for ``keys``: the bit array (at least 64 bits), then one byte holding k."""
        nbits = max(64, len(keys) * self.bits_per_key)  # tiny filters would have a very high false-positive rate
        nbytes = (nbits + 7) // 8
        nbits = nbytes * 8
        array = bytearray(nbytes)
        for key in keys:
            for bit in _probes(bloom_hash(key), self.k, nbits):
                array[bit >> 3] |= 1 << (bit & 7)
        array.append(self.k)
        return bytes(array)

    def key_may_match(self, key: bytes, filter: bytes) -> bool:
        """False if ``key`` was surely not among the filter's keys; True if it may have been."""
        if len(filter) < 2:
            return False
        k = filter[-1]
        if k > 30:
            # LevelDB reserves k > 30 for future encodings of short filters: a reader that does not know the
            # encoding must say "may match", never "absent", or it would lose keys.
            return True
        nbits = (len(filter) - 1) * 8
        return all(filter[bit >> 3] & (1 << (bit & 7)) for bit in _probes(bloom_hash(key), k, nbits))


def _probes(h: int, k: int, nbits: int):
    """The k bit positions of a key with hash ``h``: double hashing, h + i * delta, as LevelDB does."""
    delta = ((h >> 17) | (h << 15)) & MASK  # rotate right by 17 bits
    for _ in range(k):
        yield h % nbits
        h = (h + delta) & MASK
