"""``minidb lsm-shape``: watch an LSM's levels change, flush by flush and compaction by compaction.

    minidb lsm-shape --rows 2e4                       # every job of a 20,000-row insert benchmark load
    minidb lsm-shape --rows 1e5 --compaction universal --every 10 --limit 20
    minidb lsm-shape --rows 5e4 --slowdown-trigger 10 --csv shape.csv

For each flush or compaction: what it read and wrote, why the picker chose it, the files and bytes of every level
just after it, and the write amplification so far (the compaction viewer, ``viewer.py`` beside this file).
"""

from __future__ import annotations

import argparse
import sys

from ...units import count_in, int_in
from ..run import DEVICE_CHOICES, MAX_ROWS, MAX_SEED

MAX_L0_TRIGGER = 1000  # L0 files: far above RocksDB's defaults (20 and 36) and any stall study's


def register(subparsers) -> None:
    """Add the ``lsm-shape`` subcommand."""
    p = subparsers.add_parser(
        "lsm-shape", help="print an LSM's shape after each flush and compaction of a load",
        description="Insert insert-benchmark rows into a fresh LSM on a simulated device and print, after every "
        "flush and compaction, what it did, why it was picked, the files and bytes per level and the running "
        "write amplification.",
    )
    p.add_argument("--rows", type=count_in(1, MAX_ROWS), default=20_000,
                   help=f"rows inserted, e.g. 1e5, at most {MAX_ROWS:,} (default 20000)")
    p.add_argument("--compaction", choices=("leveled", "universal"), default="leveled",
                   help="compaction style (default leveled)")
    p.add_argument("--slowdown-trigger", type=count_in(1, MAX_L0_TRIGGER), metavar="FILES",
                   help=f"level0_slowdown_writes_trigger, 1 to {MAX_L0_TRIGGER} (default the engine's, 20)")
    p.add_argument("--stop-trigger", type=count_in(1, MAX_L0_TRIGGER), metavar="FILES",
                   help=f"level0_stop_writes_trigger, 1 to {MAX_L0_TRIGGER} (default the engine's, 36)")
    p.add_argument("--device", choices=DEVICE_CHOICES, default="nvme",
                   help="device model timing the background jobs (default nvme)")
    p.add_argument("--seed", type=int_in(0, MAX_SEED), default=0,
                   help=f"random seed of the rows, 0 to {MAX_SEED} (default 0)")
    p.add_argument("--every", type=count_in(1, MAX_ROWS), default=1, metavar="N",
                   help="print every N-th job (default 1)")
    p.add_argument("--limit", type=count_in(1, MAX_ROWS), metavar="N", help="print at most N jobs")
    p.add_argument("--csv", metavar="FILE", help="also write the shape after each job to FILE (one row per level)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load, print the log; exit code 2 on a bad value."""
    from .viewer import render, watch  # imported here so that ``minidb --help`` does not load the engines

    options = {}
    if args.slowdown_trigger is not None:
        options["level0_slowdown_writes_trigger"] = args.slowdown_trigger
    if args.stop_trigger is not None:
        options["level0_stop_writes_trigger"] = args.stop_trigger
    try:
        log = watch(args.rows, compaction=args.compaction, seed=args.seed, device=args.device, **options)
    except ValueError as e:
        print(f"minidb lsm-shape: error: {e}", file=sys.stderr)
        return 2
    print(render(log, every=args.every, limit=args.limit))
    events = log.events()
    print(f"{len(events)} jobs: {(events.kind == 'flush').sum()} flushes, {(events.kind == 'compaction').sum()} "
          f"compactions, {(events.kind == 'trivial-move').sum()} trivial moves; write-amp "
          f"{events.write_amp.iloc[-1]:.2f}")
    if args.csv:
        log.levels().merge(events, on="event").to_csv(args.csv, index=False)
    return 0
