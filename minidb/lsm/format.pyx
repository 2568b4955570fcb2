# cython: language_level=3
"""The SST file format's framing (LevelDB's table/format.cc): block handles, block trailers, the footer.

See FORMAT.md for the whole layout. In short: every block is followed by a 5-byte trailer (compression type, then
crc32 of the block's stored bytes and the type byte); blocks are located by *handles* (varint64 offset, varint64
size of the stored bytes, trailer excluded); and the file ends with a fixed 48-byte footer holding the handles of
the metaindex block and of the index block, padded, then an 8-byte magic number that identifies the format.

The crc is zlib's CRC-32 (``minidb.crc``), computed on the bytes where they lie (``block_crc``), so writing or
checking a block copies nothing to checksum it.
"""

from libc.stdint cimport uint32_t, uint64_t

from minidb.errors import CorruptionError

from . import compression
from minidb.coding cimport get_varint64, load_le32, put_varint64
from minidb.crc cimport crc32_update


BLOCK_TRAILER_SIZE = 5  # 1 byte compression type + 4 bytes crc32
FOOTER_SIZE = 48  # two handles padded to 40 bytes, then the 8-byte magic number
MAGIC = 0x4D494E4944425354  # "MINIDBST" as a big-endian number, stored little-endian like LevelDB's magic
HANDLES_SIZE = 40  # room for two handles of at most 20 bytes each (two varint64 of up to 10 bytes)


cdef int decode_handle(const unsigned char* p, Py_ssize_t n, uint64_t* offset, uint64_t* size,
                       object origin) except -1:
    cdef const unsigned char* q = get_varint64(p, p + n, offset)
    if q != NULL:
        q = get_varint64(q, p + n, size)
    if q == NULL:
        raise CorruptionError(f"bad block handle in {origin}")
    return <int>(q - p)


def decode_handle_bytes(bytes data, origin="handle"):
    """``(offset, size, bytes used)`` of the handle at the start of ``data``; CorruptionError if malformed."""
    cdef uint64_t offset, size
    used = decode_handle(data, len(data), &offset, &size, origin)
    return offset, size, used


cdef uint32_t block_crc(const unsigned char* stored, Py_ssize_t n, unsigned char code) noexcept nogil:
    """The crc32 of a block's trailer: over its ``n`` stored bytes, then its compression type byte."""
    return crc32_update(crc32_update(0, stored, n), &code, 1)


def decode_block(bytes stored_with_trailer, str origin):
    """``(raw contents, compression code)`` of a block read with its trailer: checks the crc, then decompresses."""
    cdef Py_ssize_t n = len(stored_with_trailer) - BLOCK_TRAILER_SIZE
    if n < 0:
        raise CorruptionError(f"truncated block in {origin}")
    cdef const unsigned char* p = stored_with_trailer
    if block_crc(p, n, p[n]) != load_le32(p + n + 1):
        raise CorruptionError(f"block checksum mismatch in {origin}")
    code = p[n]
    return compression.decompress(code, stored_with_trailer[:n], origin), code


def encode_footer(bytes metaindex_handle, bytes index_handle):
    """The 48-byte footer."""
    handles = metaindex_handle + index_handle
    return handles + b"\0" * (HANDLES_SIZE - len(handles)) + MAGIC.to_bytes(8, "little")


def decode_footer(bytes footer, str origin):
    """``((metaindex offset, size), (index offset, size))`` from the footer; CorruptionError if it is not one."""
    if len(footer) != FOOTER_SIZE or int.from_bytes(footer[HANDLES_SIZE:], "little") != MAGIC:
        raise CorruptionError(f"not an SST (bad magic number) in {origin}")
    m_off, m_size, used = decode_handle_bytes(footer, origin)
    i_off, i_size, _ = decode_handle_bytes(footer[used:], origin)
    return (m_off, m_size), (i_off, i_size)


def encode_varint(uint64_t value):
    """``value`` as a varint (7 bits per byte, low groups first)."""
    cdef unsigned char buf[10]
    cdef int n = put_varint64(buf, value)
    return (<char*>buf)[:n]


def decode_varint(bytes data, Py_ssize_t pos, str origin="record"):
    """``(value, position after it)`` of the varint at ``data[pos]``; CorruptionError if malformed."""
    cdef uint64_t value
    cdef const unsigned char* p = data
    if pos < 0 or pos > len(data):
        raise CorruptionError(f"varint position {pos} outside {len(data)} bytes in {origin}")
    cdef const unsigned char* q = get_varint64(p + pos, p + len(data), &value)
    if q == NULL:
        raise CorruptionError(f"bad varint at byte {pos} in {origin}")
    return value, q - p
