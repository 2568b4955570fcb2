"""BlockCache: an LRU cache of decompressed blocks, charged by bytes (RocksDB's LRUCache as the block cache).

Point lookups and scans read data blocks through it; a hit costs no IO. Index and filter blocks go through it too
when ``cache_index_and_filter_blocks`` is on (otherwise each open table pins its own in memory, outside the cache,
RocksDB's default). Compaction reads bypass it (RocksDB reads compaction inputs with ``fill_cache=false``), so a
compaction neither pollutes the cache nor depends on its size: that is why write cost per insert barely changes
with the cache size.

Keys are ``(file number, block offset)``; file numbers are unique in a database, so one cache serves every column
family. Hits and misses are counted per block kind (``data``, ``index``, ``filter``).
"""

from __future__ import annotations

from collections import OrderedDict

KINDS = ("data", "index", "filter")


class BlockCache:
    """LRU by bytes; ``capacity`` 0 caches nothing (every read goes to the device)."""

    def __init__(self, capacity: int) -> None:
        if not isinstance(capacity, int) or capacity < 0:
            raise ValueError(f"bad block_cache_bytes {capacity!r}: must be an int >= 0")
        self.capacity = capacity  # most bytes of blocks held
        self.usage = 0  # bytes of blocks held now
        self._entries: OrderedDict[tuple[int, int], tuple[object, int]] = OrderedDict()  # key -> (block, charge)
        self._by_file: dict[int, set[int]] = {}  # file number -> offsets of its cached blocks
        self.hits = {k: 0 for k in KINDS}  # lookups that found the block, per kind
        self.misses = {k: 0 for k in KINDS}  # lookups that did not, per kind
        self.inserts = 0  # blocks inserted
        self.evictions = 0  # blocks evicted to make room

    def lookup(self, key: tuple[int, int], kind: str):
        """The cached block for ``key`` (now most recently used), or None; counts a hit or a miss of ``kind``."""
        entry = self._entries.get(key)
        if entry is None:
            self.misses[kind] += 1
            return None
        self._entries.move_to_end(key)
        self.hits[kind] += 1
        return entry[0]

    def insert(self, key: tuple[int, int], block, charge: int) -> None:
        """Cache ``block`` costing ``charge`` bytes, evicting least recently used blocks to make room."""
        if charge > self.capacity:
            return
        self._remove(key)
        while self.usage + charge > self.capacity:
            self._remove(next(iter(self._entries)))
            self.evictions += 1
        self._entries[key] = (block, charge)
        self._by_file.setdefault(key[0], set()).add(key[1])
        self.usage += charge
        self.inserts += 1

    def _remove(self, key: tuple[int, int]) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.usage -= entry[1]
            offsets = self._by_file[key[0]]
            offsets.discard(key[1])
            if not offsets:
                del self._by_file[key[0]]

    def erase_file(self, number: int) -> None:
        """Drop every block of file ``number`` (after the file is deleted)."""
        for offset in list(self._by_file.get(number, ())):
            self._remove((number, offset))

    def __len__(self) -> int:
        return len(self._entries)

    def hit_miss(self) -> tuple[int, int]:
        """Lookups answered from the cache and lookups that missed, over every kind of block."""
        return sum(self.hits.values()), sum(self.misses.values())

    def counters(self) -> dict:
        """Hits, misses and usage as a flat dict (the engine's stats() includes it)."""
        out = {"block_cache_capacity": self.capacity, "block_cache_usage": self.usage,
               "block_cache_hits": sum(self.hits.values()), "block_cache_misses": sum(self.misses.values()),
               "block_cache_inserts": self.inserts, "block_cache_evictions": self.evictions}
        for kind in KINDS:
            out[f"block_cache_{kind}_hits"] = self.hits[kind]
            out[f"block_cache_{kind}_misses"] = self.misses[kind]
        return out
