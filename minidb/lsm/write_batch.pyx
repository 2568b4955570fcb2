# cython: language_level=3
"""The WAL payload of a write batch (RocksDB's db/write_batch.cc): encode it, and apply it to memtables.

A client's ``WriteBatch`` becomes one WAL record, so it is durable (and replayed) all or nothing. Its payload::

    fixed64 sequence      the first sequence number of the batch (the i-th operation gets sequence + i)
    fixed32 count         operations in the batch
    fixed64 synced        the last sequence number known durable in the WAL when this record was written
    operation*            tag byte, then:
        0x01 put          varint32 key length, key, varint32 value length, value    (column family 0)
        0x00 delete       varint32 key length, key                                   (column family 0)
        0x05 put          varint32 column family id, then as 0x01
        0x04 delete       varint32 column family id, then as 0x00

The tags are RocksDB's (kTypeValue, kTypeDeletion, kTypeColumnFamilyValue, kTypeColumnFamilyDeletion). Keys are
already *column-family keys*: the 4-byte keyspace prefix, then the client's key (see keyspaces.py). The ``synced``
field is this engine's addition: recovery uses it to tell a torn tail (records never promised durable) from
corruption of records that were synced (see wal.py).

Applying a payload inserts its operations into the memtables of their column families; the engine does it right
after the WAL write, and recovery does exactly the same with the payloads it reads back.
"""

from libc.stdint cimport uint32_t, uint64_t

from minidb.errors import CorruptionError

from .buffer cimport Buffer, buf_append, buf_append_varint, buf_free, buf_init, buf_reserve
from minidb.coding cimport get_varint64, load_le32, load_le64, store_le32, store_le64
from .dbformat cimport TYPE_DELETION, TYPE_VALUE
from .memtable cimport MemTable

HEADER_SIZE = 20  # fixed64 sequence + fixed32 count + fixed64 synced
cdef enum:
    TAG_DELETE = 0x00
    TAG_PUT = 0x01
    TAG_CF_DELETE = 0x04
    TAG_CF_PUT = 0x05


def encode_batch(list ops, dict keyspaces, uint64_t sequence, uint64_t synced):
    """The payload of ``ops`` (a WriteBatch's ``(keyspace, key, value or None)`` list).

    ``keyspaces`` maps a keyspace name to ``(column family id, 4-byte prefix)``; an unknown name raises KeyError
    with the name, so the caller can create the keyspace and encode again.
    """
    cdef Buffer out
    cdef Py_ssize_t i, n = len(ops)
    cdef tuple op, ks
    cdef bytes key, value, prefix
    cdef object v
    cdef uint32_t cf
    buf_init(&out)
    try:
        buf_reserve(&out, 20 + n * 32)
        out.len = 20
        store_le64(out.data, sequence)
        store_le32(out.data + 8, <uint32_t>n)
        store_le64(out.data + 12, synced)
        for i in range(n):
            op = <tuple>ops[i]
            ks = <tuple>keyspaces[op[0]]
            cf = ks[0]
            prefix = ks[1]
            key = op[1]
            v = op[2]
            if cf == 0:
                buf_append(&out, b"\x00" if v is None else b"\x01", 1)
            else:
                buf_append(&out, b"\x04" if v is None else b"\x05", 1)
                buf_append_varint(&out, cf)
            buf_append_varint(&out, len(prefix) + len(key))
            buf_append(&out, prefix, len(prefix))
            buf_append(&out, key, len(key))
            if v is not None:
                value = v
                buf_append_varint(&out, len(value))
                buf_append(&out, value, len(value))
        return (<const char*>out.data)[:out.len]
    finally:
        buf_free(&out)


def batch_header(bytes payload):
    """``(sequence, count, synced)`` of a payload; CorruptionError if it is too short."""
    if len(payload) < HEADER_SIZE:
        raise CorruptionError(f"write batch of {len(payload)} bytes is shorter than its header")
    cdef const unsigned char* p = payload
    return load_le64(p), load_le32(p + 8), load_le64(p + 12)


def apply_batch(bytes payload, list memtables, list skip=None):
    """Insert the payload's operations into ``memtables[cf id]``.

    Returns ``(last sequence number used, deletes, bytes of keys, bytes of values)`` over the operations applied.
    ``skip[cf]`` True drops that family's operations (recovery: its data in this WAL is already in an SST).
    A malformed payload or an unknown column family raises CorruptionError.
    """
    cdef const unsigned char* p = payload
    cdef const unsigned char* limit = p + len(payload)
    cdef uint64_t seq, count, i, cf, klen, vlen
    cdef int tag, vtype
    cdef const unsigned char* key
    cdef const unsigned char* val
    cdef MemTable mem
    cdef Py_ssize_t nmem = len(memtables)
    cdef Py_ssize_t nskip = len(skip) if skip is not None else 0
    cdef uint64_t deletes = 0, key_bytes = 0, value_bytes = 0
    if len(payload) < HEADER_SIZE:
        raise CorruptionError(f"write batch of {len(payload)} bytes is shorter than its header")
    seq = load_le64(p)
    count = load_le32(p + 8)
    p += HEADER_SIZE
    for i in range(count):
        if p >= limit:
            raise CorruptionError(f"write batch ends after {i} of its {count} operations")
        tag = p[0]
        p += 1
        cf = 0
        if tag == TAG_CF_PUT or tag == TAG_CF_DELETE:
            p = get_varint64(p, limit, &cf)
            if p == NULL:
                raise CorruptionError("bad column family id in a write batch")
        elif tag != TAG_PUT and tag != TAG_DELETE:
            raise CorruptionError(f"unknown tag {tag:#x} in a write batch")
        p = get_varint64(p, limit, &klen)
        if p == NULL or klen > <uint64_t>(limit - p):
            raise CorruptionError("bad key in a write batch")
        key = p
        p += klen
        val = NULL
        vlen = 0
        if tag == TAG_PUT or tag == TAG_CF_PUT:
            vtype = TYPE_VALUE
            p = get_varint64(p, limit, &vlen)
            if p == NULL or vlen > <uint64_t>(limit - p):
                raise CorruptionError("bad value in a write batch")
            val = p
            p += vlen
        else:
            vtype = TYPE_DELETION
        if cf >= <uint64_t>nmem or memtables[cf] is None:
            raise CorruptionError(f"write batch names unknown column family {cf}")
        if cf < <uint64_t>nskip and skip[cf]:
            continue
        mem = <MemTable>memtables[cf]
        mem.add(seq + i, vtype, key, <Py_ssize_t>klen, val, <Py_ssize_t>vlen)
        deletes += vtype == TYPE_DELETION
        key_bytes += klen
        value_bytes += vlen
    if p != limit:
        raise CorruptionError(f"{limit - p} stray bytes after the {count} operations of a write batch")
    return (seq + count - 1 if count else seq - 1), deletes, key_bytes, value_bytes
