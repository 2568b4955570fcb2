"""Finding F7: when the disk fills up, an engine must refuse writes, never acknowledge and lose them (seed 004).

Seed 004 ("MyRocks Disk Full Edge Case") loads 4 sysbench tables of 1,000,000 rows on a nearly full disk; the
secondary index builds (``CREATE INDEX``, MyRocks' bulk load) fail with "No space left on device" and a background
flush fails too. After the partition is resized online, ``insert`` answers "1 row affected" and ``delete`` "99 rows
affected", yet ``count(*)`` stays 1,000,000: MyRocks ignored the error RocksDB returned and acknowledged writes it
dropped (bug PS-4706). Restarting needed ``rocksdb_wal_recovery_mode = 3``. The fix (Percona Server 5.7.23): abort
on a WAL write error. Later RocksDB turns read-only on a background error and resumes once space is back.

``run`` plays both parts on each *behaviour* of ``BEHAVIOURS``:

* **the session** (``session``): the post's statements through the table layer on a device that fills, with what
  the client was told and what the table holds, then a restart (with MyRocks' default recovery mode,
  kAbsoluteConsistency, then with mode 3 if the engine will not load) and a recount;
* **the capacity sweep** (``sweep_point``): the same load-and-index workload with the device's capacity cut just
  below each point where a write or an allocation grew the files (every k-th point at larger scales, ``SIZES``),
  the client retrying after freeing space as the behaviour requires (``resume()``, a reopen); per point: did the
  client see an error, acknowledged rows missing after a restart, and the time the recovery took.

Time to recover is the recovery's IO (the reopen or ``resume()``: replay, flushes) priced on the NVMe device model
one request at a time (``DeviceModel.latency_time``): a model, the IO counts are the mechanism.
"""

from __future__ import annotations

import errno
import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import data, engines
from .. import scales
from ..errors import CorruptionError, EngineStopped, ReadOnlyError, TableFullError
from ..index_build import create_index
from ..lsm.wal import MARK_TAG
from ..storage import SimDevice
from ..storage.models import preset
from ..schema import Schema
from ..table import Table
from ..transaction import Transaction
from ..workloads.sysbench import schema as sysbench_schema
from ..workloads.distributions import sysbench_pattern
from .claims import Claim, at_least, equals
from .runner import sweep

# behaviour -> (engine, engine options). The LSM's three are code paths of minidb.lsm.engine.LSMEngine.write.
BEHAVIOURS = {
    "2018 bug": ("lsm", dict(reproduce_2018_disk_full_bug=True)),
    "abort on WAL error": ("lsm", dict(on_wal_write_error="abort")),
    "read-only + resume": ("lsm", dict(on_wal_write_error="read_only")),
    "InnoDB-like": ("btree", {}),
}
PUBLISHED_BEHAVIOUR = "2018 bug"  # the engine of the post's session (Percona Server 5.7.22)
# Engine shapes: small memtables and pages so that flushes, compactions and page writes happen in a small load.
LSM_OPTIONS = dict(memtable_bytes=16 << 10, block_size=1024, max_bytes_for_level_base=64 << 10,
                   target_file_size_base=16 << 10, block_cache_bytes=64 << 10, wal_sync="write")
BTREE_OPTIONS = dict(page_size=4096, buffer_pool_bytes=32 * 4096, redo_log_bytes=64 * 4096, page_cleaner=None)
SHAPES = {"lsm": LSM_OPTIONS, "btree": BTREE_OPTIONS}  # engine -> its shape in this chapter
MYROCKS_DEFAULT_RECOVERY = "kAbsoluteConsistency"  # rocksdb_wal_recovery_mode's default then (1)
SALVAGE_RECOVERY = "kSkipAnyCorruptedRecords"  # the post's rocksdb_wal_recovery_mode = 3
TABLES = 4  # the post's sysbench --tables=4
ROWS_PER_COMMIT = 100  # sysbench prepare's multi-row INSERTs (scaled: the tables are small)
CLIENT_ERRORS = (OSError, ReadOnlyError, EngineStopped)  # what a statement may fail with on a full disk


