"""Graded tests of exercise 01, the bloom filter. Run them with ``pytest exercises/01_bloom``.

Each test names its points; the table at the end of the run adds them up. The ``bloom`` fixture is your module
(``--student PATH`` grades another file or folder instead).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable

# LevelDB's own test vectors for its Hash (util/hash_test.cc): (data, seed, hash).
HASH_VECTORS = [
    (b"", 0xBC9F1D34, 0xBC9F1D34),
    (bytes([0x62]), 0xBC9F1D34, 0xEF1345C4),
    (bytes([0xC3, 0x97]), 0xBC9F1D34, 0x5B663814),
    (bytes([0xE2, 0x99, 0xA5]), 0xBC9F1D34, 0x323C078F),
    (bytes([0xE1, 0x80, 0xB9, 0x32]), 0xBC9F1D34, 0xED21633A),
    (
        bytes.fromhex(
            "01c0000000000000000000000000000014000000000004000000001400000018"
            "28000000000000000200000000000000"
        ),
        0x12345678,
        0xF333DABB,
    ),
]

FP_KEYS = 5000  # keys in the filter whose false-positive rate is measured
THEORY_BASE = 0.6185  # false-positive rate per bit per key with the best k: exp(-(ln 2)^2)
# Absent keys probed: enough for about 400 false positives, at most 20,000 (about 160 at 10 bits per key). Each probe
# is a call into your code, so the filters that give many false positives are measured with fewer probes.
FP_EXPECTED, FP_MAX_PROBES = 400, 20000


def fp_probes(bits_per_key: int) -> int:
    """How many absent keys the false-positive rate at ``bits_per_key`` is measured with."""
    return min(FP_MAX_PROBES, math.ceil(FP_EXPECTED / THEORY_BASE**bits_per_key))


@pytest.mark.points(2)
def test_leveldb_hash(bloom):
    """leveldb_hash gives LevelDB's values on LevelDB's own test vectors."""
    for data, seed, expected in HASH_VECTORS:
        got = bloom.leveldb_hash(data, seed)
        assert got == expected, f"leveldb_hash({data.hex()!r}, {seed:#x}) = {got!r}, LevelDB gives {expected:#x}"


@pytest.mark.points(1)
def test_name(bloom):
    """The policy's name is LevelDB's, which table files record beside each filter."""
    assert bloom.BloomFilterPolicy(10).name == "leveldb.BuiltinBloomFilter2"


@pytest.mark.points(1)
def test_probes_per_key(bloom):
    """The filter's last byte holds k = int(bits_per_key * 0.69), kept between 1 and 30."""
    for bits_per_key in (1, 2, 5, 10, 20, 50):
        last = bloom.BloomFilterPolicy(bits_per_key).create_filter([b"a", b"b"])[-1]
        expected = min(30, max(1, int(bits_per_key * 0.69)))
        assert last == expected, f"bits_per_key={bits_per_key}: k byte is {last}, expected {expected}"


@pytest.mark.points(4)
@repeatable
@given(
    keys=st.lists(st.binary(min_size=1, max_size=24), max_size=300),
    bits_per_key=st.integers(min_value=1, max_value=24),
)
def test_no_false_negatives(bloom, keys, bits_per_key):
    """Every key a filter was built from matches it: a bloom filter never wrongly says "absent"."""
    policy = bloom.BloomFilterPolicy(bits_per_key)
    built = policy.create_filter(keys)
    missed = [key for key in keys if not policy.key_may_match(key, built)]
    assert not missed, f"{len(missed)} of {len(keys)} keys do not match their own filter, e.g. {missed[0]!r}"


@pytest.mark.points(2)
@pytest.mark.parametrize("bits_per_key", [4, 6, 8, 10])
def test_false_positive_rate(bloom, bits_per_key):
    """The false-positive rate is near the theory, 0.6185 ** bits_per_key (from half to 1.5 times it)."""
    policy = bloom.BloomFilterPolicy(bits_per_key)
    built = policy.create_filter([b"key%08d" % i for i in range(FP_KEYS)])
    probes = fp_probes(bits_per_key)
    false_positives = sum(bool(policy.key_may_match(b"absent%08d" % i, built)) for i in range(probes))
    rate = false_positives / probes
    theory = THEORY_BASE**bits_per_key
    assert 0.5 * theory <= rate <= 1.5 * theory, (
        f"bits_per_key={bits_per_key}: false-positive rate {rate:.4%}, theory {theory:.4%}"
    )


@pytest.mark.points(2)
def test_filter_size(bloom):
    """A filter takes about bits_per_key bits per key: no more (memory) and no less (false positives)."""
    for n, bits_per_key in [(1000, 10), (3000, 5), (250, 16)]:
        size = len(bloom.BloomFilterPolicy(bits_per_key).create_filter([b"k%06d" % i for i in range(n)]))
        ideal = n * bits_per_key / 8
        assert ideal <= size <= ideal * 1.01 + 9, (
            f"{n} keys at {bits_per_key} bits per key: filter of {size} bytes, expected about {ideal:.0f}"
        )
