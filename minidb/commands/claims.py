"""``minidb claims``: run the findings' experiments and print each one's verdict table.

    minidb claims --scale small          # every finding, as the book shows them
    minidb claims f1 f3 --scale tiny --check
    minidb claims --magnitudes           # every published figure beside ours: the ratio, within 2x, within 1.25x

The run of each finding is the one its chapter shows (the module's ``book_run`` where it has one, else ``run``),
through the sweep cache, so after a book build at the same scale and cache this costs seconds. ``--check`` exits 1
when a claim that must hold at the scale does not (the test suite's assertion, for any scale). ``--magnitudes``
prints, after the verdicts, the table of the book's introduction (``minidb.experiments.magnitudes``): each published
figure a claim tests, ours, their ratio, and whether it is within 2x and within 1.25x.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import experiments, scales
from .experiment import available, resolve

WIDTH = 200  # characters of a printed table line: claims are sentences


def register(subparsers) -> None:
    """Add the ``claims`` subcommand."""
    p = subparsers.add_parser(
        "claims", help="print the findings' verdict tables",
        description="Run the experiment of each finding (all of them, or those named) at the given scale and print "
        "its verdict: each claim, the published figure, ours, the band and whether ours is in it.",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="findings (e.g. f1 f3); default: all")
    p.add_argument("--scale", choices=scales.SCALES,
                   help=f"experiment size (default: ${scales.ENV} or {scales.DEFAULT})")
    p.add_argument("--check", action="store_true", help="exit 1 if a claim that must hold at the scale does not")
    p.add_argument("--magnitudes", action="store_true", help="also print every published figure beside ours: the "
                   "ratio, within 2x and within 1.25x")
    p.add_argument("--save", metavar="FILE.json", help="print the magnitudes and keep them as a record (JSON) that a "
                   "later book shows beside its own figures")
    p.add_argument("--commit", default="", help="with --save: the commit whose runs the record holds")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print every verdict; exit 2 for an unknown finding, 1 with ``--check`` when a required claim fails."""
    from ..experiments import claims as claims_mod  # pandas: imported by this command only, not by `minidb --help`
    from ..experiments import magnitudes

    try:
        names = [resolve(n) for n in args.names] or list(available().values())
    except ValueError as e:
        print(f"minidb claims: error: {e}", file=sys.stderr)
        return 2
    scale = scales.current(args.scale)
    failed = []
    by_finding = {}
    for name in names:
        module = importlib.import_module(f"{experiments.__name__}.{name}")
        if not hasattr(module, "claims"):
            print(f"{name}: no claims() yet\n")
            continue
        finding = name.split("_")[0]
        found = magnitudes.book_claims(scale, [finding])[finding]
        by_finding[finding] = found
        table = claims_mod.verdict(found)
        print(f"{name} at scale {scale}: {int(table.holds.sum())} of {len(table)} claims hold")
        print(table.to_string(index=False, line_width=WIDTH, max_colwidth=90), end="\n\n")
        failed += [f"{name}: {c.claim}" for c in claims_mod.failing(found, scale)]
    if args.magnitudes or args.save:
        print_magnitudes(by_finding, scale)
        if args.save:
            magnitudes.save(magnitudes.table(by_finding), args.save, scale=scale, commit=args.commit)
            print(f"record written to {args.save}")
    if failed:
        print(f"{len(failed)} claim(s) that must hold at {scale} do not:", *failed, sep="\n  ")
    return 1 if (failed and args.check) else 0


def print_magnitudes(by_finding: dict, scale: str) -> None:
    """The magnitude table of ``by_finding``'s claims, and its summary."""
    from ..experiments import claims as claims_mod
    from ..experiments import magnitudes

    table = magnitudes.table(by_finding)
    shown = table.drop(columns=["chapter", "reason"]).assign(
        published=table.published.map(claims_mod.figure), ours=table.ours.map(claims_mod.figure),
        ratio=table.ratio.map(lambda r: "" if r != r else f"{r:.2f}"))
    print(f"Published figures beside ours at scale {scale}: {magnitudes.summary(table)}")
    print(shown.to_string(index=False, line_width=WIDTH, max_colwidth=90), end="\n\n")
