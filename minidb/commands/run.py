"""``minidb run``: run one workload on one engine and print its summary.

    minidb run insert-benchmark --engine lsm --rows 1e6 --cache 64MiB
    minidb run sysbench --engine btree --mode update-index --rows 1e5 --transactions 2e4 --json
    minidb run tpcc --warehouses 2 --device gp2 --warmup 1000
    minidb run linkbench --nodes 1e4 --requests 5e3 --seed 7

Every workload takes the engine options (``--engine``, ``--cache``, ``--seed``, ``--device``, ``--scale``) and
``--json``; each adds its own size options (rows, transactions, ...), which default to the scale's sizes
(``minidb.scales``). The server is the book's calibrated one (``minidb.experiments.calibration``). The summary's
fields are explained in ``minidb.workloads.driver``.

Every size and count has an upper bound, checked with the arguments before any work (``--help`` shows them): the
simulated device keeps every byte in memory, so ``--rows 1e12`` would run until memory runs out. The bounds are
well above the ``large`` scale: rows and nodes 5x its largest (20 million iibench rows), transactions and requests
50x (200,000), warehouses 10x (10).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass

from .. import engines, scales
from ..units import TIB, count_in, int_in, size_in

DEVICE_CHOICES = ("nvme", "slow-ssd", "sm863", "gp2", "io1")  # minidb.storage.models.PRESETS
# Upper bounds of the command line's sizes (see the module docstring for why these values).
MAX_ROWS = 100_000_000  # rows, nodes
MAX_OPS = 10_000_000  # transactions, requests
MAX_WAREHOUSES = 100
MAX_TABLES = 64  # sysbench tables
MAX_QUERY_THREADS = 64  # the insert benchmark's query threads (seed 000 ran up to 16 clients)
MAX_CACHE_BYTES = TIB  # buffer pool or block cache; the seeds' largest is 100 GB
MAX_SEED = 2**32 - 1  # numpy's generators take any int; 32 bits keep seeds printable and portable
ROWS = count_in(1, MAX_ROWS)
OPS = count_in(1, MAX_OPS)


@dataclass(frozen=True)
class Option:
    """One workload-specific command-line option and the keyword argument of the workload function it sets."""

    flag: str  # e.g. "--rows"
    keyword: str  # the workload function's parameter, e.g. "table_size"
    type: object  # argparse type: a bounded count or int (minidb.units), or str
    help: str  # shown by --help
    choices: tuple | None = None  # allowed values, if a closed set


@dataclass(frozen=True)
class Workload:
    """A workload the command can run: the function in ``minidb.workloads`` and its own options."""

    function: str  # name in minidb.workloads
    help: str  # one line for the listing in ``minidb run --help``
    options: tuple[Option, ...]  # its size and mode options


WORKLOADS = {
    "insert-benchmark": Workload("insert_benchmark", "iibench: PK-order inserts with 3 secondary indexes (seed 000)", (
        Option("--rows", "rows", ROWS, f"rows inserted, e.g. 1e6, at most {MAX_ROWS:,} (default: the scale's)"),
        Option("--secondary-indexes", "secondary_indexes", int_in(0, 3), "secondary indexes, 0 to 3 (default 3)"),
        Option("--query-threads", "query_threads", int_in(0, MAX_QUERY_THREADS),
               f"query threads doing PK lookups and range scans, 0 to {MAX_QUERY_THREADS} (default 0)"),
    )),
    "sysbench": Workload("sysbench", "sysbench OLTP: point-select, read-write, update-index, insert", (
        Option("--rows", "table_size", ROWS, f"rows per table, at most {MAX_ROWS:,} (default: the scale's)"),
        Option("--transactions", "transactions", OPS,
               f"events in the measured phase, at most {MAX_OPS:,} (default: the scale's)"),
        Option("--mode", "mode", str, "the OLTP test (default read-write)",
               ("point-select", "read-write", "update-index", "insert")),
        Option("--tables", "tables", int_in(1, MAX_TABLES), f"tables, 1 to {MAX_TABLES} (default 1)"),
    )),
    "tpcc": Workload("tpcc", "TPC-C as sysbench-tpcc runs it: its five transactions (seeds 001, 003)", (
        Option("--warehouses", "warehouses", count_in(1, MAX_WAREHOUSES),
               f"warehouses loaded, 1 to {MAX_WAREHOUSES} (default: the scale's)"),
        Option("--transactions", "transactions", OPS,
               f"transactions measured, at most {MAX_OPS:,} (default: the scale's)"),
        Option("--warmup", "warmup", count_in(0, MAX_OPS),
               f"transactions run before the measured ones, to fill the cache, at most {MAX_OPS:,} (default 0)"),
    )),
    "linkbench": Workload("linkbench", "Linkbench-lite: nodes and links of a social graph (seed 002)", (
        Option("--nodes", "nodes", ROWS, f"nodes loaded, at most {MAX_ROWS:,} (default: the scale's)"),
        Option("--requests", "requests", OPS, f"requests measured, at most {MAX_OPS:,} (default: the scale's)"),
    )),
}


def add_engine_options(p: argparse.ArgumentParser) -> None:
    """The options that choose and size an engine, shared by ``run`` and ``stats``."""
    p.add_argument("--engine", choices=engines.NAMES, default=engines.DEFAULT,
                   help=f"the engine (default {engines.DEFAULT})")
    p.add_argument("--cache", type=size_in(1, MAX_CACHE_BYTES), metavar="SIZE",
                   help="buffer pool or block cache, e.g. 64MiB or 1GB, at most 1 TiB (default: the scale's IO-bound "
                   "cache)")
    p.add_argument("--seed", type=int_in(0, MAX_SEED), default=0,
                   help=f"random seed, 0 to {MAX_SEED}; the same seed gives the same result (default 0)")
    p.add_argument("--scale", choices=scales.SCALES,
                   help=f"sizes used for options not given (default: ${scales.ENV} or {scales.DEFAULT})")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def register(subparsers) -> None:
    """Add the ``run`` subcommand, with one sub-subcommand per workload."""
    p = subparsers.add_parser(
        "run", help="run a workload and print its summary",
        description="Run one workload on one engine under simulated time and print the summary of its measured "
        "phase: ops/s, IO per operation, write amplification, database size, cache hit rate.",
    )
    workloads = p.add_subparsers(dest="workload", metavar="WORKLOAD", parser_class=type(p))
    workloads.required = True
    for name, w in WORKLOADS.items():
        wp = workloads.add_parser(name, help=w.help, description=w.help)
        add_engine_options(wp)
        wp.add_argument("--device", choices=DEVICE_CHOICES, default="nvme",
                        help="device model that turns counted IO into time (default nvme)")
        for o in w.options:
            metavar = None if o.choices else o.flag.lstrip("-").upper().replace("-", "_")
            wp.add_argument(o.flag, dest=o.keyword, type=o.type, choices=o.choices, metavar=metavar, help=o.help)
        wp.set_defaults(func=run, run_workload=w)


def run(args: argparse.Namespace) -> int:
    """Run the workload and print its summary; exit code 2 if the workload rejects a value."""
    from .. import workloads  # imported here so that ``minidb --help`` does not load the engines
    from ..experiments.calibration import calibrated_server

    w: Workload = args.run_workload
    sizes = {o.keyword: getattr(args, o.keyword) for o in w.options if getattr(args, o.keyword) is not None}
    try:
        setup = workloads.RunSetup(workloads.DataSetup(args.engine, scale=args.scale, seed=args.seed),
                                   cache_bytes=args.cache, device=args.device, server_model=calibrated_server())
        result = getattr(workloads, w.function)(setup, **sizes)
    except ValueError as e:
        print(f"minidb run {args.workload}: error: {e}", file=sys.stderr)
        return 2
    print_record(result.summary, as_json=args.json)
    return 0


def print_record(record: dict, *, as_json: bool, title: str | None = None) -> None:
    """Print ``record`` as JSON (NaN and infinity become null, as JSON has neither) or as aligned lines."""
    if as_json:
        print(json.dumps(json_safe(record), indent=2, default=str))
        return
    if title:
        print(title)
    width = max(map(len, record), default=0)
    for key, value in record.items():
        print(f"{key:<{width}}  {format_value(value)}")


def json_safe(value):
    """``value`` with every non-finite float replaced by None, recursively (strict JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def format_value(value) -> str:
    """A number with four significant digits (thousands separated when large), anything else as ``str``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if not math.isfinite(value) or value == 0:
        return str(value)
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"
