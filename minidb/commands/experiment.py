"""``minidb experiment``: run one finding's experiment and write its results to CSV.

    minidb experiment f1 --scale small --out f1.csv
    minidb experiment f1_insert_benchmark --scale tiny
    minidb experiment f3 --scale large --executor tcp://scheduler-host:8786

An experiment is a module of ``minidb.experiments`` named for its finding, ``f<N>_<topic>`` (e.g.
``f1_insert_benchmark``), with ``run(scale=None)`` returning its results: a pandas DataFrame, or, for a finding
made of several parts (F5's sizes, fills and column families), a dict of them by part. It can be named in full or
by its finding alone (``f1``). The CSV holds one table: a dict's parts are stacked, each row with its part's name in
a first column ``part`` (``results_table``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from .. import experiments, scales
from ..experiments import executors
from . import output_file


def available() -> dict[str, str]:
    """Experiment modules found in ``minidb.experiments``: finding (``f1``) -> module name, in finding order."""
    return experiments.findings()


def resolve(name: str) -> str:
    """The module name of experiment ``name`` (a finding such as ``f1``, or a full module name); ValueError naming
    the known experiments if there is none."""
    known = available()
    key = name.lower()
    if key in known:
        return known[key]
    if key in known.values():
        return key
    listing = ", ".join(f"{f} ({m})" for f, m in known.items()) or "none installed"
    raise ValueError(f"unknown experiment {name!r}; known experiments: {listing}")


def register(subparsers) -> None:
    """Add the ``experiment`` subcommand."""
    p = subparsers.add_parser(
        "experiment", help="run one finding's experiment to CSV",
        description="Run the experiment of one finding of the book (a module minidb/experiments/f<N>_<topic>.py) "
        "at the given scale and write its tidy results table to a CSV file.",
    )
    p.add_argument("name", metavar="NAME", help="the finding (e.g. f1) or the module's full name")
    p.add_argument("--scale", choices=scales.SCALES,
                   help=f"experiment size (default: ${scales.ENV} or {scales.DEFAULT})")
    p.add_argument("--out", type=output_file, metavar="FILE.csv", help="where to write the results (default: NAME.csv, "
                   "with the module's full name)")
    p.add_argument("--executor", metavar="WHERE",
                   help=f"where the sweep's points run: 'processes' (this machine's cores), 'serial', or a Dask "
                   f"scheduler address such as tcp://host:8786 (default: ${executors.ENV} or processes)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the experiment, write the CSV, print where; exit code 2 for an unknown experiment or executor."""
    try:
        module_name = resolve(args.name)
        if args.executor is not None:
            executors.spec(args.executor, option="--executor")  # a bad value is refused before any work starts
    except ValueError as e:
        print(f"minidb experiment: error: {e}", file=sys.stderr)
        return 2
    out = args.out if args.out is not None else Path(f"{module_name}.csv")
    try:
        output_file(str(out))  # the default too, before the experiment runs
    except argparse.ArgumentTypeError as e:
        print(f"minidb experiment: error: {e}", file=sys.stderr)
        return 2
    if args.executor is not None:
        os.environ[executors.ENV] = args.executor  # every sweep of the experiment reads it (see executors.from_env)
    module = importlib.import_module(f"{experiments.__name__}.{module_name}")
    frame = results_table(module.run(scale=args.scale))
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False)
    print(f"{module_name} at scale {scales.current(args.scale)}: {len(frame)} rows, "
          f"{len(frame.columns)} columns written to {out}")
    return 0


def results_table(results):
    """An experiment's results as one DataFrame: a DataFrame as it is, a dict of them (part name -> DataFrame)
    stacked with the part's name in a first column ``part`` (columns a part lacks are left empty)."""
    import pandas as pd

    if isinstance(results, pd.DataFrame):
        return results
    if isinstance(results, dict) and results and all(isinstance(f, pd.DataFrame) for f in results.values()):
        return pd.concat([f.assign(part=name)[["part", *f.columns]] for name, f in results.items()],
                         ignore_index=True)
    raise TypeError(f"an experiment's run() returns a DataFrame or a dict of them, not {type(results).__name__}")