@dataclass(frozen=True)
class Sizes:
    """How much work each part does at one scale."""

    session_rows: int  # rows per sbtest table in the session (the post: 1,000,000)
    sweep_rows: int  # rows the sweep's workload loads
    sweep_commit_rows: int  # rows per commit in the sweep
    every: int  # the sweep tries every k-th capacity point


SIZES = {"tiny": Sizes(400, 150, 10, 2), "small": Sizes(2_000, 600, 10, 2), "large": Sizes(20_000, 4_000, 20, 4)}
COLUMNS = ("behaviour", "engine", "points", "client_errors", "acked_rows_lost", "points_losing_rows",
           "restarts_needing_mode_3", "recover_ms_median", "recover_ms_max")  # run()'s sweep table


# -- the engines ------------------------------------------------------------------------------------------------
def open_engine(behaviour: str, device, **extra):
    """The engine of ``behaviour`` on ``device`` (its options, plus those of ``extra`` it has)."""
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"unknown behaviour {behaviour!r}; known: {', '.join(BEHAVIOURS)}")
    engine, options = BEHAVIOURS[behaviour]
    spec = engines.get(engine)
    return spec.open(device, **SHAPES[engine], **options, **spec.supported(**extra))


def restart(behaviour: str, device) -> tuple[object, bool]:
    """Reopen after the incident as the post did: MyRocks' default recovery mode first, mode 3 if the engine will
    not load (an engine without recovery modes just reopens). Returns (engine, True if mode 3 was needed)."""
    if not engines.get(BEHAVIOURS[behaviour][0]).supports("wal_recovery_mode"):
        return open_engine(behaviour, device), False
    try:
        return open_engine(behaviour, device, wal_recovery_mode=MYROCKS_DEFAULT_RECOVERY), False
    except CorruptionError:
        return open_engine(behaviour, device, wal_recovery_mode=SALVAGE_RECOVERY), True


def told(exc: BaseException | None, rows: int | None = None) -> str:
    """What a MySQL client would print for a statement that ended with ``exc`` (None: success)."""
    if exc is None:
        return "Query OK" if rows is None else f"Query OK, {rows} row{'s' if rows != 1 else ''} affected"
    if isinstance(exc, TableFullError):
        return "ERROR 1114: the table is full"
    if isinstance(exc, EngineStopped):
        return "ERROR 2013: lost connection (the server aborted)"
    if isinstance(exc, ReadOnlyError):
        return "ERROR: read-only after a background error"
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return "ERROR 1105: IO error: No space left on device"
    raise exc


def _rows(n: int, first_id: int, seed: int) -> list[tuple]:
    """Rows ``first_id..first_id+n-1`` of a sysbench table: k uniform, c and pad random digit groups."""
    rng = np.random.default_rng(seed)
    ks = rng.integers(1, max(2, n), n, endpoint=True).tolist()
    return list(zip(range(first_id, first_id + n), ks, sysbench_pattern(rng, n, 10), sysbench_pattern(rng, n, 5)))


def _plain_schema(number: int) -> Schema:
    """sbtest<number> without its secondary index: sysbench creates k_1 after the load."""
    s = sysbench_schema(number)
    return Schema(s.name, s.columns, s.primary_key)


def _load(engine, rows_per_table: int, seed: int) -> list[Table]:
    tables = []
    for number in range(1, TABLES + 1):
        table = Table(engine, _plain_schema(number), unique_checks=False)
        rows = _rows(rows_per_table, 1, seed + number)
        for start in range(0, len(rows), ROWS_PER_COMMIT):
            with _txn(table) as txn:
                for row in rows[start:start + ROWS_PER_COMMIT]:
                    table.insert(row, txn)
        tables.append(table)
    return tables


def _txn(table) -> Transaction:
    """A transaction on the table's engine: its statements are one write batch, one commit."""
    return Transaction(table.engine, stats=table.commit_stats)


def _count(engine, number: int) -> int:
    return sum(1 for _ in engine.scan(f"sbtest{number}.primary"))


def _recover_seconds(device, before) -> float:
    return preset("nvme").latency_time((device.stats - before).total())


