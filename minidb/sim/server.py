"""The server above the engines: the SQL layer's CPU, the binary log with group commit, and the serial section.

``minidb.sim.cpu`` charges what an engine does; a MySQL server does more for each statement before the engine sees
it, and more at each commit after. This module models that part, term by term, so that the time model charges it
to every workload beside the engine's counted work (``minidb.sim.simulator``):

* **SQL layer and handler** (CPU, spread over the cores): ``statement_seconds`` per statement (parse, optimize,
  open tables, send the result) and ``row_seconds`` per row the handler API passes to or from the engine (a row
  read, inserted, updated or deleted). Both are *calibrated* (``minidb.experiments.calibration``): their ratio is a
  micro-measurement of a real SQL layer (``benchmarks/measure_server_costs.py``), their level is fitted once to the
  CPU per transaction seed 001 publishes, and no experiment changes them (``ServerModel.calibrated``).
* **The binary log** (IO on the device, kind and cause ``binlog``): each commit's row events, appended to the file
  ``binlog.000001`` through the storage layer, so that iostat's figures include them as the posts' did. Group
  commit (MySQL 5.6+): the commits that arrive while one group is being written join the next group, so a group
  holds at most one commit per client (``Binlog``); a group is one write, and ``sync_binlog=N`` syncs every N-th
  group (0: never, the operating system writes it back). Before it writes a group, the flush stage writes and syncs
  the engine's log for the whole group (MySQL 5.7, sql/binlog.cc: ``process_flush_stage_queue`` calls
  ``ha_flush_logs``, "We flush prepared records of transactions to the log of storage engine (for example, InnoDB
  redo log) in a group right before flushing them to binary log"): an engine that would sync its log at every
  commit syncs it once per group instead (``Engine.set_group_commit``, ``Engine.sync_log``).
* **The serial section** (time that no number of clients or cores shortens): the binlog's flush and sync stages
  run one group at a time under their mutexes (``LOCK_log``, ``LOCK_sync``), and commits are made in binlog order
  (``binlog_order_commits``, on by default). Per commit: ``commit_serial_seconds`` (the log mutex changing hands);
  per binlog byte: its checksum and copy (MySQL checksums every event, ``binlog_checksum=CRC32``); per sync: the
  device's sync latency. However many clients wait, throughput cannot pass 1 / (serial seconds per operation).

* **The engine's write path, one writer at a time** (``engine_serial``; the engine's ``serial_work()`` counts it,
  and the CPU model prices it): the part of the engine's own measured work that is serial in the real engine,
  charged to the serial section as well as to the CPU (so it is not counted twice in a response time):

  - *MyRocks* (RocksDB's write thread, ``DBImpl::WriteImpl`` in db/db_impl_write.cc): writers queue, and the
    group's leader writes one WAL record for the whole group (``WriteToWAL``, the record's CRC computed in
    ``log::Writer::EmitPhysicalRecord``) and, unless ``allow_concurrent_memtable_write``, inserts every batch of
    the group into the memtable itself (``WriteBatchInternal::InsertInto(write_group, ...)``). MyRocks's
    ``rocksdb_allow_concurrent_memtable_write`` is OFF by default (its system variables' documentation), so the
    memtable inserts are serial: the LSM's serial work is its memtable comparisons and its WAL bytes (checksum and
    copy). What stays parallel: the SQL layer, encoding rows and keys into the batch (the handler, per client).
    With the binlog on, MySQL's ordered commit calls each transaction's engine commit in binlog order from the
    commit stage's leader (``binlog_order_commits``); for MyRocks (whose Nov 2016 build ran with
    ``rocksdb_disable_2pc`` on, seed 000) that engine commit is the very RocksDB write above, so the serial work
    is the same and the write groups hold one transaction each.
  - *InnoDB 5.7*: a mini-transaction's commit copies its redo records into the log buffer under
    ``log_sys->mutex`` (``mtr_t::Command::finish_write``), and ``log_write_up_to`` checksums the log blocks
    (``log_block_store_checksum``) one writer at a time: the B+tree's serial work is its redo bytes (checksum and
    copy). Page latches are per page, so inserts into different leaves run in parallel; the post's insert
    benchmark gives each client a table of its own (seed 000: "There was a table per client"), so no right-most
    leaf is shared between clients and its latch is no serial point.

What ``clients`` means (``minidb.sim.bottleneck``): concurrent streams, each with one statement in flight. A step's
response time (its CPU, its IO at the device's latency, its serial section) is divided over the clients, since they
overlap; the serial section is also a bound of its own, never divided.

What is left out: lock waits between transactions on the same rows (the workloads' clients touch different rows or
tables), the query cache, replication threads reading the binlog, the 2-phase commit's engine prepare (off in the
posts' MyRocks), and cache-line contention on shared counters, which the posts mention (InnoDB 5.6's mutexes, seed
000) but do not measure.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..storage.device import Device
from ..storage.iostats import IOCounts
from .cpu import COSTS

BINLOG_FILE = "binlog.000001"  # MySQL's first binlog file name (log_bin's default basename is the host name)

# Event sizes of a row-based binlog transaction (MySQL's binary log format, "Binary Log Event Structure" in the
# MySQL internals manual): every event has a 19-byte common header and, with binlog_checksum=CRC32 (the 5.6.6+
# default), a 4-byte checksum. A transaction is a GTID event (42-byte body), a Query event "BEGIN" (13-byte fixed
# part plus the schema name and the statement, about 10 bytes here), a Table_map event (8 + about 20 bytes of table
# name and column types), its Rows events, and an Xid event (8-byte body).
EVENT_OVERHEAD = 19 + 4
COMMIT_EVENTS_BYTES = (42 + EVENT_OVERHEAD) + (13 + 10 + EVENT_OVERHEAD) + (28 + EVENT_OVERHEAD) + (8 + EVENT_OVERHEAD)
ROWS_EVENT_BYTES = 8192  # binlog_row_event_max_size's default: a Rows event holds up to 8 KiB of row images
ROWS_EVENT_HEADER = 10 + EVENT_OVERHEAD  # a Rows event's fixed part (table id, flags, column count)

# The log mutex changing hands between two committing threads: the lock's cache line moves from one core to
# another, twice (acquire and release), each move a miss of the kind ``page_visits`` measures.
COMMIT_SERIAL_SECONDS = 2 * COSTS["page_visits"].seconds
SERIAL_BYTE_SECONDS = COSTS["crc32_bytes"].seconds + COSTS["copy_bytes"].seconds  # checksum and copy, per byte

# The SQL layer's costs as ``minidb.experiments.calibration.fit`` fits them, once, to seed 001's CPU per transaction
# (its test re-runs the fit and fails if these are more than 0.1% from its result: a change to the engines' counted
# CPU or to the TPC-C workload that moves the fit refits them). Kept here so that every workload can default to the calibrated server without
# importing the experiments that fit it.
CALIBRATED_ROW_SECONDS = 4.138367902245678e-05  # handler CPU per row passed to or from the engine
CALIBRATED_STATEMENT_SECONDS = 0.00010883907582906132  # SQL layer CPU per statement (2.63 rows' worth)


def binlog_bytes(commits: int, row_bytes: int) -> int:
    """Bytes the binlog holds for ``commits`` transactions that wrote ``row_bytes`` of row images in all."""
    if commits < 0 or row_bytes < 0:
        raise ValueError(f"binlog_bytes needs commits >= 0 and row_bytes >= 0, got {commits}, {row_bytes}")
    rows_events = max(commits, -(-row_bytes // ROWS_EVENT_BYTES))
    return commits * COMMIT_EVENTS_BYTES + rows_events * ROWS_EVENT_HEADER + row_bytes


@dataclass(frozen=True)
class ServerModel:
    """The server's own costs; see the module docstring. ``ServerModel.none()`` charges nothing."""

    statement_seconds: float = 0.0  # SQL layer CPU per statement (calibrated: minidb.experiments.calibration)
    row_seconds: float = 0.0  # handler CPU per row passed to or from the engine (calibrated, same)
    binlog: bool = False  # log_bin: write the binary log
    sync_binlog: int = 0  # sync every N-th group commit; 0 never (MySQL's sync_binlog)
    group_commit_max: int = 0  # most commits per group, 0 for no cap (binlog_group_commit_sync_no_delay_count)
    commit_serial_seconds: float = COMMIT_SERIAL_SECONDS  # serial time per commit (commit order, the log mutex)
    engine_serial: bool = True  # charge the engine's write path one writer at a time (its serial_work())

    def __post_init__(self) -> None:
        for name in ("statement_seconds", "row_seconds", "commit_serial_seconds"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"server option {name} must be >= 0 seconds, got {getattr(self, name)}")
        for name in ("sync_binlog", "group_commit_max"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"server option {name} must be an int >= 0, got {value!r}")

    @classmethod
    def none(cls) -> ServerModel:
        """A server that costs nothing: the engines' work alone, as before this model (and for calibrating it)."""
        return cls(commit_serial_seconds=0.0, engine_serial=False)

    @classmethod
    def calibrated(cls, **options) -> ServerModel:
        """The calibrated server (``CALIBRATED_ROW_SECONDS`` and ``CALIBRATED_STATEMENT_SECONDS``); ``options`` set
        its binlog (``binlog``, ``sync_binlog``, ...)."""
        return cls(statement_seconds=CALIBRATED_STATEMENT_SECONDS, row_seconds=CALIBRATED_ROW_SECONDS, **options)

    def cpu_seconds(self, statements: int, rows: int) -> float:
        """CPU seconds the SQL layer spends on ``statements`` statements passing ``rows`` rows."""
        return statements * self.statement_seconds + rows * self.row_seconds

    def serial_seconds(self, commits: int, binlog_io: IOCounts, sync_latency: float) -> float:
        """Seconds of the serial section for ``commits`` commits whose binlog IO was ``binlog_io``."""
        return (commits * self.commit_serial_seconds + binlog_io.write_bytes * SERIAL_BYTE_SECONDS
                + binlog_io.syncs * sync_latency)


