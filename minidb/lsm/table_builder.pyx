# cython: language_level=3
"""TableBuilder: writes one SST file from sorted internal keys (LevelDB's table/table_builder.cc).

Entries go into a data block until it reaches ``block_size`` bytes; the finished block is compressed (per the
level's compression), given its trailer, and queued for the file; the index block gets one entry per data block
(the block's last key -> its handle). Meanwhile the builder hashes each new user key for the bloom filter and
counts the table's properties. ``finish`` appends the filter block, the properties block, the metaindex block
(which names the filter's policy and locates the properties), the index block and the footer. FORMAT.md has the
byte layout.

Output goes through a write buffer: bytes reach the device in appends of ``write_buffer_size`` (RocksDB's
``writable_file_max_buffer_size``, 1 MiB), as RocksDB's WritableFileWriter does, so a 64 MiB SST costs 64 write
requests, not 16,000. The caller syncs the file after ``finish``. A data block stored uncompressed goes from the
block builder's buffer into the write buffer, checksummed where it lies: no bytes object is made per block.

``add`` is a ``cdef`` method, called from the flush and compaction loops at C speed; ``add_entry`` is the same for
Python callers.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport free, realloc

from . import compression
from .format import encode_footer

from .block_builder cimport BlockBuilder
from .bloom cimport BloomFilterPolicy, bloom_hash
from .buffer cimport Buffer, buf_append, buf_assign, buf_free, buf_init
from minidb.coding cimport put_varint64, store_le32
from .format cimport block_crc
from .dbformat cimport TRAILER_SIZE, TYPE_DELETION, compare_user, key_word

PROPERTIES_BLOCK = b"properties"  # metaindex key of the properties block
FILTER_PREFIX = b"filter."  # metaindex key of the filter block: this prefix + the filter policy's name


cdef class TableBuilder:
    """Builds one SST into ``file`` (a device File opened for writing). See the module docstring."""

    def __cinit__(self, file, *, int block_size=4096, str compression_name="none", policy=None,
                  dict props=None, Py_ssize_t write_buffer_size=1 << 20, int restart_interval=16):
        if block_size < 1:
            raise ValueError(f"bad block_size {block_size!r}: must be >= 1")
        self.file = file
        self.origin = getattr(file, "name", "sst")
        buf_init(&self.out)
        buf_init(&self.last_key)
        buf_init(&self.last_user_key)
        self.offset = 0
        self.write_buffer_size = write_buffer_size
        self.data_block = BlockBuilder(restart_interval)
        self.index_block = BlockBuilder(1)
        self.block_size = block_size
        self.code = compression.code_of(compression_name)
        self.policy = policy
        self.bloom = policy if isinstance(policy, BloomFilterPolicy) else None
        self.filter_keys = [] if policy is not None and self.bloom is None else None
        self.hashes = NULL
        self.nhashes = 0
        self.hashes_cap = 0
        self.props = dict(props or {})
        self.props["compression"] = compression_name
        self.num_entries = 0
        self.num_deletions = 0
        self.raw_key_size = 0
        self.raw_value_size = 0
        self.num_data_blocks = 0
        self.data_size = 0
        self.smallest = None
        self.smallest_seq = 0
        self.largest_seq = 0
        self.finished = False
        self.compressed = {}

    def __dealloc__(self):
        buf_free(&self.out)
        buf_free(&self.last_key)
        buf_free(&self.last_user_key)
        free(self.hashes)

    cdef int add(self, const unsigned char* key, Py_ssize_t klen, const unsigned char* val,
                 Py_ssize_t vlen) except -1:
        """Append one entry; internal keys must come in increasing order."""
        cdef Py_ssize_t ulen = klen - TRAILER_SIZE
        cdef uint64_t seq = key_word(key + ulen) >> 8
        cdef uint32_t* grown
        if self.num_entries == 0:
            self.smallest = (<const char*>key)[:klen]
            self.smallest_seq = seq
            self.largest_seq = seq
        if self.policy is not None and (
                self.num_entries == 0
                or compare_user(self.last_user_key.data, self.last_user_key.len, key, ulen) != 0):
            if self.bloom is not None:
                if self.nhashes == self.hashes_cap:
                    self.hashes_cap = self.hashes_cap * 2 if self.hashes_cap else 1024
                    grown = <uint32_t*>realloc(self.hashes, self.hashes_cap * sizeof(uint32_t))
                    if grown == NULL:
                        raise MemoryError("table builder: cannot grow the filter hashes")
                    self.hashes = grown
                self.hashes[self.nhashes] = bloom_hash(key, ulen)
                self.nhashes += 1
            else:
                self.filter_keys.append((<const char*>key)[:ulen])
            buf_assign(&self.last_user_key, key, ulen)
        if seq < self.smallest_seq:
            self.smallest_seq = seq
        if seq > self.largest_seq:
            self.largest_seq = seq
        self.data_block.add(key, klen, val, vlen)
        buf_assign(&self.last_key, key, klen)
        self.num_entries += 1
        if key[klen - 1] == TYPE_DELETION:
            self.num_deletions += 1
        self.raw_key_size += klen
        self.raw_value_size += vlen
        if self.data_block.size_estimate() >= self.block_size:
            self.flush_data_block()
        return 0

    cdef int flush_data_block(self) except -1:
        cdef unsigned char handle[20]
        cdef Py_ssize_t hlen
        cdef uint64_t start = self.offset
        if self.data_block.entries == 0:
            return 0
        if self.code == compression.NONE:
            self.data_block.seal()
            hlen = self.append_block(self.data_block.buf.data, self.data_block.buf.len, compression.NONE, handle)
        else:
            hlen = self.append_block_bytes(self.data_block.finish(), self.code, handle)
        self.data_block.reset()
        self.data_size += self.offset - start
        self.index_block.add(self.last_key.data, self.last_key.len, handle, hlen)
        self.num_data_blocks += 1
        return 0

    cdef bytes write_block(self, bytes raw, int code):
        """Queue one block (compressed with ``code`` if worth it) and its trailer; return its handle."""
        cdef unsigned char handle[20]
        cdef Py_ssize_t hlen = self.append_block_bytes(raw, code, handle)
        return (<const char*>handle)[:hlen]

    cdef Py_ssize_t append_block_bytes(self, bytes raw, int code, unsigned char* handle) except -1:
        """``write_block`` into ``handle`` (20 bytes of room); returns the handle's length."""
        if code != compression.NONE:
            name = compression.NAMES[code]
            self.compressed[name] = self.compressed.get(name, 0) + len(raw)
        used, stored = compression.compress(code, raw)
        return self.append_block(stored, len(stored), used, handle)

    cdef Py_ssize_t append_block(self, const unsigned char* stored, Py_ssize_t n, unsigned char code,
                                 unsigned char* handle) except -1:
        """Queue ``n`` stored bytes of type ``code`` and their trailer; write their handle into ``handle``."""
        cdef unsigned char trailer[5]  # the block trailer: type byte, crc32
        cdef Py_ssize_t hlen = put_varint64(handle, self.offset)
        hlen += put_varint64(handle + hlen, <uint64_t>n)
        trailer[0] = code
        store_le32(trailer + 1, block_crc(stored, n, code))
        self.emit(stored, n)
        self.emit(trailer, 5)
        return hlen

    cdef int emit(self, const unsigned char* data, Py_ssize_t n) except -1:
        buf_append(&self.out, data, n)
        self.offset += n
        if self.out.len >= self.write_buffer_size:
            self.drain()
        return 0

    cdef int drain(self) except -1:
        if self.out.len:
            self.file.append((<const char*>self.out.data)[:self.out.len])
            self.out.len = 0
        return 0

    def add_entry(self, bytes key, bytes value):
        """Append ``key`` (an internal key) -> ``value``; keys in increasing order."""
        if len(key) < TRAILER_SIZE:
            raise ValueError(f"not an internal key: {key!r}")
        self.add(key, len(key), value, len(value))

    cdef uint64_t estimated_size(self) noexcept:
        return self.offset + self.data_block.size_estimate()

    def file_size(self):
        """Bytes the file would have if finished now, roughly (the open data block counted uncompressed)."""
        return self.estimated_size()

    @property
    def largest(self):
        """The last internal key added (None if none)."""
        return (<const char*>self.last_key.data)[:self.last_key.len] if self.num_entries else None

    def finish(self):
        """Write the rest of the file (last data block, filter, properties, metaindex, index, footer).

        Returns the table's properties as a dict; the file is not synced (the caller does it).
        """
        if self.finished:
            raise ValueError(f"table {self.origin} already finished")
        self.flush_data_block()
        meta = BlockBuilder(1)
        entries = {}
        if self.policy is not None:
            if self.bloom is not None:
                filt = self.bloom.build(self.hashes, self.nhashes)
            else:
                filt = self.policy.create_filter(self.filter_keys)
                if not isinstance(filt, (bytes, bytearray)):
                    raise ValueError(f"filter policy {self.policy.name!r}: create_filter must return bytes")
                filt = bytes(filt)
            self.props["filter.size"] = len(filt)
            entries[FILTER_PREFIX + self.policy.name.encode()] = self.write_block(filt, compression.NONE)
        props = self.properties()
        pblock = BlockBuilder(1)
        for k in sorted(props):
            pblock.add_entry(k.encode(), _prop_bytes(props[k]))
        entries[PROPERTIES_BLOCK] = self.write_block(pblock.finish_block(), compression.NONE)
        for k in sorted(entries):
            meta.add_entry(k, entries[k])
        meta_handle = self.write_block(meta.finish_block(), compression.NONE)
        index_raw = self.index_block.finish()
        index_handle = self.write_block(index_raw, compression.NONE)
        footer = encode_footer(meta_handle, index_handle)
        self.emit(footer, len(footer))
        self.drain()
        self.finished = True
        props["file.size"] = self.offset
        props["index.size"] = len(index_raw)
        return props

    cdef dict properties(self):
        props = dict(self.props)
        props.update({
            "num.entries": self.num_entries,
            "num.deletions": self.num_deletions,
            "raw.key.size": self.raw_key_size,
            "raw.value.size": self.raw_value_size,
            "num.data.blocks": self.num_data_blocks,
            "data.size": self.data_size,
            "filter.policy": self.policy.name if self.policy is not None else "",
            "smallest.key": self.smallest if self.smallest is not None else b"",
            "largest.key": self.largest if self.num_entries else b"",
            "smallest.seqno": self.smallest_seq,
            "largest.seqno": self.largest_seq,
        })
        return props


def _prop_bytes(value):
    """A property value as stored: bytes as they are, anything else as its decimal or text form."""
    if isinstance(value, bytes):
        return value
    return str(value).encode()
