"""DictEngine: a TEST DOUBLE of ``minidb.kv.Engine``, for testing the table layer and the workload runners before
(and independently of) the real B+tree and LSM engines.

It keeps every keyspace in a ``SortedDict`` and does just enough IO on a device to exercise the code that reads
``device.stats`` and the simulated clock:

* each ``write`` appends the batch to a log file (kind ``wal``, cause ``foreground``) and syncs it;
* when the log passes ``flush_bytes`` it writes a snapshot file (kind ``sst``, cause ``flush``), declares that
  IO to the clock as a background job, and truncates the log; if the previous flush is still running on the
  simulated clock it first waits for it (a write stall);
* a ``get`` of a key that exists but was not written since the last flush reads one 4 KiB block of the
  snapshot (a "cache miss"); other gets read nothing ("cache hits"; absent keys are ruled out as a bloom
  filter would).

It also records every call per keyspace in ``calls`` so tests can check which keyspaces were read.
It is not an engine design: no crash safety, no recovery, nothing of the real engines' structure.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter

from sortedcontainers import SortedDict

from minidb.kv import WORK, Engine, WriteBatch, check_key

BLOCK = 4096


class DictEngine(Engine):
    """A dict-backed engine for tests; see the module docstring."""

    def __init__(self, device=None, *, clock=None, flush_bytes: int = 64 * 1024, cache_bytes: int = 0) -> None:
        self.device = device  # where the log and snapshots go (None: no IO at all)
        self.clock = clock  # simulated clock for flush jobs and stalls (None: flushes take no time)
        self.flush_bytes = flush_bytes  # log size that triggers a flush
        self.cache_bytes = cache_bytes  # accepted like a real engine's cache size; the double does not use it
        self.data: dict[str, SortedDict] = {}  # keyspace -> key -> value
        self.unique: dict[str, bool] = {}  # keyspace -> the flag it was created with
        self.calls: Counter = Counter()  # (method, keyspace) -> calls
        self.writes = 0  # write() calls
        self.recent: set[tuple[str, bytes]] = set()  # keys written since the last flush (the "cached" ones)
        self.flush_end = 0.0  # simulated time the running flush ends
        self.flushes = 0  # flushes done
        self.counters = Counter({name: 0 for name in WORK})  # reported by work() and stats()
        self.last_batch_bytes = 0  # nbytes of the last batch written
        self.closed = False
        self._log = device.open("double.log", kind="wal", create=True) if device is not None else None
        self._snapshot_size = 0  # bytes of the latest snapshot file

    # -- keyspaces ----------------------------------------------------------------------------------------------------
    def create_keyspace(self, name: str, *, unique: bool = True) -> None:
        if name in self.unique and self.unique[name] != unique:
            raise ValueError(f"keyspace {name!r} exists with unique={self.unique[name]}")
        self.unique[name] = unique
        self.data.setdefault(name, SortedDict())

    def is_unique(self, name: str) -> bool:
        if name not in self.unique:
            raise ValueError(f"no keyspace {name!r}; keyspaces: {', '.join(self.keyspaces()) or 'none'}")
        return self.unique[name]

    def keyspaces(self) -> list[str]:
        return sorted(self.data)

    def _space(self, keyspace: str) -> SortedDict:
        return self.data.get(keyspace, SortedDict())

    # -- the Engine interface -----------------------------------------------------------------------------------------
    def get(self, keyspace: str, key: bytes) -> bytes | None:
        check_key(key)
        space = self._space(keyspace)
        self.calls["get", keyspace] += 1
        self.counters["key_compares"] += math.ceil(math.log2(len(space) + 2))
        if (key not in space or (keyspace, key) in self.recent or self._snapshot_size < BLOCK
                or self.device is None):
            self.counters["cache_hits"] += 1
        else:
            self.counters["cache_misses"] += 1
            f = self.device.open("double.snap", kind="sst")
            blocks = self._snapshot_size // BLOCK
            f.read((zlib.crc32(key) % blocks) * BLOCK, BLOCK)
        return space.get(key)

    def scan(self, keyspace: str, lo: bytes | None = None, hi: bytes | None = None):
        space = self._space(keyspace)
        self.calls["scan", keyspace] += 1
        for key in space.irange(lo, hi, inclusive=(True, False)):
            yield key, space[key]

    def write(self, batch: WriteBatch) -> None:
        if self.closed:
            raise ValueError("the engine is closed")
        for keyspace, _, _ in batch.ops:
            if keyspace not in self.data:
                self.create_keyspace(keyspace)
        self.writes += 1
        self.last_batch_bytes = batch.nbytes
        for keyspace, key, value in batch.ops:
            space = self.data[keyspace]
            self.calls["put" if value is not None else "delete", keyspace] += 1
            self.counters["key_compares"] += math.ceil(math.log2(len(space) + 2))
            if value is None:
                space.pop(key, None)
            else:
                space[key] = value
            self.recent.add((keyspace, key))
        if self._log is not None:
            self._log.append(b"".join(k + (v or b"") for _, k, v in batch.ops) or b"\0")
            self._log.sync()
            if self._log.size >= self.flush_bytes:
                self.flush()

    def flush(self) -> None:
        if self.device is None:
            return
        if self.clock is not None:
            self.clock.wait_until(self.flush_end)
        before = self.device.stats.snapshot()
        with self.device.stats.cause("flush"):
            snap = self.device.open("double.snap", kind="sst", create=True)
            snap.truncate(0)
            body = b"".join(k + v for space in self.data.values() for k, v in space.items())
            snap.write(0, body.ljust(BLOCK, b"\0"))
            snap.sync()
            self._snapshot_size = snap.size
        io = (self.device.stats - before).total()
        if self.clock is not None:
            self.flush_end = self.clock.now + self.clock.job_duration(io)
        self._log.truncate(0)
        self.recent.clear()
        self.flushes += 1

    def close(self) -> None:
        self.flush()
        self.closed = True

    def stats(self) -> dict:
        return {"flushes": self.flushes, "writes": self.writes, **self.counters}

    def work(self) -> dict[str, int]:
        return dict(self.counters)

    def last_write_memory(self) -> int:
        return self.last_batch_bytes


def open_dict_engine(device, *, cache_bytes: int, clock=None, **options) -> DictEngine:
    """An opener with the factory's signature, for injecting the double into the workload runners."""
    return DictEngine(device, clock=clock, cache_bytes=cache_bytes, **options)
