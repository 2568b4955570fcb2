"""TableCache: the open SST readers of one engine (LevelDB's TableCache), and the files scans still read.

Every SST is opened once, on first use, by whoever needs it (a get, a scan, a flush or compaction): ``get(cf, f)``.
A compaction makes its input files obsolete (``obsolete``); a file that a scan still reads (``ref``/``unref``) is
deleted only when the last such scan ends. ``search`` looks one key up in one file's data block once its filter
let it through, counting what a point lookup pays for it.
"""

from __future__ import annotations

from collections import Counter

from .table_outputs import sst_name
from .table_reader import TableReader


class TableCache:
    """The open readers of one engine's SSTs; see the module docstring."""

    def __init__(self, device, cache, counters) -> None:
        self.device = device  # where the SSTs live; their reads are counted there
        self.cache = cache  # block_cache.BlockCache: the blocks every reader shares
        self.counters = counters  # the engine's counters: what readers and probes count
        self.readers: dict[int, TableReader] = {}  # open SSTs by file number (max_open_files = -1)
        self._refs: Counter = Counter()  # SST number -> scans reading it
        self._obsolete: set[int] = set()  # compacted SSTs to delete when their last scan ends

    def get(self, cf, f) -> TableReader:
        """The open reader of SST ``f`` of column family ``cf`` (opened on first use)."""
        reader = self.readers.get(f.number)
        if reader is None:
            reader = TableReader(self.device, sst_name(f.number), f.number, f.size, cache=self.cache,
                                 policy=cf.policy, cache_meta=cf.options.cache_index_and_filter_blocks,
                                 work=self.counters)
            reader.check_meta(f)
            self.readers[f.number] = reader
        return reader

    def search(self, reader: TableReader, ukey: bytes, target: bytes, may: bool | None):
        """Past the filter of ``reader``'s table (``may``: its answer, None if it has none), look ``ukey`` up in
        the one data block that may hold it, seeking ``target``. Returns (found, value); counts whether the filter's
        "maybe" was true. A point lookup asks each table this in turn: ``point_lookup.get_from_files``."""
        c = self.counters
        hit = reader.seek(target, c)
        if hit is not None and hit[0][:-8] == ukey:
            if may:
                c["bloom_true_positive"] += 1
            return True, (None if hit[0][-1] == 0 else hit[1])
        if may:
            c["bloom_false_positive"] += 1
        return False, None

    def ref(self, numbers: list[int]) -> None:
        """A scan starts reading the SSTs ``numbers``: none of them is deleted until it ends."""
        self._refs.update(numbers)

    def unref(self, numbers: list[int], delete: bool = True) -> None:
        """The scan reading ``numbers`` ended: delete those it alone kept (unless not ``delete``: closed)."""
        self._refs.subtract(numbers)
        for n in numbers:
            if self._refs[n] <= 0:
                del self._refs[n]
                if n in self._obsolete:
                    self._obsolete.discard(n)
                    if delete:
                        self.obsolete(n)

    def obsolete(self, number: int) -> None:
        """Delete SST ``number`` now, or when the last scan reading it ends."""
        if self._refs.get(number):
            self._obsolete.add(number)
            return
        reader = self.readers.pop(number, None)
        if reader is not None:
            reader.close()
        self.cache.erase_file(number)
        if self.device.exists(sst_name(number)):
            self.device.delete(sst_name(number))

    def close(self) -> None:
        """Close every open reader."""
        for reader in self.readers.values():
            reader.close()
        self.readers.clear()
