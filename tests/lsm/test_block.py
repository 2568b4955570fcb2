"""Blocks: prefix-compressed entries with restart points, read back and searched by BlockIter."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.errors import CorruptionError
from minidb.lsm.block import Block
from minidb.lsm.block_builder import BlockBuilder
from minidb.lsm.dbformat import compare_internal_keys, pack_internal_key


def build(entries, interval=16):
    b = BlockBuilder(interval)
    for k, v in entries:
        b.add_entry(k, v)
    return b.finish_block()


@given(st.lists(st.binary(min_size=1, max_size=30), unique=True, max_size=200),
       st.integers(min_value=1, max_value=20))
def test_round_trip_and_seek(user_keys, interval):
    entries = [(pack_internal_key(k, 7, 1), k[::-1]) for k in sorted(user_keys)]
    block = Block(build(entries, interval), "test")
    assert block.iterator().entries() == entries
    for i, (k, v) in enumerate(entries):
        assert block.iterator().seek_key(k) == (k, v)
    if entries:
        # A key before every entry finds the first; one after every entry finds nothing.
        assert block.iterator().seek_key(pack_internal_key(b"", 1, 1)) == entries[0]
        assert block.iterator().seek_key(pack_internal_key(b"\xff" * 31, 1, 1)) is None


def test_prefix_compression_shrinks_blocks_and_restarts_cost_space():
    entries = [(pack_internal_key(b"user:%08d" % i, 1, 1), b"") for i in range(1000)]
    raw = sum(len(k) for k, _ in entries)
    dense, sparse = build(entries, 16), build(entries, 1)
    assert len(dense) < raw * 0.7  # shared prefixes are stored once per restart interval
    assert len(sparse) > len(dense)  # every entry a restart point: whole keys plus a restart offset each


def test_empty_block():
    block = Block(build([]), "test")
    assert block.iterator().entries() == []
    assert block.iterator().seek_key(pack_internal_key(b"a", 1, 1)) is None


def test_plain_keys_for_meta_blocks():
    entries = [(b"filter.x", b"1"), (b"properties", b"2")]
    block = Block(build(entries, 1), "meta", False)
    assert block.iterator().seek_key(b"p") == (b"properties", b"2")


def test_corrupt_blocks_raise_naming_their_origin():
    data = build([(pack_internal_key(b"k%03d" % i, 1, 1), b"v" * 10) for i in range(50)])
    with pytest.raises(CorruptionError, match="000007.sst offset 4096"):
        Block(data[:-4] + (10**6).to_bytes(4, "little"), "000007.sst offset 4096")  # absurd restart count
    with pytest.raises(CorruptionError, match="too short"):
        Block(b"\x01", "x")
    bad = bytearray(data)
    bad[1] = 0xFF  # the first entry's non_shared length now runs past the block
    with pytest.raises(CorruptionError, match="bad entry at offset 0"):
        Block(bytes(bad), "x").iterator().entries()


@given(st.binary(max_size=33), st.binary(max_size=9), st.binary(max_size=9), st.integers(0, 2 ** 56 - 1),
       st.integers(0, 2 ** 56 - 1))
def test_internal_key_order(prefix, a, b, sa, sb):
    # A shared prefix of 0..33 bytes puts the first difference anywhere: before, in or after each 8-byte word
    # the comparison loads, and in the overlapping last word.
    a, b = prefix + a, prefix + b
    expect = (a > b) - (a < b) or (sb > sa) - (sb < sa)
    assert compare_internal_keys(pack_internal_key(a, sa, 1), pack_internal_key(b, sb, 1)) == expect


def test_keys_of_every_short_length_round_trip():
    # Keys are copied 8 bytes at a time up to 32 bytes: every length around 8, 16 and 32 once, shared prefixes too.
    user_keys = sorted({b"k" * n for n in range(1, 41)} | {b"k" * n + b"\x01" * m for n in range(0, 20, 3)
                                                           for m in range(1, 25)})
    entries = [(pack_internal_key(k, 5, 1), k[: len(k) % 37]) for k in user_keys]
    assert Block(build(entries), "test").iterator().entries() == entries
