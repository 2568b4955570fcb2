"""IOStats: the one place where minidb counts IO.

Every read, write and sync a device performs is recorded here, broken down by three labels:

* **kind**: what the file holds (``wal``, ``sst``, ``data`` pages, ``doublewrite``, ...), given when it is opened;
* **cause**: why the engine did the IO (``foreground`` work for a client, ``flush``, ``compaction``,
  ``page-cleaner``, ...), set by the engine with ``with stats.cause("flush"):`` around the work;
* **tag**: a free label the engine may set the same way, e.g. the index a B+tree page belongs to.

The numbers are what ``iostat`` reports for a real device: requests and bytes, reads and writes, plus syncs. The
posts the book reproduces divide them by the operations done (``rKB/op``, ``wKB/op``, ``reads/op``,
``writes/op``) and by the bytes the client wrote (write amplification); ``IOCounts`` has those helpers.

Take a ``snapshot()`` before a phase and subtract it afterwards to get the phase's own figures::

    before = device.stats.snapshot()
    run_phase()
    phase = device.stats - before          # an IOStats holding only the phase's IO
    phase.total().per_op(ops)              # {'rkb_per_op': ..., 'wkb_per_op': ..., ...}
"""

from __future__ import annotations

from dataclasses import dataclass, fields

FILE_KINDS = (
    "data",  # B+tree tablespace pages
    "redo",  # B+tree redo log
    "doublewrite",  # B+tree doublewrite area
    "wal",  # LSM write-ahead log
    "sst",  # LSM sorted string tables
    "manifest",  # LSM MANIFEST and its CURRENT pointer
    "other",  # anything else an experiment stores
    "binlog",  # the server's binary log (minidb.sim.server)
)

CAUSES = (
    "foreground",  # a client's get/put/scan/commit
    "flush",  # LSM memtable -> L0 file
    "compaction",  # LSM merge of files between levels
    "eviction",  # B+tree dirty page written because the buffer pool needed a free frame
    "page-cleaner",  # B+tree background writing of dirty pages
    "checkpoint",  # B+tree checkpoint: dirty pages written so the redo log can be recycled
    "sync-flush",  # B+tree pages a client must write (and wait for) because the redo log is nearly full
    "recovery",  # replay of the redo log or WAL after a restart
    "binlog",  # the server writing its binary log at commit (minidb.sim.server)
)

OPS = ("read", "write", "sync")


@dataclass(frozen=True)
class IOCounts:
    """Counted IO of one label combination, or of a sum of them. Immutable; supports ``+`` and ``-``."""

    reads: int = 0  # read requests
    read_bytes: int = 0  # bytes returned by reads
    writes: int = 0  # write requests (writes and appends)
    write_bytes: int = 0  # bytes written
    syncs: int = 0  # fsync-like durability barriers

    def __add__(self, other: IOCounts) -> IOCounts:
        return IOCounts(*(a + b for a, b in zip(self.astuple(), other.astuple())))

    def __sub__(self, other: IOCounts) -> IOCounts:
        return IOCounts(*(a - b for a, b in zip(self.astuple(), other.astuple())))

    def astuple(self) -> tuple[int, int, int, int, int]:
        """The five counters in field order."""
        return (self.reads, self.read_bytes, self.writes, self.write_bytes, self.syncs)

    def per_op(self, ops: int) -> dict[str, float]:
        """iostat-style figures per operation (insert, transaction, ...): ``rkb_per_op``, ``wkb_per_op``, ...

        KB means 1024 bytes, as iostat reports it.
        """
        if ops <= 0:
            raise ValueError(f"per_op needs a positive number of operations, got {ops}")
        return {
            "reads_per_op": self.reads / ops,
            "writes_per_op": self.writes / ops,
            "rkb_per_op": self.read_bytes / 1024 / ops,
            "wkb_per_op": self.write_bytes / 1024 / ops,
            "syncs_per_op": self.syncs / ops,
        }

    def write_amp(self, logical_bytes: int) -> float:
        """Write amplification: device bytes written per byte the client asked to write."""
        if logical_bytes <= 0:
            raise ValueError(f"write_amp needs a positive number of logical bytes, got {logical_bytes}")
        return self.write_bytes / logical_bytes


COUNT_FIELDS = tuple(f.name for f in fields(IOCounts))

Label = tuple[str, str, str]  # (kind, cause, tag)


class _Labels:
    """``with``: an IOStats's cause and tag set inside the block (either left as it is where None), the outer ones
    restored after it. A class rather than a generator, with both labels in one object: every point lookup enters
    one, and a generator, or one object per label, costs twice as much."""

    __slots__ = ("stats", "cause", "tag", "outer")

    def __init__(self, stats: IOStats, cause: str | None, tag: str | None) -> None:
        self.stats, self.cause, self.tag = stats, cause, tag  # whose labels, and their values inside

    def __enter__(self) -> None:
        stats = self.stats
        self.outer = stats._cause, stats._tag  # the values to restore
        if self.cause is not None:
            stats._cause = self.cause
        if self.tag is not None:
            stats._tag = self.tag

    def __exit__(self, *exc) -> None:
        # only the labels this block set: a block that set the cause leaves the tag to whoever set it
        stats = self.stats
        if self.cause is not None:
            stats._cause = self.outer[0]
        if self.tag is not None:
            stats._tag = self.outer[1]


def _checked_cause(name: str) -> str:
    if name not in CAUSES:
        raise ValueError(f"unknown IO cause {name!r}; known causes: {', '.join(CAUSES)}")
    return name


