"""PageCache: the operating system's page cache, in front of the files an engine reads with buffered IO.

A database server's RAM holds more than the engine's own cache. What the engine's cache and the server leave free,
Linux fills with file pages the processes read and wrote, evicting the least recently used first. Whether an
engine's reads gain from it is the engine's choice:

* **InnoDB** is usually run with ``innodb_flush_method=O_DIRECT``, so its buffer pool is the only cache its pages
  have (the posts do not give the setting; this model assumes the usual one);
* **RocksDB** reads its SST files through the OS unless told otherwise (``use_direct_reads`` is off by default), so a
  block missing from the block cache is often still in the page cache. Compaction's reads are the clearest case:
  they skip the block cache, and they read files that flushes and compactions wrote shortly before. Seed 000's
  IO-bound server had "50gb of RAM for the database and OS" beside a 10 GB block cache; its in-memory server 256 GB
  beside 190 GB of caches.

What the page cache may hold is the RAM the engine's cache leaves: ``capacity_bytes`` once that cache is full, and
meanwhile also what it has not taken yet (``lent``). RocksDB's block cache takes memory only as blocks enter it, and
an insert-only load, which reads little through it, leaves most of it to the OS; InnoDB allocates its buffer pool
when the server starts, and lends nothing.

A read of a cached kind whose pages are all in the cache never reaches the device: ``iostat`` does not see it, so
the device's ``IOStats`` does not count it and it takes no device time. The cache counts it in its own ``hits``
(an ``IOStats`` with the same kind, cause and tag labels), so that every byte read is still counted somewhere. A
read with a page missing goes to the device whole (as the kernel reads the missing pages and their neighbours) and
leaves all its pages cached, as does every write: Linux caches the pages it writes back.

The cache is lost with the machine: a device crash empties it (``clear``).
"""

from __future__ import annotations

from collections import OrderedDict

from .iostats import IOStats

PAGE_BYTES = 4096  # Linux's page size on x86-64
BUFFERED_KINDS = ("sst",)  # the file kinds read through the page cache: the LSM's tables (see the docstring)


class PageCache:
    """The least recently used ``capacity_bytes`` of file pages of ``kinds``, and more while the engine's cache lends
    what it has not filled (``lent``; see the module docstring)."""

    def __init__(self, capacity_bytes: int, kinds: tuple[str, ...] = BUFFERED_KINDS) -> None:
        if not isinstance(capacity_bytes, int) or isinstance(capacity_bytes, bool) or capacity_bytes < 0:
            raise ValueError(f"bad page cache size {capacity_bytes!r}: must be an int >= 0 (bytes)")
        self.capacity_pages = capacity_bytes // PAGE_BYTES  # most pages held once the engine's cache is full
        self.lent = None  # () -> bytes the engine's cache has not taken yet, which pages may use meanwhile
        self.kinds = frozenset(kinds)  # the file kinds read with buffered IO
        self._lru: OrderedDict[tuple[str, int], None] = OrderedDict()  # (file, page), least recently used first
        self._pages: dict[str, set[int]] = {}  # file -> its cached pages, to forget a deleted file's
        self.hits = IOStats()  # reads served from the cache, labelled as the device would have labelled them

    def __repr__(self) -> str:
        return f"PageCache({len(self._lru)} of {self.capacity()} pages of {', '.join(sorted(self.kinds))})"

    def capacity(self) -> int:
        """The most pages held now: ``capacity_pages``, and the pages of what the engine's cache has not taken."""
        return self.capacity_pages + (self.lent() // PAGE_BYTES if self.lent is not None else 0)

    @property
    def nbytes(self) -> int:
        """Bytes of file pages held now."""
        return len(self._lru) * PAGE_BYTES

    def caches(self, kind: str) -> bool:
        """True if files of ``kind`` are read through this cache."""
        return kind in self.kinds

    def read(self, name: str, offset: int, n: int) -> bool:
        """True if every page of ``n`` bytes at ``offset`` of ``name`` is cached (a hit, no device read); else
        False, and the pages are cached now, as the device's read brings them in."""
        if not n or not self.capacity():
            return False  # no pages to hold: the read is the device's, as without a cache
        pages = _pages_of(offset, n)
        lru = self._lru
        hit = all((name, p) in lru for p in pages)
        self._touch(name, pages)
        return hit

    def wrote(self, name: str, offset: int, n: int) -> None:
        """``n`` bytes at ``offset`` of ``name`` were written: their pages are cached (most recently used)."""
        if n:
            self._touch(name, _pages_of(offset, n))

    def forget(self, name: str, from_offset: int = 0) -> None:
        """Drop the pages of ``name`` wholly past ``from_offset`` (the file was deleted, or truncated there: the page
        holding its last byte stays)."""
        held = self._pages.get(name)
        if not held:
            return
        first = from_offset // PAGE_BYTES + (1 if from_offset % PAGE_BYTES else 0)
        for p in [p for p in held if p >= first]:
            held.discard(p)
            del self._lru[(name, p)]
        if not held:
            del self._pages[name]

    def renamed(self, src: str, dst: str) -> None:
        """File ``src`` is now ``dst``: its cached pages go with it (as the most recently used, a simplification:
        the engines rename no file of a cached kind), and ``dst``'s old pages are dropped."""
        self.forget(dst)
        held = self._pages.pop(src, None)
        if held:
            for p in held:
                del self._lru[(src, p)]
            self._touch(dst, sorted(held))

    def clear(self) -> None:
        """Empty the cache (the machine lost its memory)."""
        self._lru.clear()
        self._pages.clear()

    def _touch(self, name: str, pages) -> None:
        """Make ``pages`` of ``name`` the most recently used, adding those missing and evicting the least
        recently used beyond the capacity (which shrinks as the engine's cache fills)."""
        capacity = self.capacity()
        if not capacity:
            return
        lru = self._lru
        held = self._pages.setdefault(name, set())
        for p in pages:
            key = (name, p)
            if key in lru:
                lru.move_to_end(key)
            else:
                lru[key] = None
                held.add(p)
        while len(lru) > capacity:
            (old, p), _ = lru.popitem(last=False)
            old_pages = self._pages[old]
            old_pages.discard(p)
            if not old_pages:
                del self._pages[old]
        if not held and name in self._pages:
            del self._pages[name]


def _pages_of(offset: int, n: int) -> range:
    """The numbers of the pages that ``n`` (> 0) bytes at ``offset`` touch."""
    return range(offset // PAGE_BYTES, (offset + n - 1) // PAGE_BYTES + 1)
