"""minidb/crc.pyx: every checksum (pages, redo groups, SST blocks, WAL fragments) must be zlib.crc32 bit for bit,
whatever the length (the folding takes 64 bytes to start, then 16-byte blocks, and zlib the rest), the alignment and
the starting value."""

import os
import random
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.crc import crc32
from minidb.btree.page import Page


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=600), st.integers(0, 2**32 - 1))
def test_it_is_zlibs_crc32(data, start):
    assert crc32(data, start) == zlib.crc32(data, start)


def test_every_length_around_the_folds_boundaries():
    # 63 bytes go to zlib alone, 64 start the folding; 64 + 15 leave a tail to zlib, 80 do not.
    data = os.urandom(300)
    for n in range(0, 300):
        for start in (0, 1, 0xFFFFFFFF):
            assert crc32(data[:n], start) == zlib.crc32(data[:n], start), n


def test_every_alignment_and_block_sizes_and_a_megabyte():
    rng = random.Random(3)
    for n in [*range(0, 200, 7), 4095, 4096, 4097, 1 << 20]:
        for shift in range(4):
            data = rng.randbytes(n + shift)[shift:]
            assert crc32(data) == zlib.crc32(data), (n, shift)
            assert crc32(data, 0xDEADBEEF) == zlib.crc32(data, 0xDEADBEEF), (n, shift)  # continued


def test_a_page_checksum_is_zlibs_over_the_page_without_its_checksum_field():
    page = Page(bytearray(os.urandom(16384)))
    page.stamp_checksum()
    assert page.checksum_ok()
    stored = int.from_bytes(page.buf[:4], "little")
    assert stored == zlib.crc32(bytes(4) + bytes(page.buf[4:]))


def test_it_accepts_bytes_bytearrays_and_memoryviews():
    data = os.urandom(1000)
    expected = zlib.crc32(data)
    assert crc32(data) == crc32(bytearray(data)) == crc32(memoryview(bytearray(data))[0:]) == expected
