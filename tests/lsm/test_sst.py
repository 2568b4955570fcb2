"""SST files: TableBuilder writes them, TableReader reads them back; checksums, compression, filters, properties."""

import random
import zlib

import pytest

from minidb.errors import CorruptionError
from minidb.lsm.block_builder import BlockBuilder
from minidb.lsm.block_cache import BlockCache
from minidb.lsm.bloom import BloomFilterPolicy
from minidb.lsm.dbformat import pack_internal_key, parse_internal_key, seek_key
from minidb.lsm.format import BLOCK_TRAILER_SIZE, FOOTER_SIZE
from minidb.lsm.table_reader import TableReader
from minidb.lsm.table_builder import TableBuilder
from minidb.storage import SimDevice


def write_table(dev, name, entries, **kw):
    f = dev.open(name, kind="sst", create=True)
    b = TableBuilder(f, **kw)
    for k, v in entries:
        b.add_entry(k, v)
    props = b.finish()
    f.sync()
    return props


def reader(dev, name, policy=None, cache=1 << 20, cache_meta=False):
    return TableReader(dev, name, 1, dev.size(name), cache=BlockCache(cache), policy=policy, cache_meta=cache_meta)


def rows(n, seed=0, compressible=True):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        v = (b"customer-%d-status-active;" % (i % 50)) * 3 if compressible else rng.randbytes(80)
        out.append((pack_internal_key(b"key%08d" % i, i + 1, 1), v))
    return out


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_round_trip(codec):
    dev = SimDevice()
    entries = rows(3000)
    props = write_table(dev, "000001.sst", entries, block_size=2048, compression_name=codec,
                        policy=BloomFilterPolicy(10), props={"level": 3})
    r = reader(dev, "000001.sst", BloomFilterPolicy(10))
    assert r.iterator().entries() == entries
    assert r.iterator(for_compaction=True, readahead=8192).entries() == entries
    assert r.properties["num.entries"] == 3000
    assert r.properties["compression"] == codec
    assert r.properties["level"] == 3
    assert r.properties["filter.policy"] == "leveldb.BuiltinBloomFilter2"
    assert r.properties["smallest.key"] == entries[0][0] and r.properties["largest.key"] == entries[-1][0]
    assert props["file.size"] == dev.size("000001.sst")
    for i in (0, 1234, 2999):
        k = b"key%08d" % i
        assert r.may_contain(k)
        hit = r.seek(seek_key(k))
        assert parse_internal_key(hit[0])[0] == k and hit[1] == entries[i][1]
    assert r.seek(seek_key(b"zzz")) is None


def test_lz4_and_zstd_make_files_smaller_than_none():
    dev = SimDevice()
    sizes = {c: write_table(dev, f"{c}.sst", rows(5000), compression_name=c)["file.size"]
             for c in ("none", "lz4", "zstd")}
    assert sizes["lz4"] < 0.5 * sizes["none"]
    assert sizes["zstd"] < sizes["lz4"]


def test_incompressible_blocks_are_stored_raw():
    dev = SimDevice()
    entries = rows(2000, compressible=False)
    none = write_table(dev, "a.sst", entries, compression_name="none")["file.size"]
    lz4 = write_table(dev, "b.sst", entries, compression_name="lz4")["file.size"]
    assert lz4 <= none + 16  # LZ4 could not save 1/8: blocks fell back to type 0, same size
    assert reader(dev, "b.sst").iterator().entries() == entries


def test_a_filter_of_another_policy_is_ignored():
    class Named(BloomFilterPolicy):
        @property
        def name(self):
            return "some.other.policy"

    dev = SimDevice()
    write_table(dev, "t.sst", rows(100), policy=BloomFilterPolicy(10))
    r = reader(dev, "t.sst", Named(10))
    assert r.may_contain(b"key00000005") is None  # no usable filter: read the block instead
    assert r.seek(seek_key(b"key00000005")) is not None
    assert reader(dev, "t.sst", None).may_contain(b"x") is None


def test_index_and_filter_pinned_or_through_the_cache():
    dev = SimDevice()
    write_table(dev, "t.sst", rows(2000), block_size=1024, policy=BloomFilterPolicy(10))
    pinned = reader(dev, "t.sst", BloomFilterPolicy(10))
    before = dev.stats.total().reads
    pinned.may_contain(b"key00000001")
    pinned.index_block()
    assert dev.stats.total().reads == before  # pinned at open: no read
    cached = reader(dev, "t.sst", BloomFilterPolicy(10), cache=0, cache_meta=True)
    before = dev.stats.total().reads
    cached.may_contain(b"key00000001")
    cached.index_block()
    assert dev.stats.total().reads == before + 2  # a cache of 0 bytes keeps nothing: read each time


