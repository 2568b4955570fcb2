"""Finding F8: what a big transaction costs in memory, the limits that refuse one, and commit in the middle's price.

Seed 000 ("The MyRocks community in 2016"): "MyRocks buffers in memory all changes from a transaction until commit
and at commit time the changes are briefly double buffered when copied into the memtable", so too-large
transactions led to "lousy performance and OOM". The workaround: ``rocksdb_commit_in_the_middle`` for bulk loads.
The limit then was ``rocksdb_max_row_locks``, "a limit on the number of locked rows rather than on the memory used
by a transaction", 1B by default, to be changed "to be on the amount of memory used by a transaction".

``run`` measures it on both engines, each with the kind of transaction it keeps (``engine.begin()``: buffered in a
batch for the LSM, as MyRocks; in place with undo for the B+tree, as InnoDB), in four parts (``PARTS``):

* ``memory``: one transaction of ``rows`` rows, for rows in ``Sizes.rows``: the bytes it held before commit and at
  its peak (``peak_bytes``, the engine's ``last_write_memory()``), and the log bytes it wrote per row (redo or WAL,
  undo included): where the B+tree keeps what the LSM keeps in memory;
* ``middle``: the largest transaction again with ``commit_in_the_middle=Sizes.chunk``;
* ``limits``: a transaction with ``max_rows=N`` (and one with ``max_bytes`` of N rows), given N and then N+1
  rows: how many it took, and the error's message, which names the knob;
* ``crash``: a transaction with commit in the middle (and one without) cut by a crash of the ``SimDevice`` after
  ``Sizes.crash_after`` rows; the database is reopened and its rows counted: the chunks committed before the
  crash are there, the rest is gone.

Memory is counted, not modelled: the batch's bytes (keys, values and RocksDB's per-record overhead) and what the
engine copies, as ``minidb.transaction`` documents. The logs are synced at every commit (the engines'
``sync-on-commit`` preset), so what a crash keeps is exactly what committed.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .. import data, engines
from .. import scales
from ..kv import BATCH_OP_OVERHEAD, BatchTooLarge
from ..storage import SimDevice
from .claims import Claim, at_most, between, equals, within
from .runner import sweep

PARTS = ("memory", "middle", "limits", "crash")  # run()'s parts, in the order of its rows
KEY_BYTES = 8  # a big-endian row number, as the table layer's primary keys
VALUE_BYTES = 100  # a row of about 100 bytes, the sysbench-like rows of the other chapters
ROW_BYTES = KEY_BYTES + VALUE_BYTES + BATCH_OP_OVERHEAD  # what one row's change holds in a write batch
PAGE_BYTES = 4096  # page (B+tree) and block (LSM) size: small engines, many pages for a few thousand rows
CACHE_BYTES = 64 * PAGE_BYTES  # buffer pool or block cache: a transaction of the larger sizes outgrows it
LOG_KINDS = ("wal", "redo")  # the file kinds of the engines' logs (minidb/storage): the LSM's WAL, the B+tree's redo


@dataclass(frozen=True)
class Sizes:
    """How much work each part does at one scale."""

    rows: tuple[int, ...]  # transaction sizes of the memory part (rows), smallest first
    chunk: int  # commit_in_the_middle of the middle and crash parts (rows per chunk)
    limit: int  # N, the limit of the limits part (rows)
    crash_after: int  # rows written before the crash (a non-multiple of chunk: a chunk is open at the crash)


SIZES = {"tiny": Sizes((250, 1_000, 4_000), 250, 100, 650),
         "small": Sizes((1_000, 4_000, 16_000, 64_000), 1_000, 1_000, 2_500),
         "large": Sizes((1_000, 10_000, 100_000, 400_000), 10_000, 10_000, 25_000)}
COLUMNS = ("part", "engine", "rows", "commit_in_the_middle", "limit", "held_before_commit_bytes", "peak_bytes",
           "peak_per_row_bytes", "log_bytes_per_row", "chunks", "rows_taken", "error", "rows_after_reopen")


def _open(engine: str, device: SimDevice):
    spec = engines.get(engine)
    return spec.open(device, **spec.cache_options(CACHE_BYTES), **{spec.page_option: PAGE_BYTES},
                     **spec.preset("sync-on-commit"))


def _put(txn, i: int) -> None:
    txn.put("t", i.to_bytes(KEY_BYTES, "big"), b"v" * VALUE_BYTES)


def memory_point(engine: str, rows: int, middle: int | None = None) -> dict:
    """One transaction of ``rows`` rows on a new database: what it held, at its peak, and the log it wrote."""
    device = SimDevice()
    db = _open(engine, device)
    logged = sum(device.stats.total(kind=k).write_bytes for k in LOG_KINDS)
    txn = db.begin(commit_in_the_middle=middle)
    held = 0
    for i in range(rows):
        _put(txn, i)
        held = max(held, txn.nbytes)
    txn.commit()
    logged = sum(device.stats.total(kind=k).write_bytes for k in LOG_KINDS) - logged
    db.close()
    return {"held_before_commit_bytes": held, "peak_bytes": txn.peak_bytes, "peak_per_row_bytes": txn.peak_bytes / rows,
            "log_bytes_per_row": logged / rows, "chunks": txn.chunks}


def limit_point(engine: str, option: str, limit: int, rows: int) -> dict:
    """A transaction limited to ``limit`` rows by ``option`` (``max_rows``, or ``max_bytes`` of that many rows),
    given ``rows`` rows: how many it took before refusing one, and the error it gave."""
    if option not in ("max_rows", "max_bytes"):
        raise ValueError(f"unknown limit option {option!r}: use max_rows or max_bytes")
    db = _open(engine, SimDevice())
    knob = limit if option == "max_rows" else limit * ROW_BYTES
    txn = db.begin(**{option: knob})
    error = ""
    taken = 0
    try:
        for i in range(rows):
            _put(txn, i)
            taken += 1
    except BatchTooLarge as exc:
        error = str(exc)
    txn.commit()
    db.close()
    return {"rows_taken": taken, "error": error}


def crash_point(engine: str, rows: int, middle: int | None) -> dict:
    """A transaction cut by a crash after ``rows`` rows; the rows a reopened database holds."""
    device = SimDevice()
    db = _open(engine, device)
    txn = db.begin(commit_in_the_middle=middle)
    for i in range(rows):
        _put(txn, i)
    chunks = txn.chunks
    device.crash()
    db = _open(engine, device)
    found = sum(1 for _ in db.scan("t"))
    db.close()
    return {"chunks": chunks, "rows_after_reopen": found}


def _part(part: str, **point) -> dict:
    """One point of ``run``'s sweep, dispatched to its part."""
    if part in ("memory", "middle"):
        return memory_point(point["engine"], point["rows"], point["commit_in_the_middle"])
    if part == "limits":
        return limit_point(point["engine"], point["option"], point["limit"], point["rows"])
    return crash_point(point["engine"], point["rows"], point["commit_in_the_middle"])


