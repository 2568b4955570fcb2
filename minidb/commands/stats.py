"""``minidb stats``: an engine's statistics after a short load, or of a database in a directory.

    minidb stats --engine lsm --rows 2e4        # load iibench rows into a fresh in-memory device, then report
    minidb stats --engine btree --json
    minidb stats --dir /path/to/db              # open the database kept there, read-only, and report

For the LSM the report ends with RocksDB's "Compaction Stats" table of every column family (files and bytes per
level, bytes read and written by compaction, write amplification); for the B+tree it has one line per index
(height, leaf and internal pages, records, how full the leaves are), then the engine's counters.

``--dir`` opens the database read-only (``read_only=True``): recovery replays the log into memory, and not one
file is created, written or deleted, so the command is safe on a database another process has open (it then
reports the state as of the last sync). Exit codes: 0 reported; 2 bad arguments, including a directory with no
minidb files at all; 1 the database there could not be read: damaged, or missing the file that makes it a database
(``CURRENT`` or ``redo-checkpoint``), or unreadable. Each error is one line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import engines
from ..errors import CorruptionError
from ..units import count_in, format_size
from .run import MAX_ROWS, add_engine_options, format_value, print_record

LOAD_ROWS_PER_COMMIT = 1000  # iibench's --rows_per_commit
STATS_UNITS = ("KB", "MB", "GB")  # size units of the compaction stats table


def register(subparsers) -> None:
    """Add the ``stats`` subcommand."""
    p = subparsers.add_parser(
        "stats", help="print an engine's statistics",
        description="Load insert-benchmark rows into a fresh engine on a simulated device (or open the database in "
        "--dir) and print the engine's statistics: RocksDB's compaction stats table for the LSM, the trees' "
        "shape and the buffer pool's counters for the B+tree.",
    )
    add_engine_options(p)
    p.add_argument("--rows", type=count_in(1, MAX_ROWS), help=f"rows loaded before reporting, at most {MAX_ROWS:,} "
                   "(default: the tiny insert benchmark's)")
    p.add_argument("--dir", type=Path, metavar="DIR", help="report on the database in DIR instead of loading one "
                   "(its engine is recognised from its files)")
    p.add_argument("--unit", choices=STATS_UNITS, default="MB", help="size unit of the compaction table (default MB)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the stats; exit code 2 on a bad value or a directory without a database, 1 if the database there
    cannot be read (see the module docstring)."""
    try:
        if args.dir is not None:
            engine, name, device = _open_dir(args)
            title = f"{name} database in {args.dir}"
        else:
            engine, name, device = _load(args)
            title = f"{name} after loading {args.rows_loaded:,} insert-benchmark rows"
    except ValueError as e:
        print(f"minidb stats: error: {e}", file=sys.stderr)
        return 2
    except (CorruptionError, OSError) as e:
        print(f"minidb stats: error: --dir {args.dir}: cannot read the database: {_one_line(e)}", file=sys.stderr)
        return 1
    try:
        report = _report(engine, name, device, args.unit)
    finally:
        engine.close()
        close = getattr(device, "close", None)
        if close is not None:
            close()
    if args.json:
        print_record(report, as_json=True)
    else:
        _print_text(title, report)
    return 0


def _one_line(e: BaseException) -> str:
    """The error's message on one line (the command prints exactly one)."""
    return " ".join(str(e).split()) or type(e).__name__


def _open_dir(args: argparse.Namespace):
    """Open the database in ``args.dir`` with the engine its files belong to."""
    from ..storage import DirDevice

    if not args.dir.is_dir():
        raise ValueError(f"--dir {args.dir}: no such directory")
    device = DirDevice(args.dir)
    found = engines.detect(device.list())
    if found is None:
        device.close()
        raise ValueError(f"--dir {args.dir}: no minidb database there (no file of the LSM or of the B+tree)")
    spec = engines.get(found)
    try:
        return spec.open(device, read_only=True, **spec.cache_options(args.cache)), found, device
    except BaseException:
        device.close()
        raise


def _load(args: argparse.Namespace):
    """Insert ``args.rows`` iibench rows into a fresh engine under simulated time; return it still open."""
    from .. import scales
    from ..experiments.calibration import calibrated_server
    from ..workloads import DataSetup, RunSetup
    from ..workloads.insert_benchmark import RowGenerator, insert_rows, schema, sized_driver

    rows = scales.insert_benchmark("tiny").rows if args.rows is None else args.rows
    setup = RunSetup(DataSetup(args.engine, scale=args.scale, seed=args.seed), cache_bytes=args.cache,
                     server_model=calibrated_server())
    drv = sized_driver(setup, rows)
    insert_rows(drv, drv.table(schema()), RowGenerator(args.seed), rows, LOAD_ROWS_PER_COMMIT)
    args.rows_loaded = rows
    return drv.engine, args.engine, drv.storage


def _report(engine, name: str, device, unit: str) -> dict:
    """Everything the command prints: the engine's stats, its files and IO, the LSM's compaction tables."""
    report = {"engine": name, "files": len(device.list()), "bytes": device.used, "stats": engine.stats()}
    io = device.stats.to_frame()
    report["io"] = io.groupby(["kind", "cause"], as_index=False).sum(numeric_only=True).to_dict("records")
    report.update(engines.get(name).report(engine, unit))
    return report


def _print_text(title: str, report: dict) -> None:
    """The report as a person reads it."""
    import pandas as pd

    print(f"** {title}: {report['files']} files, {format_size(report['bytes'])} **\n")
    stats = dict(report["stats"])
    trees = stats.pop("keyspaces", None)  # a B+tree's trees
    if trees:
        rows = {ks: {k: v for k, v in t.items() if k in ("height", "leaf_pages", "internal_pages", "records",
                                                           "leaf_fill_mean")} for ks, t in trees.items()}
        print("Trees")
        print(pd.DataFrame.from_dict(rows, orient="index").to_string(float_format="{:.3f}".format), "\n")
    stats.pop("io", None)  # the same IO is in the device table below
    print("Counters")
    flat = _flatten(stats)
    width = max(map(len, flat), default=0)
    for key, value in flat.items():
        print(f"  {key:<{width}}  {format_value(value)}")
    print("\nDevice IO by file kind and cause")
    print(pd.DataFrame(report["io"]).to_string(index=False))
    for text in report.get("compaction_stats_text", {}).values():
        print()
        print(text.rstrip())


def _flatten(stats: dict, prefix: str = "") -> dict:
    """Nested dicts as one level of dotted keys (``buffer_pool.hits``); lists are left out of the text."""
    out = {}
    for key, value in stats.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        elif not isinstance(value, (list, tuple)):
            out[f"{prefix}{key}"] = value
    return out
