"""Background jobs: flushes and compactions, computed when picked and installed when their time has come.

The engine is single-threaded, so a "background" job cannot run beside the client. Instead (minidb/sim/clock.py) a
job does all its IO the moment it is picked, attributed to its cause (``flush`` or ``compaction``), and asks the
clock how long that IO keeps the device busy: the job is *done* at ``start + duration``. Its result is *installed*
(MANIFEST edit, new files visible, inputs deleted) only once the clock reaches that time. Meanwhile writes go on,
L0 keeps growing, and the write controller may slow down or stop writes, exactly the feedback that makes an LSM's
throughput vary (seed 000). With a clock that has no device model, jobs finish at once.

A job is crash-safe at every point: its outputs are synced before the edit that names them is logged, and outputs
no edit names are deleted at the next open.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .compaction import Compaction
from .compaction_iter import KeyRanges, merge_into_tables
from .iterator import MergingIterator
from .level_iter import LevelIter
from .table_outputs import TableOutputs
from .version_edit import FileMeta, VersionEdit


# The CPU model's unit for each kind of job whose entries it charges; a bulk load or a recovery writes tables too,
# as the client's own work.
JOB_UNITS = {"flush": "flush_entries", "compaction": "compaction_entries"}


@dataclass
class Job:
    """A computed flush or compaction waiting to be installed."""

    kind: str  # "flush" or "compaction"
    cf: object  # the ColumnFamily
    edit: VersionEdit  # what installing it logs to the MANIFEST
    start: float  # simulated time it was picked
    done_at: float  # simulated time its IO is done: it is installed at the first check after
    outputs: TableOutputs | None  # files written (None for a trivial move)
    sealed: list = field(default_factory=list)  # flush: the SealedMemTables it wrote
    compaction: Compaction | None = None  # compaction: what it did
    key_in: int = 0  # entries read
    key_drop: int = 0  # entries dropped

    @property
    def seconds(self) -> float:
        """Simulated seconds the job took."""
        return self.done_at - self.start


def write_tables(ctx, cause: str, source, outputs: TableOutputs, **merge_options):
    """Merge the iterator ``source()`` makes into ``outputs``, all IO attributed to ``cause``.

    Returns ``(entries read, entries dropped, IOCounts, CPU work)`` of the whole job, table opening included; on
    OSError deletes the partial outputs and re-raises.
    """
    with ctx.device.stats.cause(cause):
        before = _Usage(ctx)
        merged = None
        try:
            merged = source()
            key_in, key_drop = merge_into_tables(merged, outputs, **merge_options)
            if cause in JOB_UNITS:  # a flush or a compaction: RocksDB's per-entry work (minidb.sim.cpu)
                ctx.counters[JOB_UNITS[cause]] += key_in
        except OSError:
            outputs.abandon()
            raise
        finally:
            if merged is not None:
                ctx.counters["key_compares"] += merged.compares
        io, work = before.since()
    return key_in, key_drop, io, work


def run_flush(ctx, cf, families, wal_number: int) -> Job:
    """Write every sealed memtable of ``cf`` into one L0 file; ``families``: every column family, ``wal_number``:
    the WAL being written (a family with nothing unflushed needs no older one)."""
    sealed = list(cf.imm)
    base, _ = cf.level_targets()
    outputs = TableOutputs(ctx, cf, 0, cf.options.compression_for(0, base, False), "flush")
    start = ctx.clock.now
    _, _, io, work = write_tables(
        ctx, "flush", lambda: MergingIterator([s.mem.iterator() for s in reversed(sealed)]), outputs)
    edit = VersionEdit(new_files=[(cf.id, 0, f) for f in outputs.files])
    edit.log_numbers[cf.id] = sealed[-1].next_log
    for other in families:
        if other is not cf and other.mem.entries == 0 and not other.imm:
            edit.log_numbers[other.id] = wal_number  # nothing unflushed: older WALs are not needed
    return Job("flush", cf, edit, start, start + ctx.clock.job_duration(io, work), outputs, sealed=sealed)


def run_compaction(ctx, cf, c: Compaction) -> Job:
    """Carry out compaction ``c`` of ``cf`` (a trivial move is a MANIFEST edit only)."""
    edit = VersionEdit()
    for level, files in c.inputs:
        edit.deleted_files += [(cf.id, level, f.number) for f in files]
    if c.start_level > 0 and cf.options.compaction_pri == "round_robin" and cf.options.compaction == "leveled":
        edit.compact_pointers.append((cf.id, c.start_level, max(f.largest for f in c.inputs[0][1])))
    start = ctx.clock.now
    if c.trivial_move:
        edit.new_files = [(cf.id, c.output_level, f) for f in c.inputs[0][1]]
        return Job("compaction", cf, edit, start, start, None, compaction=c)
    outputs = TableOutputs(ctx, cf, c.output_level, c.compression, "compaction")
    readahead = ctx.compaction_readahead_size

    def inputs() -> MergingIterator:
        """The inputs merged, newest data first: L0 files (newest first), then each level as one sorted run."""
        children = []
        for level, files in c.inputs:
            if level == 0:
                children += [ctx.table(cf, f).iterator(for_compaction=True, readahead=readahead) for f in files]
            else:
                children.append(LevelIter([f.largest for f in files], _opener(ctx, cf, files, readahead)))
        return MergingIterator(children)

    key_in, key_drop, io, work = write_tables(
        ctx, "compaction", inputs, outputs, drop_tombstones=c.bottommost,
        deeper=KeyRanges(c.deeper) if c.deeper is not None and not c.bottommost else None,
        target_file_size=c.target_file_size, zero_sequences=c.bottommost)
    edit.new_files = [(cf.id, c.output_level, f) for f in outputs.files]
    return Job("compaction", cf, edit, start, start + ctx.clock.job_duration(io, work), outputs, compaction=c,
               key_in=key_in, key_drop=key_drop)


class _Usage:
    """What a job did between its creation and ``since()``: counted IO and CPU work, for the clock."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx  # whose device and work counters are read
        self.io = ctx.device.stats.snapshot()  # IO counters at the start
        self.work = ctx.work()  # CPU work counters at the start

    def since(self):
        """``(IOCounts, {unit: count})`` done since the start."""
        io = (self.ctx.device.stats - self.io).total()
        now = self.ctx.work()
        return io, {unit: now[unit] - n for unit, n in self.work.items() if now[unit] != n}


def _opener(ctx, cf, files: list[FileMeta], readahead: int):
    def open_file(i: int):
        """A readahead iterator over the i-th input file of the level."""
        return ctx.table(cf, files[i]).iterator(for_compaction=True, readahead=readahead)
    return open_file