def points(scale: str | None = None) -> list[dict]:
    """The sweep's points at ``scale``: every part on every engine."""
    s = SIZES[scales.current(scale)]
    out = []
    for engine in engines.NAMES:
        out += [dict(part="memory", engine=engine, rows=n, commit_in_the_middle=None) for n in s.rows]
        out.append(dict(part="middle", engine=engine, rows=s.rows[-1], commit_in_the_middle=s.chunk))
        out += [dict(part="limits", engine=engine, option=option, limit=s.limit, rows=n)
                for option in ("max_rows", "max_bytes") for n in (s.limit, s.limit + 1)]
        out += [dict(part="crash", engine=engine, rows=s.crash_after, commit_in_the_middle=m)
                for m in (s.chunk, None)]
    return out


def run(scale: str | None = None, *, executor=None, cache_dir=None, progress: bool = True) -> pd.DataFrame:
    """Every part at ``scale``: one row per point, with ``COLUMNS`` (and ``option`` for the limits)."""
    frame = sweep(_part, points(scale), name="f8-big-transactions", executor=executor, cache_dir=cache_dir,
                  progress=progress)
    return frame[[c for c in (*COLUMNS, "option") if c in frame.columns]]


def published() -> pd.DataFrame:
    """Seed 000's sentences on too-large transactions, one row per point it makes."""
    return data.load("big_transactions")