def _checked_tag(name: str) -> str:
    if not isinstance(name, str):
        raise ValueError(f"an IO tag must be a string, got {name!r}")
    return name


class IOStats:
    """Counters of device IO keyed by (kind, cause, tag); see the module docstring.

    The current cause and tag are a stack: ``with stats.cause("compaction"):`` sets the cause for every IO issued
    inside the block and restores the outer one after it. The default cause is ``foreground``, the default tag ``""``.
    """

    def __init__(self) -> None:
        self._counts: dict[Label, list[int]] = {}  # label -> [reads, read_bytes, writes, write_bytes, syncs]
        self._cause = "foreground"  # cause given to IO recorded now
        self._tag = ""  # tag given to IO recorded now

    # -- attribution ---------------------------------------------------------------------------------------------
    @property
    def current_cause(self) -> str:
        """The cause that IO recorded now is attributed to."""
        return self._cause

    @property
    def current_tag(self) -> str:
        """The tag that IO recorded now is attributed to."""
        return self._tag

    def cause(self, name: str) -> _Labels:
        """Attribute IO issued inside the ``with`` block to cause ``name`` (one of ``CAUSES``)."""
        return _Labels(self, _checked_cause(name), None)

    def tag(self, name: str) -> _Labels:
        """Attribute IO issued inside the ``with`` block to tag ``name`` (e.g. an index name)."""
        return _Labels(self, None, _checked_tag(name))

    def attribute(self, cause: str, tag: str) -> _Labels:
        """``cause(cause)`` and ``tag(tag)`` in one ``with`` block."""
        return _Labels(self, _checked_cause(cause), _checked_tag(tag))

    # -- recording (called by devices only) -------------------------------------------------------------------------
    def record(self, op: str, kind: str, nbytes: int = 0) -> None:
        """Count one completed request ``op`` ('read', 'write' or 'sync') of ``nbytes`` on a file of ``kind``."""
        key = (kind, self._cause, self._tag)
        row = self._counts.get(key)
        if row is None:
            row = self._counts[key] = [0, 0, 0, 0, 0]
        if op == "read":
            row[0] += 1
            row[1] += nbytes
        elif op == "write":
            row[2] += 1
            row[3] += nbytes
        elif op == "sync":
            row[4] += 1
        else:
            raise ValueError(f"unknown IO op {op!r}; known ops: {', '.join(OPS)}")

    def record_like(self, labels_of: IOStats, op: str, kind: str, nbytes: int = 0) -> None:
        """Count as ``record`` does, under the cause and tag current in ``labels_of`` (another device's stats)."""
        with self.attribute(labels_of.current_cause, labels_of.current_tag):
            self.record(op, kind, nbytes)

    # -- reading ------------------------------------------------------------------------------------------------------
    def total(self, kind: str | None = None, cause: str | None = None, tag: str | None = None) -> IOCounts:
        """The sum of the counters whose labels match every label given (None matches anything)."""
        for value, known, what in ((kind, FILE_KINDS, "file kind"), (cause, CAUSES, "cause")):
            if value is not None and value not in known:
                raise ValueError(f"unknown {what} {value!r}; known: {', '.join(known)}")
        acc = [0, 0, 0, 0, 0]
        for (k, c, t), row in self._counts.items():
            if (kind is None or k == kind) and (cause is None or c == cause) and (tag is None or t == tag):
                for i, v in enumerate(row):
                    acc[i] += v
        return IOCounts(*acc)

    def labels(self) -> list[Label]:
        """Every (kind, cause, tag) that has any count, sorted."""
        return sorted(k for k, row in self._counts.items() if any(row))

    def snapshot(self) -> IOStats:
        """A copy of the counters as they are now (the copy does not change when the original does)."""
        snap = IOStats()
        snap._counts = {k: list(v) for k, v in self._counts.items()}
        return snap

    def __sub__(self, other: IOStats) -> IOStats:
        """The IO counted in ``self`` but not yet in ``other`` (an earlier snapshot)."""
        diff = self.snapshot()
        for key, row in other._counts.items():
            mine = diff._counts.setdefault(key, [0, 0, 0, 0, 0])
            for i, v in enumerate(row):
                mine[i] -= v
        diff._counts = {k: v for k, v in diff._counts.items() if any(v)}
        return diff

    def __add__(self, other: IOStats) -> IOStats:
        """The IO counted in either (e.g. the devices of two engines in one experiment)."""
        acc = self.snapshot()
        for key, row in other._counts.items():
            mine = acc._counts.setdefault(key, [0, 0, 0, 0, 0])
            for i, v in enumerate(row):
                mine[i] += v
        return acc

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IOStats):
            return NotImplemented
        return {k: v for k, v in self._counts.items() if any(v)} == {
            k: v for k, v in other._counts.items() if any(v)
        }

    def to_frame(self):
        """A tidy pandas DataFrame: one row per (kind, cause, tag) with the five counters as columns."""
        import pandas as pd

        rows = [(*label, *self._counts[label]) for label in self.labels()]
        return pd.DataFrame(rows, columns=["kind", "cause", "tag", *COUNT_FIELDS])

    def __repr__(self) -> str:
        t = self.total()
        return (
            f"IOStats(reads={t.reads}, read_bytes={t.read_bytes}, writes={t.writes}, "
            f"write_bytes={t.write_bytes}, syncs={t.syncs})"
        )
