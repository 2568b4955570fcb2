"""The built-in bloom filter: LevelDB's, bit for bit; no false negatives; ~1% false positives at 10 bits/key."""

import random

from hypothesis import given
from hypothesis import strategies as st

from minidb.lsm.bloom import BloomFilterPolicy, bloom_hash_of


def test_hash_matches_leveldb_test_vectors():
    # LevelDB util/hash_test.cc, TEST(HASH, SignedUnsignedIssue), seed 0xbc9f1d34.
    assert bloom_hash_of(b"") == 0xBC9F1D34
    assert bloom_hash_of(bytes([0x62])) == 0xEF1345C4
    assert bloom_hash_of(bytes([0xC3, 0x97])) == 0x5B663814
    assert bloom_hash_of(bytes([0xE2, 0x99, 0xA5])) == 0x323C078F
    assert bloom_hash_of(bytes([0xE1, 0x80, 0xB9, 0x32])) == 0xED21633A


def test_filter_layout():
    policy = BloomFilterPolicy(10)
    assert policy.k == 6  # int(10 * 0.69)
    f = policy.create_filter([b"a", b"b"])
    assert len(f) == 64 // 8 + 1  # at least 64 bits, then the probe count
    assert f[-1] == 6
    assert len(policy.create_filter([b"%d" % i for i in range(1000)])) == 1000 * 10 // 8 + 1
    assert policy.name == "leveldb.BuiltinBloomFilter2"


@given(st.lists(st.binary(max_size=40), max_size=500), st.integers(min_value=1, max_value=20))
def test_no_false_negatives(keys, bits_per_key):
    policy = BloomFilterPolicy(bits_per_key)
    f = policy.create_filter(keys)
    assert all(policy.key_may_match(k, f) for k in keys)


def test_false_positive_rate_at_10_bits_per_key():
    rng = random.Random(42)
    policy = BloomFilterPolicy(10)
    for n in (1_000, 10_000, 100_000):
        keys = [rng.randbytes(16) for _ in range(n)]
        f = policy.create_filter(keys)
        probes = [b"absent-%d" % i for i in range(20_000)]
        rate = sum(policy.key_may_match(k, f) for k in probes) / len(probes)
        assert 0.005 <= rate <= 0.02, (n, rate)


def test_fewer_bits_more_false_positives():
    keys = [b"key%d" % i for i in range(5000)]
    probes = [b"other%d" % i for i in range(20000)]

    def rate(bits):
        p = BloomFilterPolicy(bits)
        f = p.create_filter(keys)
        return sum(p.key_may_match(k, f) for k in probes) / len(probes)

    assert rate(4) > rate(10) > rate(16)


def test_unknown_encodings_say_maybe():
    policy = BloomFilterPolicy(10)
    assert policy.key_may_match(b"x", b"\x00" * 8 + bytes([31]))  # k > 30: reserved, never "absent"
    assert not policy.key_may_match(b"x", b"\x00")  # too short to be a filter: nothing was added
