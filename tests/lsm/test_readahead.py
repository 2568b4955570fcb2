"""Compaction reads through Readahead: its C fast path (a raw block checked where it lies in the chunk) must give
the same blocks, the same device reads and the same errors as the table reader's general path."""

import pytest

from minidb.errors import CorruptionError
from minidb.lsm.dbformat import pack_internal_key
from minidb.lsm.format import BLOCK_TRAILER_SIZE, FOOTER_SIZE, decode_handle_bytes
from minidb.lsm.readahead import Readahead
from minidb.storage import SimDevice

from .test_sst import reader, rows, write_table


def block_handles(r):
    """(offset, stored size) of every data block of reader ``r``, from its index."""
    return [decode_handle_bytes(v)[:2] for _, v in r.index_block().iterator().entries()]


@pytest.mark.parametrize("codec", ["none", "lz4"])
@pytest.mark.parametrize("readahead", [1, 1000, 4096, 1 << 20])
def test_compaction_reads_match_cache_reads(codec, readahead):
    dev = SimDevice()
    # Half the rows compress (lz4 stores those blocks compressed: the general path), half do not (stored raw).
    entries = sorted(rows(1500, compressible=True) + [(pack_internal_key(b"zz%08d" % i, i + 1, 1), v)
                                                      for i, (_, v) in enumerate(rows(1500, 1, False))])
    write_table(dev, "t.sst", entries, block_size=1024, compression_name=codec)
    r = reader(dev, "t.sst")
    assert r.iterator(for_compaction=True, readahead=readahead).entries() == entries == r.iterator().entries()


def test_chunk_ending_exactly_at_a_block_and_one_byte_short():
    dev = SimDevice()
    entries = rows(400, compressible=False)
    write_table(dev, "t.sst", entries, block_size=512)
    r = reader(dev, "t.sst")
    handles = block_handles(r)
    first_two = handles[1][0] + handles[1][1] + BLOCK_TRAILER_SIZE  # the second block's trailer ends the chunk
    for size, reads in ((first_two, 2), (first_two - 1, 3)):
        ra = Readahead(r, size)
        before = dev.stats.total().reads
        blocks = [ra(off, n) for off, n in handles[:3]]
        # Exactly full: blocks 1-2 come from the first chunk; one byte short: block 2 needs a chunk of its own.
        assert dev.stats.total().reads - before == reads
        assert [b.data for b in blocks] == [r.data_block(off, n).data for off, n in handles[:3]]


def test_the_last_block_of_the_file():
    dev = SimDevice()
    entries = rows(300, compressible=False)
    write_table(dev, "t.sst", entries, block_size=700)
    r = reader(dev, "t.sst")
    off, n = block_handles(r)[-1]
    ra = Readahead(r, 1 << 20)
    assert ra(off, n).iterator().entries()[-1] == entries[-1]


def test_damage_and_bad_handles_raise_as_on_the_general_path():
    dev = SimDevice()
    write_table(dev, "000009.sst", rows(500, compressible=False), block_size=1024)
    r = reader(dev, "000009.sst")
    blocks_end = r.size - FOOTER_SIZE
    ra = Readahead(r, 1 << 20)
    for off, n in ((blocks_end, 1), (0, blocks_end), (2 ** 64 - 1, 10), (10, 2 ** 64 - 1)):
        with pytest.raises(CorruptionError, match="points past the blocks"):
            ra(off, n)
    raw = bytearray(dev.durable_bytes("000009.sst"))
    raw[100] ^= 0x40  # inside the first data block
    dev.open("000009.sst", kind="sst").write(0, bytes(raw))
    r = reader(dev, "000009.sst")
    with pytest.raises(CorruptionError, match=r"checksum mismatch in 000009.sst offset 0"):
        r.iterator(for_compaction=True).entries()


def test_a_short_read_is_damage_not_a_crash():
    dev = SimDevice()
    write_table(dev, "t.sst", rows(200, compressible=False), block_size=1024)
    r = reader(dev, "t.sst")
    off, n = block_handles(r)[0]
    real = r.file

    class Short:  # a file that returns fewer bytes than asked, as a truncated file would
        def read(self, offset, size):
            return real.read(offset, size)[:n // 2]

    r.file = Short()
    with pytest.raises(CorruptionError):
        Readahead(r, 1 << 20)(off, n)
