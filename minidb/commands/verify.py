"""``minidb verify DIR``: check every checksum and structure of the database in DIR, one line per file.

    minidb verify /path/to/db        # exit 0: no damage; 1: damage found (the lines say where); 2: no database

Nothing in DIR is opened for writing: the files are read once into memory and checked there (minidb/verify/).
A torn tail (the unsynced end of the newest log, cut by a crash) is reported but is not damage: recovery handles it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers) -> None:
    """Add the ``verify`` subcommand."""
    p = subparsers.add_parser(
        "verify", help="check every file of a database for damage",
        description="Verify every checksum and every structure of the database in DIR (either engine), reporting "
        "one line per file; exit code 1 if any damage is found. DIR is only read.",
    )
    p.add_argument("dir", type=Path, metavar="DIR", help="the database directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the report; 0 if every file is intact, 1 if any is damaged, 2 if DIR holds no database."""
    from ..verify import verify  # the engines' file formats: loaded by this command only, not by `minidb --help`

    try:
        engine, reports = verify(args.dir)
    except ValueError as e:
        print(f"minidb verify: error: {e}", file=sys.stderr)
        return 2
    width = max(len(r.name) for r in reports)
    damaged = [r for r in reports if not r.ok]
    print(f"{engine} database in {args.dir}: {len(reports)} files, {len(damaged)} damaged")
    for r in reports:
        print(f"{'ok' if r.ok else 'DAMAGED':8} {r.name:{width}}  {r.detail}")
    return 1 if damaged else 0
