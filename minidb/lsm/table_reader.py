"""TableReader: an open SST (LevelDB's table/table.cc), for point lookups and iteration.

Opening a table reads its footer, its metaindex block (which locates the properties and the filter), and its
properties. Its index block and filter are then either *pinned* (read once and kept by the reader, RocksDB's
default) or read through the block cache whenever needed (``cache_index_and_filter_blocks``), where they compete
with data blocks and can be evicted.

The metadata lies at the end of the file (FORMAT.md), so the open reads it in three requests, not one per block:
the footer; then the metaindex block with the index block (if pinned), which end at the footer; then the filter
block (if pinned) with the properties block, which end at the metaindex. RocksDB's open (``BlockBasedTable::Open``,
2018) reads the file's last 512 KB in one request for the same reason; its footer and metaindex say where the blocks
are only once read, so ours follow them.

A point lookup (``get``) asks the filter first: if it says the key is absent, the table costs no data block read
("bloom useful"). Otherwise the index block gives the one data block that may hold the key, read through the block
cache. The filter is trusted only if it was built by a policy of the same name as the reader's: the metaindex names
it ``filter.<policy name>``, so a reader with another policy simply finds no filter, as in LevelDB.

Iterators for compaction read the file sequentially through a readahead buffer (RocksDB's
``compaction_readahead_size``, 2 MiB) and bypass the cache; iterators for scans go through the cache.
"""

from __future__ import annotations

from collections import Counter

from minidb.errors import CorruptionError

from . import compression
from .block import Block
from .format import BLOCK_TRAILER_SIZE, FOOTER_SIZE, decode_block, decode_footer, decode_handle_bytes
from .readahead import Readahead
from .table_builder import FILTER_PREFIX, PROPERTIES_BLOCK
from .two_level_iter import TableIter

INT_PROPERTIES = ("num.entries", "num.deletions", "raw.key.size", "raw.value.size", "num.data.blocks",
                  "data.size", "smallest.seqno", "largest.seqno", "level", "filter.size")


