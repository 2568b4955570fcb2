"""FORMAT.md is the truth: decode the engine's files with an independent reader written from the document alone."""

import zlib

import lz4.block

from minidb.kv import WriteBatch
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny


def varint(data, pos):
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def block_at(f, handle):
    offset, size = handle
    stored, trailer = f[offset:offset + size], f[offset + size:offset + size + 5]
    assert zlib.crc32(stored + trailer[:1]) == int.from_bytes(trailer[1:], "little")
    return {0: lambda s: s, 4: lz4.block.decompress}[trailer[0]](stored)


def entries(block):
    n = int.from_bytes(block[-4:], "little")
    end = len(block) - 4 - 4 * n
    pos, key, out = 0, b"", []
    while pos < end:
        shared, pos = varint(block, pos)
        non_shared, pos = varint(block, pos)
        vlen, pos = varint(block, pos)
        key = key[:shared] + block[pos:pos + non_shared]
        pos += non_shared
        out.append((key, block[pos:pos + vlen]))
        pos += vlen
    return out


def handle(value):
    offset, pos = varint(value, 0)
    size, _ = varint(value, pos)
    return offset, size


def test_sst_layout():
    dev = SimDevice()
    db = open_tiny(dev, compression="lz4")
    for i in range(3000):
        db.put("t", b"%06d" % i, b"value %d " % i * 3)
    db.delete("t", b"000007")
    db.flush()
    for name in [n for n in dev.list() if n.endswith(".sst")]:
        f = dev.durable_bytes(name)
        footer = f[-48:]
        assert int.from_bytes(footer[40:], "little") == int.from_bytes(b"MINIDBST", "big")
        m_off, pos = varint(footer, 0)
        m_size, pos = varint(footer, pos)
        i_off, pos = varint(footer, pos)
        i_size, _ = varint(footer, pos)
        meta = dict(entries(block_at(f, (m_off, m_size))))
        assert sorted(meta) == [b"filter.leveldb.BuiltinBloomFilter2", b"properties"]
        props = dict(entries(block_at(f, handle(meta[b"properties"]))))
        bloom = block_at(f, handle(meta[b"filter.leveldb.BuiltinBloomFilter2"]))
        assert bloom[-1] == 6  # k for 10 bits per key
        rows = []
        for last_key, h in entries(block_at(f, (i_off, i_size))):
            block_rows = entries(block_at(f, handle(h)))
            assert block_rows[-1][0] == last_key
            rows += block_rows
        assert len(rows) == int(props[b"num.entries"])
        assert rows[0][0] == props[b"smallest.key"] and rows[-1][0] == props[b"largest.key"]
        assert props[b"compression"] == b"lz4"
        for key, value in rows:
            seq_type = int.from_bytes(key[-8:], "big")
            assert key[:4] == (1).to_bytes(4, "big")  # the keyspace's id prefix
            assert (seq_type & 0xFF) in (0, 1) and (seq_type & 0xFF == 1 or value == b"")
        assert [k[:-8] for k, _ in rows] == sorted(k[:-8] for k, _ in rows)


def test_wal_layout():
    dev = SimDevice()
    db = open_tiny(dev, memtable_bytes=1 << 20, column_families={"cf1": {}}, keyspace_cf={"b": "cf1"})
    manifest = next(n for n in dev.list() if n.startswith("MANIFEST-"))
    manifest_size = dev.size(manifest)  # when the WAL started (the batch's keyspaces are edits after it)
    b = WriteBatch()
    b.put("a", b"k1", b"v1")
    b.delete("b", b"k2")
    db.write(b)
    (name,) = [n for n in dev.list() if n.endswith(".log")]
    log = dev.durable_bytes(name)
    header, length = log[7:7 + 48], int.from_bytes(log[4:6], "little")
    assert length == 48 and log[6] == 1 and zlib.crc32(log[6:7] + header) == int.from_bytes(log[:4], "little")
    fields = [int.from_bytes(header[i:i + 8], "little") for i in range(8, 48, 8)]
    assert header[:8] == b"MDBWALH2"
    assert fields == [int(name[:-4]), 0, 0, int(manifest[9:]), manifest_size]  # itself, no predecessor
    log = log[7 + 48:]
    for _ in ("a", "b"):  # a mark after each keyspace's MANIFEST edit: the MANIFEST's number and new size
        assert int.from_bytes(log[4:6], "little") == 24 and log[7:15] == b"MDBMARK2"
        assert int.from_bytes(log[15:23], "little") == int(manifest[9:])
        assert manifest_size < int.from_bytes(log[23:31], "little") <= dev.size(manifest)
        log = log[31:]
    crc, length, ftype = int.from_bytes(log[:4], "little"), int.from_bytes(log[4:6], "little"), log[6]
    payload = log[7:7 + length]
    assert ftype == 1 and zlib.crc32(log[6:7] + payload) == crc  # one FULL fragment
    seq, count, synced = (int.from_bytes(payload[:8], "little"), int.from_bytes(payload[8:12], "little"),
                          int.from_bytes(payload[12:20], "little"))
    assert (seq, count, synced) == (1, 2, 0)
    ops = payload[20:]
    assert ops[0] == 0x01 and ops[1] == 6 and ops[2:8] == (1).to_bytes(4, "big") + b"k1"
    assert ops[8] == 2 and ops[9:11] == b"v1"
    assert ops[11] == 0x04 and ops[12] == 1 and ops[13] == 6 and ops[14:20] == (2).to_bytes(4, "big") + b"k2"
    assert len(ops) == 20


def test_current_and_manifest():
    dev = SimDevice()
    open_tiny(dev).close()
    current = dev.durable_bytes("CURRENT")
    assert current.startswith(b"MANIFEST-") and current.endswith(b"\n")
    manifest = dev.durable_bytes(current[:-1].decode())
    length, ftype = int.from_bytes(manifest[4:6], "little"), manifest[6]
    edit = manifest[7:7 + length]
    assert ftype == 1
    tag, pos = varint(edit, 0)
    assert tag == 9  # the snapshot starts with the format version
    version, pos = varint(edit, pos)
    assert version == 2
    tag, pos = varint(edit, pos)
    assert tag == 7  # then creates the column families
    cf_id, pos = varint(edit, pos)
    n, pos = varint(edit, pos)
    assert (cf_id, edit[pos:pos + n]) == (0, b"default")