@pytest.mark.parametrize("policy,cache_meta", [(BloomFilterPolicy(10), False), (BloomFilterPolicy(10), True),
                                               (None, False)])
def test_an_open_reads_the_footer_then_the_metadata_in_two_requests(policy, cache_meta):
    # The footer; the metaindex (with the pinned index); the properties (with the pinned filter): three requests,
    # whatever the blocks, and no byte beyond the blocks the reader keeps or reads once.
    dev = SimDevice()
    write_table(dev, "t.sst", rows(2000), block_size=1024, policy=BloomFilterPolicy(10))
    before = dev.stats.total()
    r = reader(dev, "t.sst", policy, cache_meta=cache_meta)
    io = dev.stats.total() - before
    blocks = [r.index_handle] * (not cache_meta) + [r.filter_handle] * (policy is not None and not cache_meta)
    kept = sum(size + BLOCK_TRAILER_SIZE for _, size in blocks)
    assert io.reads == 3
    assert kept + FOOTER_SIZE < io.read_bytes < kept + FOOTER_SIZE + 1024  # + the metaindex and properties


def test_writes_are_buffered_and_compaction_reads_read_ahead():
    dev = SimDevice()
    props = write_table(dev, "t.sst", rows(4000), block_size=1024, write_buffer_size=16 << 10)
    writes = dev.stats.total(kind="sst").writes
    assert writes <= props["file.size"] // (16 << 10) + 1  # one request per 16 KiB, not one per block
    r = reader(dev, "t.sst")
    before = dev.stats.total().reads
    r.iterator(for_compaction=True, readahead=64 << 10).entries()
    assert dev.stats.total().reads - before <= props["file.size"] // (64 << 10) + 2


def test_corruption_is_reported_with_file_and_offset():
    dev = SimDevice()
    write_table(dev, "000009.sst", rows(500), block_size=1024)
    raw = bytearray(dev.durable_bytes("000009.sst"))
    raw[100] ^= 0x40  # inside the first data block
    f = dev.open("000009.sst", kind="sst")
    f.write(0, bytes(raw))
    r = reader(dev, "000009.sst")
    with pytest.raises(CorruptionError, match=r"checksum mismatch in 000009.sst offset 0"):
        r.iterator().entries()
    f.write(len(raw) - 1, b"\x00")  # the magic number's last byte
    with pytest.raises(CorruptionError, match="bad magic number"):
        reader(dev, "000009.sst")
    short = dev.open("short.sst", kind="sst", create=True)
    short.append(b"x" * (FOOTER_SIZE - 1))
    with pytest.raises(CorruptionError, match="too short"):
        reader(dev, "short.sst")


def test_a_block_exactly_full_and_one_byte_over():
    entries = rows(40, compressible=False)
    probe = BlockBuilder(16)
    for k, v in entries[:5]:
        probe.add_entry(k, v)
    full = probe.current_size()  # a block of the first 5 entries, finished
    for block_size, first_block in ((full, 5), (full + 1, 6)):
        dev = SimDevice()
        write_table(dev, "t.sst", entries, block_size=block_size)
        r = reader(dev, "t.sst")
        last_keys = [k for k, _ in r.index_block().iterator().entries()]
        assert last_keys[0] == entries[first_block - 1][0]  # the block is cut once it reaches block_size
        assert r.iterator(for_compaction=True).entries() == entries


def test_blocks_reach_the_file_as_emitted_block_then_trailer():
    class Recorder:
        def __init__(self):
            self.appends = []

        def append(self, data):
            self.appends.append(bytes(data))

    f = Recorder()
    b = TableBuilder(f, block_size=512, write_buffer_size=1)  # every block and every trailer drains at once
    entries = rows(50, compressible=False)
    for k, v in entries:
        b.add_entry(k, v)
    b.finish()
    data = b"".join(f.appends)
    assert [len(a) for a in f.appends[1:2 * b.num_data_blocks:2]] == [BLOCK_TRAILER_SIZE] * b.num_data_blocks
    offset = 0
    for stored, trailer in zip(f.appends[0:2 * b.num_data_blocks:2], f.appends[1:2 * b.num_data_blocks:2]):
        assert trailer[0] == 0 and zlib.crc32(stored + trailer[:1]) == int.from_bytes(trailer[1:], "little")
        assert data[offset:offset + len(stored)] == stored
        offset += len(stored) + BLOCK_TRAILER_SIZE
