"""The compaction viewer: an LSM's shape after every flush and compaction of a load, and why each was picked.

As mini-lsm's compaction simulator does for its students, ``watch`` runs a load and records, each time a background
job is installed, what the job did (a flush of the memtable into L0, or a compaction from one level into another,
with the picker's reason and score), the files and bytes of every level right after it, and the running write
amplification: every byte the device has been asked to write so far (WAL, SSTs, MANIFEST) over the bytes of keys
and values the client wrote. ``render`` prints that log as text, ``chart`` draws bytes per level over the jobs.

    from minidb.commands.lsm_shape.viewer import watch, render
    log = watch(rows=20_000, compaction="leveled")
    print(render(log, limit=10))

The recording is an engine listener (the ``listeners`` option, minidb/lsm/scheduler.py): it only looks at the
engine, so the load, its IO counts and its simulated times are the same with the viewer as without it. The viewer
is a tool of the ``minidb lsm-shape`` command, beside it here, outside the engine package it watches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ...experiments.calibration import calibrated_server
from ...units import format_size
from ...workloads import DataSetup, RunSetup, insert_benchmark

# Why a job ran, in words; the compaction reasons are the pickers' (compaction.py), {score} their score.
REASONS = {
    "flush": "the memtable filled up (memtable_bytes) and was written to L0",
    "level0": "L0 scores {score:.2f}: its files over level0_file_num_compaction_trigger, or its bytes over "
              "max_bytes_for_level_base, whichever is more",
    "level-size": "L{start} is {score:.2f} x its target size",
    "size-amp": "the newer sorted runs hold over max_size_amplification_percent of the oldest: merge all",
    "size-ratio": "sorted runs of similar size (within size_ratio) were merged",
    "sorted-runs": "more sorted runs than level0_file_num_compaction_trigger: the newest were merged",
    "manual": "compact_range asked for it",
}
EVENT_COLUMNS = ("event", "time", "kind", "reason", "score", "start_level", "output_level", "input_files",
                 "input_bytes", "output_files", "output_bytes", "write_amp")  # ShapeLog.events()'s columns


@dataclass
class ShapeLog:
    """What ``watch`` recorded: one entry per installed job (``events()``) and the levels after it (``levels()``)."""

    num_levels: int  # levels of the tree, L0 included
    rows: list[dict] = field(default_factory=list)  # one dict per job, EVENT_COLUMNS plus "files" and "bytes" lists

    def events(self) -> pd.DataFrame:
        """One row per job with ``EVENT_COLUMNS``."""
        return pd.DataFrame([{k: r[k] for k in EVENT_COLUMNS} for r in self.rows], columns=list(EVENT_COLUMNS))

    def levels(self) -> pd.DataFrame:
        """The shape after each job, one row per (event, level): ``files`` and ``bytes``."""
        out = [{"event": r["event"], "level": f"L{lv}", "files": r["files"][lv], "bytes": r["bytes"][lv]}
               for r in self.rows for lv in range(self.num_levels)]
        return pd.DataFrame(out, columns=["event", "level", "files", "bytes"])


class ShapeRecorder:
    """An engine listener that appends the shape of column family ``cf`` to a ``ShapeLog`` after every job."""

    def __init__(self, cf: str = "default") -> None:
        self.cf = cf  # the column family watched
        self.log: ShapeLog | None = None  # created at the first job, when the tree's depth is known

    def on_flush_completed(self, engine, job) -> None:
        """Record a flush (RocksDB's OnFlushCompleted)."""
        if job.cf.name == self.cf:
            out = job.outputs.files
            self._record(engine, job, "flush", "flush", 0.0, None, 0, 0, 0, len(out), sum(f.size for f in out))

    def on_compaction_completed(self, engine, job) -> None:
        """Record a compaction or trivial move (RocksDB's OnCompactionCompleted)."""
        if job.cf.name != self.cf:
            return
        c = job.compaction
        ins = c.input_files
        in_bytes = sum(f.size for f in ins)
        if c.trivial_move:
            self._record(engine, job, "trivial-move", c.reason, c.score, c.start_level, c.output_level, len(ins),
                         in_bytes, len(ins), in_bytes)
        else:
            out = job.outputs.files
            self._record(engine, job, "compaction", c.reason, c.score, c.start_level, c.output_level, len(ins),
                         in_bytes, len(out), sum(f.size for f in out))

    def _record(self, engine, job, kind, reason, score, start, output, in_files, in_bytes, out_files,
                out_bytes) -> None:
        v = job.cf.version
        if self.log is None:
            self.log = ShapeLog(v.num_levels)
        user = engine.counters["user_bytes"]
        self.log.rows.append({
            "event": len(self.log.rows) + 1, "time": job.done_at, "kind": kind, "reason": reason, "score": score,
            "start_level": start, "output_level": output, "input_files": in_files, "input_bytes": in_bytes,
            "output_files": out_files, "output_bytes": out_bytes,
            "write_amp": engine.device.stats.total().write_bytes / user if user else float("nan"),
            "files": [len(v.levels[lv]) for lv in range(v.num_levels)],
            "bytes": [v.level_bytes(lv) for lv in range(v.num_levels)],
        })


def watch(rows: int = 20_000, *, compaction: str = "leveled", seed: int = 0, device="nvme",
          secondary_indexes: int = 3, **options) -> ShapeLog:
    """Insert ``rows`` insert-benchmark rows into a fresh LSM (sizes from ``minidb.scales``, jobs timed on
    ``device``) and return the log of its shape after every flush and compaction. ``options`` are LSM options
    (e.g. ``level0_slowdown_writes_trigger=10``); ValueError names a bad one."""
    recorder = ShapeRecorder()
    data = DataSetup("lsm", seed=seed, engine_options=dict(compaction=compaction, listeners=(recorder,),
                                                           wal_sync="none", **options))
    insert_benchmark(RunSetup(data, device=device, server_model=calibrated_server()), rows,
                     secondary_indexes=secondary_indexes)
    if recorder.log is None:
        raise ValueError(f"{rows} rows never filled a memtable: nothing was flushed or compacted; load more rows")
    return recorder.log


def explain(row: dict | pd.Series) -> str:
    """Why the job of one event ran, in words."""
    template = REASONS.get(row["reason"], row["reason"])
    return template.format(score=row["score"], start=row["start_level"])


def render(log: ShapeLog, *, every: int = 1, limit: int | None = None, width: int = 30) -> str:
    """The log as text: for every ``every``-th job (at most ``limit`` of them), what it did and why, then one line
    per level with a bar of its bytes (``width`` characters for the largest level seen)."""
    if every < 1:
        raise ValueError(f"every must be >= 1, got {every}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    chosen = log.rows[every - 1::every]
    if limit is not None:
        chosen = chosen[:limit]
    biggest = max((b for r in log.rows for b in r["bytes"]), default=1) or 1
    lines = []
    for r in chosen:
        if r["kind"] == "flush":
            what = f"flush -> L0: {r['output_files']} file(s), {format_size(r['output_bytes'])}"
        else:
            what = (f"{r['kind']} L{r['start_level']} -> L{r['output_level']}: {r['input_files']} file(s) "
                    f"{format_size(r['input_bytes'])} in, {r['output_files']} file(s) "
                    f"{format_size(r['output_bytes'])} out")
        lines.append(f"#{r['event']} at {r['time']:.4f} s  {what}")
        lines.append(f"    why: {explain(r)}")
        for lv, (files, nbytes) in enumerate(zip(r["files"], r["bytes"])):
            if files or lv == 0:
                bar = "#" * max(1 if nbytes else 0, round(width * nbytes / biggest))
                lines.append(f"    L{lv} {files:4d} files {format_size(nbytes):>10}  {bar}")
        lines.append(f"    write-amp so far {r['write_amp']:.2f}")
    return "\n".join(lines)


def chart(log: ShapeLog, title: str | None = None):
    """An Altair chart: bytes per level (stacked) after each job, and the running write amplification below."""
    import altair as alt

    levels = log.levels()
    levels["MiB"] = levels["bytes"] / 2**20
    event = alt.X("event:Q", title="flush or compaction #", axis=alt.Axis(tickMinStep=1, format="d"))  # whole jobs
    shape = alt.Chart(levels).mark_area().encode(
        x=event, y=alt.Y("MiB:Q", stack=True, title="MiB in level"),
        color=alt.Color("level:N", sort=[f"L{i}" for i in range(log.num_levels)]),
        tooltip=["event", "level", "files", "MiB"],
    ).properties(title=title or "Bytes per level after each flush and compaction", height=200)
    amp = alt.Chart(log.events()).mark_line().encode(
        x=event, y=alt.Y("write_amp:Q", title="write-amp so far"),
        tooltip=["event", "kind", "reason", "write_amp"],
    ).properties(height=120)
    return alt.vconcat(shape, amp)