def claims(results: pd.DataFrame) -> list[Claim]:
    """F8's verdict: the LSM's transaction memory grows with its size and doubles at commit, the B+tree's stays
    flat, each limit refuses the N+1st row naming its knob, commit in the middle bounds memory, and a crash keeps
    the chunks committed before it."""
    mem = results[results.part == "memory"]
    lsm, btree = (mem[mem.engine == e].sort_values("rows") for e in ("lsm", "btree"))
    grow = (lsm.peak_bytes.iloc[-1] / lsm.peak_bytes.iloc[0]) / (lsm.rows.iloc[-1] / lsm.rows.iloc[0])
    double = (lsm.peak_bytes / lsm.held_before_commit_bytes).min()
    flat = btree.peak_bytes.iloc[-1] / btree.peak_bytes.iloc[0]
    middle = results[(results.part == "middle") & (results.engine == "lsm")].iloc[0]
    chunk = int(middle.commit_in_the_middle)
    bounded = middle.peak_bytes / (2 * chunk * ROW_BYTES)
    lim = results[results.part == "limits"]
    out = [
        Claim.check("the LSM's transaction memory grows in proportion to its size (peak, largest / smallest, "
                    "per row)", published="buffers in memory all changes from a transaction until commit (000)",
                    ours=grow, band=within(1.0, 0.1)),
        Claim.check("at commit the LSM holds the batch and its copy in the memtable (peak / batch, least)",
                    published="briefly double buffered when copied into the memtable (000)", ours=double,
                    band=between(1.8, 2.6)),
        Claim.check("the B+tree's transaction memory does not grow with its size, changes going to pages in place "
                    "(peak, largest / smallest)", published=None, ours=flat, band=within(1.0, 0.05)),
        Claim.check(f"commit in the middle every {chunk:,} rows bounds the LSM's memory to one chunk's, doubled "
                    f"(peak / 2 x chunk)", published="rocksdb_commit_in_the_middle for bulk loads (000)",
                    ours=bounded, band=between(0.9, 1.2)),
    ]
    def refuses(option: str, engine: str) -> bool:
        """Whether ``option`` of N rows took N rows on ``engine`` and refused the N+1st, naming the option."""
        rows = lim[(lim.option == option) & (lim.engine == engine)]
        n = int(rows.limit.iloc[0])
        at_n, past_n = rows[rows.rows == n].iloc[0], rows[rows.rows == n + 1].iloc[0]
        return at_n.rows_taken == n and not at_n.error and past_n.rows_taken == n and f"({option}" in past_n.error

    out += [
        Claim.check("max_rows takes N rows and refuses the N+1st with an error naming max_rows (both engines: 1 "
                    "if so)", published="rocksdb_max_row_locks: the number of locked rows, 1B by default (000)",
                    ours=float(all(refuses("max_rows", e) for e in engines.NAMES)), band=equals(1.0)),
        Claim.check("max_bytes of N rows takes N rows into the LSM's batch and refuses the N+1st with an error "
                    "naming max_bytes (1 if so)", published="a limit on the memory used by a transaction (000)",
                    ours=float(refuses("max_bytes", "lsm")), band=equals(1.0)),
        Claim.check("the same max_bytes never stops the B+tree's in-place transaction, which holds one change at a "
                    "time (rows taken / N+1)", published=None,
                    ours=lim[(lim.option == "max_bytes") & (lim.engine == "btree")].rows_taken.max()
                    / (lim.limit.iloc[0] + 1), band=equals(1.0)),
    ]
    crash = results[results.part == "crash"]
    chunked = crash[crash.commit_in_the_middle.notna()]
    whole = crash[crash.commit_in_the_middle.isna()]
    kept = (chunked.rows_after_reopen / (chunked.chunks * chunked.commit_in_the_middle)).min()
    out += [
        Claim.check("a crash in the middle of a chunked transaction keeps the chunks it committed (rows found / "
                    "rows in committed chunks, both engines)", published=None, ours=kept, band=equals(1.0)),
        Claim.check("a crash before commit leaves nothing of a transaction without commit in the middle (rows "
                    "found, both engines)", published=None, ours=whole.rows_after_reopen.max(), band=equals(0)),
    ]
    return out
