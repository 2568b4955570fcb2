"""Finding F6: compaction stalls and throughput variance (seeds 000, 001, 003/004).

Seed 000 plots MyRocks's insert rate per 5-second interval during the insert benchmark with 16 clients: a thick,
jagged line, "largely from compaction stalls when there are too many files in level 0". Its author raised
``level0_slowdown_writes_trigger`` from 10 to 20 "to reduce compaction stalls", ran leveled and universal compaction,
and saw "more stalls with leveled compaction"; universal without the binlog inserted fastest at 16 clients. Seeds
001 and 003/004 see the same variance at 1-second resolution in sysbench-tpcc. The series are images in the posts:
``data/`` holds their setup and what their authors saw in them, and the average rates by client count.

``run`` inserts the same rows into the LSM under three configurations (``CONFIGS``) and cuts each run's simulated
timeline into ``INTERVALS`` intervals of one common width, the seed's 5-second intervals scaled to our run. Each
interval is *stopped* when writes stood still (a write stop: memtables full, or L0 at its stop trigger) for at least
half of it, and *slowed* when its rate is below ``SLOW_FRACTION`` of the run's median interval rate without being
stopped: the dips a reader sees in the seed's charts. Beside those counts: the engine's own stall counters (writes
delayed by the L0 slowdown trigger, writes stopped and why) and the run's write amplification.

**With the server.** The runs are the seed's: 16 clients, the binlog off (its "no binlog" rows), the calibrated
server's CPU per row (``minidb.sim.server``) beside the engine's, and flushes and compactions that cost what
RocksDB's own cost per entry (``minidb.sim.cpu``): in a run long enough, 16 clients then insert faster than the
background jobs can finish, as in the seed. The seed's whole table of insert rates by client count (1 to 16
clients, binlog on and off) is run in ``minidb.experiments.server_model`` (chapter 2b).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import data, engines, scales
from ..workloads import DataSetup, RunSetup, insert_benchmark
from .calibration import calibrated_server
from .claims import Claim, at_least, at_most
from .f1_insert_benchmark import SYNC_PRESET, cache_bytes
from .runner import sweep

# The three configurations, as LSM options. Seed 000 (2017-02-08): "I increased level0_slowdown_writes_trigger to 20
# and level0_stop_writes_trigger to 30. I also ran tests with universal compaction"; its 2017-01-30 post had raised
# the slowdown trigger from 10 (MyRocks's value then) to 20. The stop trigger stays at 30 in all three.
CONFIGS = {
    "leveled, slowdown 10": dict(compaction="leveled", level0_slowdown_writes_trigger=10,
                                 level0_stop_writes_trigger=30),
    "leveled, slowdown 20": dict(compaction="leveled", level0_slowdown_writes_trigger=20,
                                 level0_stop_writes_trigger=30),
    "universal": dict(compaction="universal", level0_slowdown_writes_trigger=20, level0_stop_writes_trigger=30),
}
LEVELED_10, LEVELED_20, UNIVERSAL = CONFIGS  # the names, for the claims
DEVICE = "nvme"  # seed 000's server: "fast NVMe flash"
CONFIG = "in-memory"  # seed 000's stall graphs and its client-count table are for cached databases
# Intervals per run. Seed 000's 5-second intervals each saw a flush or two of its 64 MB memtables (some 20 MB/s of
# rows and index entries); our runs flush about once per thousand rows, so a few hundred intervals keep that ratio.
INTERVALS = 300
SLOW_FRACTION = 0.5  # an interval below this share of the run's median rate is "slowed"
STOPPED_FRACTION = 0.5  # an interval that spent this share of its length stopped is "stopped"
# Rows inserted per scale. The L0 slowdown trigger of 10 files is reached only once the base level is large enough
# that merging L0 into it takes longer than a few flushes: the small scale's rows reach it, the tiny scale's do not
# (its claim says so), and a run of small's size costs well under a minute of CPU for the three configurations.
ROWS = {"tiny": 20_000, "small": 400_000, "large": 2_000_000}
# Width of the fine intervals each run records, from which the common intervals are summed (seconds).
FINE_WIDTH = {"tiny": 1e-5, "small": 1e-4, "large": 1e-3}

SUMMARY = ("config", "rows", "ops_per_sec", "write_amp", "intervals", "slowed_intervals", "stopped_intervals",
           "rate_cv", "writes_slowed_level0", "writes_stopped", "writes_stopped_memtable", "writes_stopped_level0",
           "stalled_seconds", "seconds", "interval_seconds")  # run()'s columns, in order
SERIES = ("config", "interval", "start", "ops_per_sec", "stalled_seconds", "state")  # run().attrs["series"]'s


def run_point(config: str, rows: int, fine_width: float, seed: int = 0) -> dict:
    """One insert benchmark run of ``rows`` rows under ``config``: its summary and its fine interval series
    (``ops`` and ``stalled`` per ``fine_width`` seconds, as arrays)."""
    if config not in CONFIGS:
        raise ValueError(f"unknown configuration {config!r}: use one of {', '.join(CONFIGS)}")
    return run_options(CONFIGS[config], rows, fine_width, seed)


def run_options(options: dict, rows: int, fine_width: float, seed: int = 0) -> dict:
    """``run_point`` with the LSM ``options`` (compaction, L0 triggers) given, not named in ``CONFIGS``."""
    data = DataSetup("lsm", seed=seed, engine_options={**engines.get("lsm").preset(SYNC_PRESET), **options})
    setup = RunSetup(data, cache_bytes=cache_bytes("lsm", CONFIG, rows), device=DEVICE, interval=fine_width,
                     server_model=calibrated_server(binlog=False))
    result = insert_benchmark(setup, rows)
    s, e = result.summary, result.engine_stats
    return {
        "ops_per_sec": s["ops_per_sec"], "write_amp": s["write_amp"], "seconds": s["seconds"],
        "stalled_seconds": s["stalled_seconds"], "writes_slowed_level0": e["stall_slowdown_level0"],
        "writes_stopped": e["stall_writes_stopped"], "writes_stopped_memtable": e["stall_stop_memtable"],
        "writes_stopped_level0": e["stall_stop_level0"],
        "fine_ops": result.intervals.ops.to_numpy(), "fine_stalled": result.intervals.stalled_seconds.to_numpy(),
    }


def run(scale: str | None = None, *, rows: int | None = None, seed: int = 0, executor=None, cache_dir=None,
        progress: bool = True) -> pd.DataFrame:
    """The three configurations at ``scale``: one row per configuration with ``SUMMARY``'s columns; the interval
    series of all three is in ``attrs["series"]`` (``SERIES``'s columns)."""
    name = scales.current(scale)
    rows = ROWS[name] if rows is None else int(rows)
    fine = FINE_WIDTH[name]
    frame = sweep(run_point, [dict(config=c, rows=rows, fine_width=fine, seed=seed) for c in CONFIGS],
                  name="f6-stalls", executor=executor, cache_dir=cache_dir, progress=progress)
    group = common_group(frame.fine_ops)
    summaries, series = [], []
    for _, point in frame.iterrows():
        s = classify(point.fine_ops, point.fine_stalled, group, fine)
        s.insert(0, "config", point.config)
        series.append(s)
        whole = s[s.state != "partial"]
        rates = whole.ops_per_sec
        summaries.append({
            "config": point.config, "rows": rows, "ops_per_sec": point.ops_per_sec, "write_amp": point.write_amp,
            "intervals": len(whole), "slowed_intervals": int((whole.state == "slowed").sum()),
            "stopped_intervals": int((whole.state == "stopped").sum()),
            "rate_cv": float(rates.std() / rates.mean()) if len(rates) > 1 and rates.mean() > 0 else math.nan,
            **{k: point[k] for k in ("writes_slowed_level0", "writes_stopped", "writes_stopped_memtable",
                                     "writes_stopped_level0", "stalled_seconds", "seconds")},
            "interval_seconds": group * fine,
        })
    out = pd.DataFrame(summaries, columns=list(SUMMARY))
    out.attrs["series"] = pd.concat(series, ignore_index=True)[list(SERIES)]
    return out


def common_group(fine_ops) -> int:
    """Fine intervals per interval, one width for all runs: the longest run in ``INTERVALS`` intervals."""
    return max(1, math.ceil(max(len(ops) for ops in fine_ops) / INTERVALS))


def classify(fine_ops: np.ndarray, fine_stalled: np.ndarray, group: int, fine_width: float) -> pd.DataFrame:
    """Sum fine intervals ``group`` at a time and label each interval ``normal``, ``slowed``, ``stopped`` or
    ``partial`` (the last one, when shorter than the others; it is left out of the counts)."""
    n = math.ceil(len(fine_ops) / group)
    pad = n * group - len(fine_ops)
    ops = np.concatenate([fine_ops, np.zeros(pad)]).reshape(n, group).sum(axis=1)
    stalled = np.concatenate([fine_stalled, np.zeros(pad)]).reshape(n, group).sum(axis=1)
    width = group * fine_width
    rate = ops / width
    median = float(np.median(rate[:-1] if pad and n > 1 else rate))
    state = np.where(stalled >= STOPPED_FRACTION * width, "stopped",
                     np.where(rate < SLOW_FRACTION * median, "slowed", "normal")).astype(object)
    if pad and n > 1:
        state[-1] = "partial"
        rate[-1] = ops[-1] / ((group - pad) * fine_width)
    return pd.DataFrame({"interval": np.arange(n), "start": np.arange(n) * width, "ops_per_sec": rate,
                         "stalled_seconds": stalled, "state": state})


# -- the explorable grid: the L0 slowdown trigger and the compaction style ----------------------------------------
# Slowdown triggers from the compaction trigger (4: RocksDB refuses a slowdown trigger below it) to the seed's 20,
# the stop trigger at 30 as in CONFIGS; at small, rows enough that the lower triggers are reached (a quarter of
# ROWS, so that the ten runs stay cheap).
TRIGGERS = (4, 8, 12, 16, 20)
COMPACTIONS = ("leveled", "universal")
TRIGGER_ROWS = {"tiny": 20_000, "small": 100_000, "large": 400_000}
STOP_TRIGGER = 30


def trigger_point(compaction: str, slowdown_trigger: int, rows: int, fine_width: float, seed: int = 0) -> dict:
    """``run_options`` with ``compaction`` and ``level0_slowdown_writes_trigger``, the stop trigger at 30."""
    return run_options(dict(compaction=compaction, level0_slowdown_writes_trigger=slowdown_trigger,
                            level0_stop_writes_trigger=STOP_TRIGGER), rows, fine_width, seed)


def trigger_grid(scale: str | None = None, *, seed: int = 0, executor=None, cache_dir=None,
                 progress: bool = True) -> pd.DataFrame:
    """Every ``COMPACTIONS`` x ``TRIGGERS`` run at ``scale``: their interval series (``SERIES``' columns after
    ``compaction`` and ``slowdown_trigger``), cut to one common width as ``run`` cuts its own."""
    name = scales.current(scale)
    fine = FINE_WIDTH[name]
    points = [dict(compaction=c, slowdown_trigger=t, rows=TRIGGER_ROWS[name], fine_width=fine, seed=seed)
              for c in COMPACTIONS for t in TRIGGERS]
    frame = sweep(trigger_point, points, name="f6-triggers", executor=executor, cache_dir=cache_dir,
                  progress=progress)
    group = common_group(frame.fine_ops)
    series = []
    for _, point in frame.iterrows():
        s = classify(point.fine_ops, point.fine_stalled, group, fine)
        series.append(s.assign(compaction=point.compaction, slowdown_trigger=point.slowdown_trigger))
    out = pd.concat(series, ignore_index=True)
    return out[["compaction", "slowdown_trigger", *SERIES[1:]]]


def published() -> pd.DataFrame:
    """Seed 000's average insert rates by client count (1..16), leveled and universal, binlog on and off, with
    InnoDB's beside them (``data/published/insert_rate_by_concurrency.csv``)."""
    return data.load("insert_rate_by_concurrency")


def published_rate(compaction: str, binlog: bool = False, clients: int = 16) -> float:
    """MyRocks's published average insert rate with ``compaction`` at ``clients`` clients."""
    t = published()
    row = t[(t.engine == "MyRocks") & (t.compaction == compaction) & (t.binlog == binlog) & (t.clients == clients)]
    return float(row.inserts_per_sec.iloc[0])


def _row(results: pd.DataFrame, config: str) -> pd.Series:
    return results.set_index("config").loc[config]


def claims(results: pd.DataFrame) -> list[Claim]:
    """F6's verdict: the series shows stalls; a higher slowdown trigger cuts them; leveled against universal."""
    l10, l20, uni = (_row(results, c) for c in (LEVELED_10, LEVELED_20, UNIVERSAL))
    stalled10 = (l10.slowed_intervals + l10.stopped_intervals) / l10.intervals
    lev, uni_rate = published_rate("leveled"), published_rate("universal")
    cut = l20.writes_slowed_level0 / l10.writes_slowed_level0 if l10.writes_slowed_level0 else math.nan
    return [
        Claim.check(
            "leveled compaction's per-interval insert rate has stalls: a share of its intervals is slowed or stopped",
            published="most variance, from compaction stalls (000)", ours=stalled10, band=at_least(0.02),
            must_hold=("small", "large"),
            reason="a run this short ends after a few compactions, before L0 has filled often enough for its stalls "
                   "to show in the intervals"),
        Claim.check(
            "raising level0_slowdown_writes_trigger from 10 to 20 does not make the per-interval rate vary more "
            "(coefficient of variation, 20 / 10)",
            published="10 -> 20 to reduce compaction stalls (000)", ours=l20.rate_cv / l10.rate_cv, band=at_most(1.0)),
        Claim.check(
            "raising level0_slowdown_writes_trigger from 10 to 20 cuts the writes the L0 trigger slows down by at "
            "least half (ratio 20 / 10)",
            published="10 -> 20 to reduce compaction stalls (000)", ours=cut, band=at_most(0.5),
            must_hold=("small", "large"),
            reason="L0 never reached 10 files: at this size merging L0 into the base level takes less time than a "
                   "few flushes, so no write was slowed by the L0 trigger with either setting"),
        Claim.check(
            "raising the slowdown trigger from 10 to 20 does not lower the insert rate (ratio 20 / 10)",
            published=None, ours=l20.ops_per_sec / l10.ops_per_sec, band=at_least(0.95)),
        Claim.check(
            "there are more stalls with leveled compaction: its per-interval rate varies more than universal's "
            "(coefficient of variation, leveled / universal)",
            published="more stalls with leveled compaction (000)", ours=l20.rate_cv / uni.rate_cv,
            band=at_least(1.0), must_hold=("small", "large"),
            reason="a run this short holds a few dozen flushes and a handful of compactions, too few for the two "
                   "styles' stalls to differ"),
        Claim.check(
            "universal compaction writes less than leveled (write-amp ratio universal / leveled)",
            published="RocksDB's documented trade-off, not measured in the seeds", ours=uni.write_amp / l20.write_amp,
            band=at_most(1.0), must_hold=(),
            reason="universal compaction here merges sorted runs of similar size (size_ratio 1%) as soon as four "
                   "exist, so with equal-sized flushes every byte is merged again each time the runs double: about "
                   "log2(flushes) rewrites, more than leveled compaction's per-level rewrites on a tree this shallow"),
        Claim.check(
            "universal compaction inserts faster than leveled at 16 clients without binlog (rate ratio)",
            published=round(uni_rate / lev, 2), ours=uni.ops_per_sec / l20.ops_per_sec, band=at_least(1.0),
            must_hold=(),
            reason="where universal compaction merges more bytes than leveled (the write-amp claim above), what it "
                   "saves in L0 stalls it spends again in merges, and the seed's universal compaction wrote less"),
    ]