# -- the session ---------------------------------------------------------------------------------------------------
def _free_space_for_the_index_builds(behaviour: str, rows: int, seed: int) -> int:
    """Bytes left free after the load: half of what one index build (or the LSM's flush of the memtable the load
    left) adds, so that every build fails and the flush fails too, as in the post; measured on an unlimited
    device."""
    device = SimDevice()
    engine = open_engine(behaviour, device)
    tables = _load(engine, rows, seed)
    used = device.used
    create_index(tables[0], ("k_1", ("k",)))
    index = device.used - used
    if engines.get(BEHAVIOURS[behaviour][0]).supports("memtable_bytes"):
        used = device.used
        engine.flush()
        index = min(index, max(1, device.used - used))
    return max(1, index // 2)


def session(behaviour: str, rows: int, seed: int = 0, free: int | None = None) -> pd.DataFrame:
    """The post's session on ``behaviour``: one row per step with the statement, what the client was told, rows
    affected, the count(*) shown, and the acknowledged row changes missing from the tables at that point. ``free``
    is the bytes left free after the load (default: the post's case, ``_free_space_for_the_index_builds``)."""
    if free is None:
        free = _free_space_for_the_index_builds(behaviour, rows, seed)
    elif free < 0:
        raise ValueError(f"session: free must be >= 0 bytes, got {free}")
    device = SimDevice()
    device.short_writes = True
    engine = open_engine(behaviour, device)
    tables = _load(engine, rows, seed)
    device.capacity = device.used + free
    out = []
    expected = {n: rows for n in range(1, TABLES + 1)}

    def step(statement: str, answer: str, affected=None, count=None):
        out.append({"behaviour": behaviour, "statement": statement, "client_told": answer,
                    "rows_affected": affected, "count_star": count})

    for number in range(TABLES, 0, -1):  # the post's first failure was sbtest4's index
        try:
            create_index(tables[number - 1], ("k_1", ("k",)))
            step(f"CREATE INDEX k_{number} ON sbtest{number}(k)", told(None))
        except CLIENT_ERRORS as exc:
            step(f"CREATE INDEX k_{number} ON sbtest{number}(k)", told(exc))
            if isinstance(exc, EngineStopped):
                break
    if not engine.stopped:
        try:
            engine.flush()  # the memtable the load left (RocksDB flushes it in the background)
            step("(background) flush", "ok")
        except CLIENT_ERRORS as exc:
            step("(background) flush", f"error log: {type(exc).__name__}")
    device.capacity = None  # the partition is resized online
    step("(resize the partition)", "")
    engine = _after_space_returns(behaviour, engine, device, step)

    def count(number: int):
        nonlocal engine
        try:
            step(f"select count(*) from sbtest{number}", "1 row in set", count=_count(engine, number))
        except EngineStopped as exc:
            step(f"select count(*) from sbtest{number}", told(exc))

    def write(statement: str, fn, rows_changed: int, number: int, delta: int):
        nonlocal engine
        try:
            fn(engine)
            expected[number] += delta
            step(statement, told(None, rows_changed), affected=rows_changed)
        except CLIENT_ERRORS as exc:
            step(statement, told(exc))
            if isinstance(exc, EngineStopped):
                engine.close()
                engine, _ = restart(behaviour, device)
                step("(mysqld restarts after the abort)", "")

    count(1)
    write("insert into sbtest1 set k=1", lambda e: _insert(e, 1, rows + 1), 1, 1, +1)
    count(1)
    write("delete from sbtest2 where id<100", lambda e: _delete(e, 2, range(1, min(100, rows + 1))),
          min(99, rows), 2, -min(99, rows))
    count(2)
    engine.close()
    engine, salvaged = restart(behaviour, device)
    step("(restart)", f"needed {SALVAGE_RECOVERY}" if salvaged else "ok")
    for number in (1, 2):
        step(f"select count(*) from sbtest{number}", "1 row in set", count=_count(engine, number))
    engine.close()
    frame = pd.DataFrame(out)
    frame.attrs["acked_changes_lost"] = sum(abs(expected[n] - _final(frame, n)) for n in (1, 2))
    return frame


def _final(frame: pd.DataFrame, number: int) -> int:
    rows = frame[frame.statement == f"select count(*) from sbtest{number}"]
    return int(rows.count_star.dropna().iloc[-1])


def _after_space_returns(behaviour: str, engine, device, step):
    """What each behaviour does once space is back: today's RocksDB resumes (its SstFileManager notices the
    space), the B+tree resumes if a redo write stopped it; the 2018 engine and its fix (RocksDB of 2018) have no
    resume: the background error stays until a restart."""
    refusing = engine.stopped or engine.background_error is not None
    if behaviour in ("read-only + resume", "InnoDB-like") and refusing:
        before = device.stats.snapshot()
        engine.resume()
        step("(resume)", f"{_recover_seconds(device, before) * 1000:.2f} ms of recovery IO")
    return engine


def _insert(engine, number: int, new_id: int) -> None:
    table = Table(engine, _plain_schema(number), unique_checks=False)
    with _txn(table) as txn:
        table.insert((new_id, 1, "c", "pad"), txn)


def _delete(engine, number: int, ids) -> None:
    table = Table(engine, _plain_schema(number), unique_checks=False)
    with _txn(table) as txn:
        for pk in ids:
            table.delete(pk, txn)


# -- the capacity sweep ----------------------------------------------------------------------------------------------
class _RecordingDevice(SimDevice):
    """A SimDevice that remembers how many bytes the files held after each write or allocation that grew them; a
    write the engine leaves out on a full disk without an error (an LSM's ``ManifestMark``) is no need."""

    def __init__(self) -> None:
        super().__init__()
        self.growth_points: list[int] = []  # device.used after each growing write, in order

    def _pwrite(self, name: str, offset: int, data: bytes) -> None:
        grow = max(0, offset + len(data) - self._size(name))
        super()._pwrite(name, offset, data)
        if grow and self.stats.current_tag != MARK_TAG:
            self.growth_points.append(self._used + grow)


def _workload(rows: int, commit_rows: int, seed: int):
    """The sweep's statements: a table loaded in commits, then its secondary index built. Yields (fn, ids of the
    rows acknowledged if it succeeds), where ``fn(engine)`` runs the statement."""
    data_rows = _rows(rows, 1, seed)
    for start in range(0, rows, commit_rows):
        chunk = data_rows[start:start + commit_rows]
        yield (lambda e, c=chunk: _insert_rows(e, c)), [r[0] for r in chunk]
    yield (lambda e: create_index(Table(e, _plain_schema(1), unique_checks=False), ("k_1", ("k",)))), []


def _insert_rows(engine, chunk) -> None:
    table = Table(engine, _plain_schema(1), unique_checks=False)
    with _txn(table) as txn:
        for row in chunk:
            table.insert(row, txn)


def capacity_points(behaviour: str, rows: int, commit_rows: int, every: int, seed: int = 0) -> list[int]:
    """Capacities to try: one byte below each size the files reached at a growing write or allocation of the
    workload on an unlimited device (every ``every``-th of them, the first always)."""
    device = _RecordingDevice()
    engine = open_engine(behaviour, device)
    for fn, _ in _workload(rows, commit_rows, seed):
        fn(engine)
    engine.close()
    points = sorted(set(device.growth_points))
    return [p - 1 for p in points[::every]]


def sweep_point(behaviour: str, capacity: int, rows: int, commit_rows: int, seed: int = 0) -> dict:
    """The workload on a device of ``capacity`` bytes; the client frees space and recovers as ``behaviour``
    requires after an error, then retries. Returns what the client saw and what a restart finds."""
    device = SimDevice(capacity=capacity)
    device.short_writes = True
    errors = 0
    recover = []
    try:
        engine = open_engine(behaviour, device)
    except OSError:
        errors += 1
        device.capacity = None
        engine = open_engine(behaviour, device)
    acked: set[int] = set()
    for fn, ids in _workload(rows, commit_rows, seed):
        for attempt in (1, 2):
            try:
                fn(engine)
                acked.update(ids)
                break
            except CLIENT_ERRORS as exc:
                errors += 1
                if attempt == 2:
                    break  # the 2018 engine, read-only for good: the statement is given up
                device.capacity = None  # the administrator frees space
                before = device.stats.snapshot()
                engine = _recover(behaviour, engine, device, exc)
                recover.append(_recover_seconds(device, before))
    device.capacity = None
    engine.close()
    before = device.stats.snapshot()
    engine, salvaged = restart(behaviour, device)
    if behaviour == "2018 bug":
        recover.append(_recover_seconds(device, before))  # its only way back is this restart
    present = _ids(engine)
    engine.close()
    return {"client_errors": errors, "acked_rows_lost": len(acked - present), "needed_mode_3": salvaged,
            "recover_ms": 1000 * max(recover) if recover else float("nan")}


def _ids(engine) -> set[int]:
    table = Table(engine, _plain_schema(1), unique_checks=False)
    return {row.id for row in table.scan()}


def _recover(behaviour: str, engine, device, exc: BaseException):
    """After a client error, with space freed: resume the engine in place, or reopen a stopped one that only a
    reopen recovers (the LSM: mysqld restarts after its abort); the 2018 engine had no resume, the client just
    retries."""
    if behaviour == "2018 bug" and not isinstance(exc, EngineStopped):
        return engine
    try:
        engine.resume()
    except EngineStopped:
        engine.close()
        return open_engine(behaviour, device)
    return engine


# -- the free-space grid: the session again, with more or less space left after the load ---------------------------
FREE_SPACE_PCTS = tuple(range(0, 121, 10))  # free space after the load, % of what the session's writes need


@functools.cache  # the grid asks once per free-space point, the answer is the same
def space_the_session_needs(behaviour: str, rows: int, seed: int = 0) -> int:
    """The most bytes the files held beyond the load while the session built its 4 indexes and flushed (the writes
    that meet the full disk, before the resize), on an unlimited device: its peak, for compactions and flushes
    write their new files before they delete the old."""
    device = _RecordingDevice()
    engine = open_engine(behaviour, device)
    tables = _load(engine, rows, seed)
    loaded, device.growth_points = device.used, [device.used]
    for table in reversed(tables):
        create_index(table, ("k_1", ("k",)))
    if BEHAVIOURS[behaviour][0] == "lsm":
        engine.flush()
    engine.close()
    return max(device.growth_points) - loaded


def free_space_point(behaviour: str, free_space_pct: float, rows: int, seed: int = 0) -> dict:
    """The post's session on ``behaviour`` with ``free_space_pct`` % of ``space_the_session_needs`` free after the
    load: what the client was refused, the indexes built, whether the background flush failed (an error only the
    server's log shows), and the acknowledged changes lost."""
    free = int(free_space_pct / 100 * space_the_session_needs(behaviour, rows, seed))
    frame = session(behaviour, rows, seed, free=free)
    built = frame.statement.str.startswith("CREATE INDEX") & frame.client_told.str.startswith("Query OK")
    flush = (frame.statement == "(background) flush") & frame.client_told.str.startswith("error log")
    return {"free_bytes": free, "statements_refused": int(frame.client_told.str.startswith("ERROR").sum()),
            "indexes_built": int(built.sum()), "flush_failed": bool(flush.any()),
            "acked_changes_lost": frame.attrs["acked_changes_lost"],
            "needed_mode_3": bool((frame.client_told == f"needed {SALVAGE_RECOVERY}").any())}


def free_space_grid(scale: str | None = None, *, seed: int = 0, executor=None, cache_dir=None,
                    progress: bool = True) -> pd.DataFrame:
    """``free_space_point`` for every behaviour at every ``FREE_SPACE_PCTS``, on the session's rows at ``scale``."""
    rows = SIZES[scales.current(scale)].session_rows
    points = [dict(behaviour=b, free_space_pct=pct, rows=rows, seed=seed) for b in BEHAVIOURS
              for pct in FREE_SPACE_PCTS]
    return sweep(free_space_point, points, name="f7-free-space", executor=executor, cache_dir=cache_dir,
                 progress=progress).drop(columns=["seed"])


# -- run, published, claims --------------------------------------------------------------------------------------
def session_point(behaviour: str, rows: int, seed: int = 0) -> pd.DataFrame:
    """``session`` with its loss as a column (``acked_changes_lost``), for the cached sweep runner."""
    frame = session(behaviour, rows, seed)
    return frame.drop(columns="behaviour").assign(step=range(len(frame)),
                                                   acked_changes_lost=frame.attrs["acked_changes_lost"])


def run(scale: str | None = None, *, seed: int = 0, executor=None, cache_dir=None,
        progress: bool = True) -> pd.DataFrame:
    """The capacity sweep's summary, one row per behaviour with ``COLUMNS``; ``attrs["points"]`` holds every
    point tried and ``attrs["session"]`` the post's session played on each behaviour."""
    scale = scales.current(scale)
    size = SIZES[scale]
    sessions = sweep(session_point, [dict(behaviour=b, rows=size.session_rows, seed=seed) for b in BEHAVIOURS],
                     name="f7-session", executor=executor, cache_dir=cache_dir, progress=progress)
    grid = [dict(behaviour=b, capacity=c, rows=size.sweep_rows, commit_rows=size.sweep_commit_rows, seed=seed)
            for b in BEHAVIOURS
            for c in capacity_points(b, size.sweep_rows, size.sweep_commit_rows, size.every, seed)]
    points = sweep(sweep_point, grid, name="f7-capacity", executor=executor, cache_dir=cache_dir,
                   progress=progress)
    rows = []
    for b in BEHAVIOURS:
        p = points[points.behaviour == b]
        rows.append({"behaviour": b, "engine": BEHAVIOURS[b][0], "points": len(p),
                     "client_errors": int(p.client_errors.sum()), "acked_rows_lost": int(p.acked_rows_lost.sum()),
                     "points_losing_rows": int((p.acked_rows_lost > 0).sum()),
                     "restarts_needing_mode_3": int(p.needed_mode_3.sum()),
                     "recover_ms_median": float(p.recover_ms.median()), "recover_ms_max": float(p.recover_ms.max())})
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame.attrs["points"] = points
    frame.attrs["session"] = sessions
    return frame


def published() -> dict[str, pd.DataFrame]:
    """Seed 004's story: the setup (``setup``), the client session after the resize (``session``) and the restart
    and fix (``restart``), each a table of data/ with its source."""
    return {"setup": data.load("disk_full_setup"), "session": data.load("disk_full_session"),
            "restart": data.load("disk_full_restart")}


def published_changes_lost() -> int:
    """Acknowledged row changes the post's session lost: every row its insert and delete reported as affected."""
    session = data.load("disk_full_session")
    return int(session.rows_affected.sum())


def claims(results: pd.DataFrame) -> list[Claim]:
    """The chapter's verdict: the 2018 behaviour loses acknowledged writes; the fixes and the B+tree lose none at
    any capacity point; the post's restart needs a salvaging recovery mode."""
    by = results.set_index("behaviour")
    sessions = results.attrs["session"]
    lost_in_session = sessions.groupby("behaviour").acked_changes_lost.first()
    out = [
        Claim.check("the 2018 behaviour acknowledges the session's insert and delete, then loses them",
                    published=published_changes_lost(), ours=lost_in_session[PUBLISHED_BEHAVIOUR],
                    band=at_least(1)),
        Claim.check("the 2018 behaviour loses acknowledged rows somewhere in the capacity sweep", published=None,
                    ours=by.acked_rows_lost[PUBLISHED_BEHAVIOUR], band=at_least(1)),
    ]
    for b in BEHAVIOURS:
        if b == PUBLISHED_BEHAVIOUR:
            continue
        out.append(Claim.check(f"{b}: no acknowledged row lost at any capacity point", published=0,
                               ours=by.acked_rows_lost[b], band=equals(0), tolerance=0))
        out.append(Claim.check(f"{b}: the session loses no acknowledged change", published=0,
                               ours=lost_in_session[b], band=equals(0), tolerance=0))
        out.append(Claim.check(f"{b}: the client is told about the full disk (errors in the sweep)", published=None,
                               ours=by.client_errors[b], band=at_least(1)))
    out.append(Claim.check("restarts after the 2018 behaviour that needed rocksdb_wal_recovery_mode = 3",
                           published="needed (mode 3)", ours=by.restarts_needing_mode_3[PUBLISHED_BEHAVIOUR],
                           band=at_least(1),
                           must_hold=(), reason="only capacity points where a WAL append was cut short leave the "
                           "torn record that kAbsoluteConsistency refuses; a smaller sweep may meet none"))
    return out
