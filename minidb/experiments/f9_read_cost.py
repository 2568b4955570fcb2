"""Finding F9: an LSM's read cost depends on its shape when the reads begin (seed 000).

Seed 000 saw "too much variance during the read-only tests" of sysbench that follow a read-write test: "The overhead
for a search of the LSM tree depends on the amount of data in the memtable and the number of files in level 0. This
state is not deterministic when a read-only test follows a read-write test." RocksDB issue 427 proposes flushing
the memtable and level 0 when a workload becomes read-only.

``run`` does it: sysbench read-write on one table, stopped at ``STOPS`` evenly spaced points; at each stop a
read-only phase of point selects (sysbench ``oltp_point_select``) measures what each get cost: SST files probed,
bloom filter probes and their false positives, data blocks visited and read from the device, block cache hit rate.
Three passes:

* ``lsm``: the reads see the tree as the read-write phase left it;
* ``lsm, flush + L0 compaction``: each read phase begins with ``flush()`` and ``compact_level0()`` (issue 427);
* ``btree``: the B+tree, whose gets visit one root-to-leaf path whatever came before.

**A pause, not a new database per stop.** Each stop is a pause in one read-write run: the read phase runs, then the
read-write phase resumes. Running a fresh database to every stop would cost the read-write phase once per stop; a
pause changes what the next stop sees only through the block cache (warmer) and, in the second pass, through the
compactions it ran, which is what a workload alternating between the two phases would see too.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import data, engines
from .. import scales
from ..table import RowLayout
from ..workloads import DataSetup, RunSetup
from ..workloads.distributions import sysbench_pattern
from ..workloads.driver import Driver
from ..workloads.sysbench import CORES, EVENTS_PER_STEP, Events, prepare, schema
from .calibration import calibrated_server
from .claims import Claim, at_least, at_most
from .runner import sweep

PASSES = {  # pass name -> (engine, settle before reading)
    "lsm": ("lsm", False),
    "lsm, flush + L0 compaction": ("lsm", True),
    "btree": ("btree", False),
}
LSM, SETTLED, BTREE = PASSES  # the pass names, for the claims
DEVICE = "nvme"  # as the other sysbench chapters
STOPS = 12  # read phases per pass, after 1/STOPS, 2/STOPS, ... of the read-write events
# Sizes per scale: rows in the table, read-write events in all, point selects per read phase. The read-write phase
# spans several memtable flushes and L0 compactions, so the stops catch the memtable and L0 at many fill levels.
SIZES = {"tiny": (3_000, 240, 300), "small": (20_000, 960, 1_000), "large": (200_000, 4_800, 5_000)}

COLUMNS = ("pass", "engine", "stop", "events", "memtable_entries", "immutable_memtables", "l0_files", "sst_files",
           "gets", "tables_probed_per_get", "bloom_probes_per_get", "bloom_false_positives_per_get",
           "blocks_visited_per_get", "blocks_read_per_get", "cache_hit_rate")  # run()'s columns, in order


def run_pass(name: str, table_size: int, rw_events: int, reads: int, stops: int = STOPS,
             seed: int = 0) -> pd.DataFrame:
    """One pass (``PASSES``): ``rw_events`` read-write events with a read phase of ``reads`` point selects after
    each ``rw_events / stops`` of them; one row per read phase."""
    if name not in PASSES:
        raise ValueError(f"unknown pass {name!r}: use one of {', '.join(PASSES)}")
    if not 1 <= stops <= rw_events:
        raise ValueError(f"stops must be between 1 and rw_events ({rw_events}), got {stops}")
    engine, settle = PASSES[name]
    probes = engines.get(engine).supports("bits_per_key")  # a get probes files behind bloom filters
    rng = np.random.default_rng(seed)
    sample = (1, 1, sysbench_pattern(rng, 1, 10)[0], sysbench_pattern(rng, 1, 5)[0])
    setup = RunSetup(DataSetup(engine, seed=seed), device=DEVICE, server_model=calibrated_server())
    drv = Driver.sized(setup, table_size * RowLayout(schema(1)).entry_bytes(sample), scales.SYSBENCH,
                       setup.host(CORES))
    table = drv.table(schema(1))
    prepare(drv, table, table_size, rng)
    run = Events([table], table_size, rng)
    rows, done = [], 0
    for stop in range(1, stops + 1):
        target = rw_events * stop // stops
        while done < target:
            n = min(EVENTS_PER_STEP, target - done)
            with drv.step(ops=n):
                for _ in range(n):
                    run.read_write(drv)
            done += n
        if settle:
            drv.engine.compact_level0()
        shape = _shape(drv.engine) if probes else {}
        before = _read_counters(drv.engine, probes)
        with drv.step(ops=reads):
            for _ in range(reads):
                run.point_select()
        after = _read_counters(drv.engine, probes)
        d = {k: after[k] - before[k] for k in after}
        rows.append({"engine": engine, "stop": stop, "events": done, **shape, "gets": reads, **_per_get(d, reads)})
    return pd.DataFrame(rows)


def _shape(engine) -> dict:
    """The LSM's shape as the read phase finds it."""
    cf = engine.column_family("default")
    s = engine.stats()
    return {"memtable_entries": cf.mem.entries + sum(m.mem.entries for m in cf.imm),
            "immutable_memtables": s["immutable_memtables"], "l0_files": s["l0_files"], "sst_files": s["sst_files"]}