class Binlog:
    """The binary log on a device, written a group at a time (group commit); see the module docstring.

    ``commit(clients, row_bytes)`` adds one transaction to the open group; the group is written (one append) when
    it holds ``group_size(clients)`` commits, and synced if it is the ``sync_binlog``-th group since the last sync.
    ``flush()`` writes a partly filled group (at the end of a run).
    """

    def __init__(self, device: Device, model: ServerModel, flush_engine_log=lambda: None) -> None:
        self.device = device  # where the binlog file lives; its IOStats count the writes under cause binlog
        self.model = model  # binlog, sync_binlog, group_commit_max
        self.flush_engine_log = flush_engine_log  # the engine's sync_log, called by the flush stage of each group
        self.file = device.open(BINLOG_FILE, "binlog", create=True)
        self.groups = 0  # groups written
        self.syncs = 0  # groups synced
        self._pending = 0  # commits in the open group
        self._pending_bytes = 0  # their bytes

    def group_size(self, clients: int) -> int:
        """Commits per group: one per client (each has one commit in flight), at most ``group_commit_max``."""
        cap = self.model.group_commit_max
        return min(clients, cap) if cap else clients

    def commit(self, clients: int, row_bytes: int) -> None:
        """Add a transaction that wrote ``row_bytes`` of row images; write the group if it is full."""
        self._pending += 1
        self._pending_bytes += binlog_bytes(1, row_bytes)
        if self._pending >= self.group_size(clients):
            self.flush()

    def flush(self) -> None:
        """Write the engine's log and then the open group, if any, and sync the group when ``sync_binlog`` says
        so."""
        if not self._pending:
            return
        self.flush_engine_log()
        with self.device.stats.cause("binlog"):
            self.file.append(bytes(self._pending_bytes))  # the events' size; nothing reads their content back
            self.groups += 1
            if self.model.sync_binlog and self.groups % self.model.sync_binlog == 0:
                self.file.sync()
                self.syncs += 1
        self._pending = self._pending_bytes = 0

    @property
    def size(self) -> int:
        """Bytes in the binlog file."""
        return self.file.size