class TableReader:
    """An open SST; see the module docstring. ``device`` holds the file, ``number`` names it in the cache."""

    def __init__(self, device, name: str, number: int, size: int, *, cache, policy, cache_meta: bool,
                 work=None) -> None:
        self.name = name  # file name on the device
        self.work = work if work is not None else Counter()  # CPU work counts (page_visits, *_decompress_bytes)
        self.number = number  # file number: the block cache key's first half
        self.size = size  # file size in bytes
        self.cache = cache  # the shared BlockCache
        self.policy = policy  # the reader's filter policy, or None
        self.cache_meta = cache_meta  # True: index and filter blocks go through the cache instead of being pinned
        self.file = device.open(name, kind="sst")  # the device file
        if self.file.size != size:
            raise CorruptionError(f"file {name} holds {self.file.size} bytes, but the MANIFEST says {size}")
        if size < FOOTER_SIZE:
            raise CorruptionError(f"file {name} is too short ({size} bytes) to be an SST")
        (m_off, m_size), (i_off, i_size) = decode_footer(self.file.read(size - FOOTER_SIZE, FOOTER_SIZE),
                                                          f"{name} offset {size - FOOTER_SIZE}")
        self.index_handle = (i_off, i_size)  # where the index block is
        self._prefetched = (0, b"")  # (offset, bytes) of the metadata read in one request (see the docstring)
        pinned = not cache_meta  # the open reads the index and filter too, to keep them
        self._prefetch([(m_off, m_size)] + ([(i_off, i_size)] if pinned else []))
        meta = self._read(m_off, m_size, internal_keys=False)
        self._index = self._read(i_off, i_size) if pinned else None  # pinned index block
        handles = {}
        for key, value in meta.iterator().entries():
            off, sz, _ = decode_handle_bytes(value, f"{name} metaindex")
            handles[key] = (off, sz)
        # The filter block is used only if the reader's policy has the name the writer's had.
        self.filter_handle = None  # where the filter block is, or None when there is no usable filter
        if policy is not None:
            self.filter_handle = handles.get(FILTER_PREFIX + policy.name.encode())
        self._prefetch([h for h in (handles.get(PROPERTIES_BLOCK), pinned and self.filter_handle) if h])
        self.properties = self._read_properties(handles.get(PROPERTIES_BLOCK))  # the table's properties
        self.pinned_filter = None  # the filter bytes the reader keeps (None: none, or read through the cache)
        if pinned and self.filter_handle is not None:
            self.pinned_filter = self._read_raw(*self.filter_handle)
        self._prefetched = (0, b"")  # the open is done: every later read is its own request

    def check_meta(self, meta) -> None:
        """CorruptionError unless the table's properties agree with what the MANIFEST says of it (``meta``, a
        FileMeta): catches an SST swapped with another of the same size."""
        p = self.properties
        mine = (p.get("num.entries"), p.get("num.deletions"), p.get("smallest.seqno"), p.get("largest.seqno"))
        theirs = (meta.num_entries, meta.num_deletions, meta.smallest_seq, meta.largest_seq)
        if mine != theirs:
            raise CorruptionError(f"{self.name} is not the table the MANIFEST describes: (entries, deletions, "
                                  f"smallest seq, largest seq) are {mine} in the file, {theirs} in the MANIFEST")

    # -- reading blocks ---------------------------------------------------------------------------------------
    def check_handle(self, offset: int, size: int) -> None:
        """CorruptionError unless a block at ``offset`` of stored size ``size`` (and its trailer) lies before the
        footer: a handle is read from the file, so it may point anywhere."""
        if offset + size + BLOCK_TRAILER_SIZE > self.size - FOOTER_SIZE:
            raise CorruptionError(f"{self.name}: block handle (offset {offset}, size {size}) points past the "
                                  f"blocks, which end at {self.size - FOOTER_SIZE}")

    def _prefetch(self, handles) -> None:
        """Read the blocks of ``handles`` (valid ones) in one request, from the first of them to the end of the last,
        for the open's reads of them (``_read_raw``)."""
        handles = [(off, sz) for off, sz in handles if off + sz + BLOCK_TRAILER_SIZE <= self.size - FOOTER_SIZE]
        if handles:
            start = min(off for off, _ in handles)
            end = max(off + sz + BLOCK_TRAILER_SIZE for off, sz in handles)
            self._prefetched = (start, self.file.read(start, end - start))

    def _read_raw(self, offset: int, size: int) -> bytes:
        """The raw (checked, decompressed) contents of the block at ``offset`` with stored size ``size``: from the
        open's prefetched bytes when they hold it, else read."""
        self.check_handle(offset, size)
        start, data = self._prefetched
        if start <= offset and offset + size + BLOCK_TRAILER_SIZE <= start + len(data):
            stored = data[offset - start:offset - start + size + BLOCK_TRAILER_SIZE]
        else:
            stored = self.file.read(offset, size + BLOCK_TRAILER_SIZE)
        return self.decoded(stored, f"{self.name} offset {offset}")

    def decoded(self, stored: bytes, origin: str) -> bytes:
        """Check and decompress a block read with its trailer, counting the decompression work."""
        raw, code = decode_block(stored, origin)
        if code != compression.NONE:
            self.work[f"{compression.NAMES[code]}_decompress_bytes"] += len(raw)
        return raw

    def _read(self, offset: int, size: int, internal_keys: bool = True) -> Block:
        return Block(self._read_raw(offset, size), f"{self.name} offset {offset}", internal_keys)

    def _read_properties(self, handle) -> dict:
        if handle is None:
            return {}
        props = {}
        for key, value in self._read(*handle, internal_keys=False).iterator().entries():
            name = key.decode(errors="replace")
            if name in INT_PROPERTIES:
                if not value.isdigit():
                    raise CorruptionError(f"{self.name} properties: {name} is {value[:20]!r}, not a number")
                value = int(value)
            props[name] = value
        if isinstance(props.get("compression"), bytes):
            props["compression"] = props["compression"].decode(errors="replace")
        if isinstance(props.get("filter.policy"), bytes):
            props["filter.policy"] = props["filter.policy"].decode(errors="replace")
        return props

    def data_block(self, offset: int, size: int, stats: dict | None = None) -> Block:
        """Data block at ``offset`` through the block cache; counts device reads in ``stats['blocks_read']``."""
        key = (self.number, offset)
        self.work["page_visits"] += 1
        block = self.cache.lookup(key, "data")
        if block is None:
            block = self._read(offset, size)
            self.cache.insert(key, block, len(block))
            if stats is not None:
                stats["blocks_read"] += 1
        return block

    def index_block(self) -> Block:
        """The index block: pinned, or through the cache."""
        self.work["page_visits"] += 1
        if self._index is not None:
            return self._index
        key = (self.number, self.index_handle[0])
        block = self.cache.lookup(key, "index")
        if block is None:
            block = self._read(*self.index_handle)
            self.cache.insert(key, block, len(block))
        return block

    def filter_data(self) -> bytes | None:
        """The filter bytes (pinned, or through the cache), or None if the table has no usable filter."""
        if self.filter_handle is None:
            return None
        self.work["page_visits"] += 1
        if self.pinned_filter is not None:
            return self.pinned_filter
        key = (self.number, self.filter_handle[0])
        data = self.cache.lookup(key, "filter")
        if data is None:
            data = self._read_raw(*self.filter_handle)
            self.cache.insert(key, data, len(data))
        return data

    # -- lookups ------------------------------------------------------------------------------------------------
    def may_contain(self, user_key: bytes) -> bool | None:
        """The filter's answer for ``user_key``: False (surely absent), True (maybe), None (no filter)."""
        data = self.filter_data()
        if data is None:
            return None
        return bool(self.policy.key_may_match(user_key, data))

    def seek(self, target: bytes, stats: dict | None = None):
        """The first (internal key, value) >= ``target`` in this table, or None: reads at most one data block."""
        it = self.index_block().iterator()
        hit = it.seek_key(target)
        self.work["key_compares"] += it.compares
        if hit is None:
            return None
        offset, size, _ = decode_handle_bytes(hit[1], f"{self.name} index")
        if stats is not None:
            stats["blocks_accessed"] += 1
        data = self.data_block(offset, size, stats).iterator()
        hit = data.seek_key(target)
        self.work["key_compares"] += data.compares
        return hit

    def iterator(self, *, for_compaction: bool = False, readahead: int = 2 << 20) -> TableIter:
        """A TableIter over the table: through the cache, or (``for_compaction``) through a readahead buffer."""
        if for_compaction:
            loader = Readahead(self, readahead)
        else:
            loader = self.data_block
        return TableIter(self.index_block(), loader, self.name)

    def close(self) -> None:
        """Release the file handle (the cache may still hold blocks; the engine erases them on deletion)."""
        self.file.close()