def _read_counters(engine, probes: bool) -> dict:
    """Cumulative counters of what gets touched in ``engine``, under one set of names for both engines (a sysbench
    point select is one get of the primary index). With ``probes`` (an LSM): files probed, bloom filters checked,
    data blocks visited and read, from its stats; otherwise (a B+tree, which probes no file and filters nothing):
    pages visited and read, from the contract's ``work()``."""
    if probes:
        s = engine.stats()
        return {"tables": s["get_tables_probed"], "bloom": s["bloom_checked"], "bloom_fp": s["bloom_false_positive"],
                "visited": s["blocks_accessed"], "read": s["blocks_read"], "hits": s["block_cache_hits"],
                "misses": s["block_cache_misses"]}
    w = engine.work()
    return {"tables": 0, "bloom": 0, "bloom_fp": 0, "visited": w["page_visits"], "read": w["cache_misses"],
            "hits": w["cache_hits"], "misses": w["cache_misses"]}


def _per_get(d: dict, gets: int) -> dict:
    lookups = d["hits"] + d["misses"]
    return {"tables_probed_per_get": d["tables"] / gets, "bloom_probes_per_get": d["bloom"] / gets,
            "bloom_false_positives_per_get": d["bloom_fp"] / gets, "blocks_visited_per_get": d["visited"] / gets,
            "blocks_read_per_get": d["read"] / gets,
            "cache_hit_rate": d["hits"] / lookups if lookups else math.nan}


def run(scale: str | None = None, *, seed: int = 0, executor=None, cache_dir=None,
        progress: bool = True) -> pd.DataFrame:
    """The three passes at ``scale``: one row per (pass, stop) with ``COLUMNS``."""
    table_size, events, reads = SIZES[scales.current(scale)]
    points = [dict(name=p, table_size=table_size, rw_events=events, reads=reads, seed=seed) for p in PASSES]
    frame = sweep(run_pass, points, name="f9-read-cost", executor=executor, cache_dir=cache_dir, progress=progress)
    frame = frame.rename(columns={"name": "pass"})
    return frame[[c for c in COLUMNS if c in frame.columns]]


def spread(results: pd.DataFrame, column: str = "tables_probed_per_get") -> pd.DataFrame:
    """Per pass: the lowest, highest and mean of ``column`` across stops, and the spread (highest - lowest)."""
    g = results.groupby("pass", sort=False)[column]
    out = pd.DataFrame({"min": g.min(), "max": g.max(), "mean": g.mean()})
    out["spread"] = out["max"] - out["min"]
    return out.reset_index()


def published() -> pd.DataFrame:
    """Seed 000's words on read-only variance (RocksDB issue 427), as a one-row table; the default sizes that came
    with it are ``data.load("myrocks_default_sizes")``."""
    return data.load("read_only_variance")


def claims(results: pd.DataFrame) -> list[Claim]:
    """F9's verdict: the LSM's read cost varies with its shape at the switch, issue 427's fix collapses the
    spread, and the B+tree's read cost does not depend on history."""
    tables = spread(results).set_index("pass")
    blocks = spread(results, "blocks_visited_per_get").set_index("pass")
    lsm = results[results["pass"] == LSM]
    return [
        Claim.check(
            "SST files probed per get vary across stopping points of the read-write phase (highest - lowest)",
            published="too much variance during the read-only tests (000)", ours=tables.loc[LSM, "spread"],
            band=at_least(0.5)),
        Claim.check(
            "flush + L0 compaction before reading collapses the spread of files probed per get (settled / as left)",
            published="issue 427: flush the memtable and level 0 (000)",
            ours=tables.loc[SETTLED, "spread"] / tables.loc[LSM, "spread"], band=at_most(0.25)),
        Claim.check(
            "flush + L0 compaction removes the worst case: most files probed per get (settled / as left)",
            published=None, ours=tables.loc[SETTLED, "max"] / tables.loc[LSM, "max"], band=at_most(0.75)),
        Claim.check(
            "bloom filters keep a get near one data block however many files it probes (most blocks per get)",
            published=None, ours=lsm.blocks_visited_per_get.max(), band=at_most(1.2)),
        Claim.check(
            "the B+tree's pages visited per get do not depend on when the reads begin (highest - lowest)",
            published=None, ours=blocks.loc[BTREE, "spread"], band=at_most(0.05)),
    ]
