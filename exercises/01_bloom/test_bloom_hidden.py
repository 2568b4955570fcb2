"""Hidden graded tests of exercise 01, the bloom filter: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it. Students see each test's name and points once grades are published.
"""

from __future__ import annotations

import zlib

import pytest


@pytest.mark.points(2)
@pytest.mark.hidden
def test_leveldb_format(bloom):
    """Filters are LevelDB's bit for bit, and key_may_match handles LevelDB's special cases."""
    policy = bloom.BloomFilterPolicy(10)
    assert policy.create_filter([b"hello", b"world"]) == bytes.fromhex("114000414410401006")
    assert policy.create_filter([]) == bytes(8) + b"\x06", "no keys: 64 zero bits, then k"
    thousand = bloom.BloomFilterPolicy(7).create_filter([b"key%06d" % i for i in range(1000)])
    assert (len(thousand), zlib.crc32(thousand)) == (876, 0x48D91790), "1000 keys at 7 bits per key"
    assert not policy.key_may_match(b"hello", b"\x06"), "a filter shorter than 2 bytes matches nothing"
    assert policy.key_may_match(b"hello", bytes(8) + bytes([31])), "k > 30 is reserved: it must match"
    with pytest.raises(ValueError):
        bloom.BloomFilterPolicy(0)
