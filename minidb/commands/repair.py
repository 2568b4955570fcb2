"""``minidb repair DIR --out NEWDIR``: salvage what is readable from the database in DIR into a new database.

    minidb repair /path/to/damaged --out /path/to/salvaged

DIR is only read (its files are copied into memory first). NEWDIR must not exist yet; it receives a new database
of the same engine holding every committed key that could be read, and the report lists per keyspace the keys
saved, then everything that could not be read or was left out (files, blocks, pages, log records, changes of a
batch that may not have committed) so that the loss is known, not silent. Exit code 0 if nothing was lost, 1 if
something was, or if nothing could be salvaged (one line saying why; NEWDIR is then not created), 2 on a bad
argument.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import CorruptionError

BATCH_KEYS = 1000  # keys per write batch into the new database


def register(subparsers) -> None:
    """Add the ``repair`` subcommand."""
    p = subparsers.add_parser(
        "repair", help="salvage a damaged database into a new one",
        description="Read everything readable from the database in DIR (which is not modified) and write it to a "
        "new database in NEWDIR, reporting what was saved and what was lost.",
    )
    p.add_argument("dir", type=Path, metavar="DIR", help="the damaged database directory (only read)")
    p.add_argument("--out", type=Path, required=True, metavar="NEWDIR", help="where to create the new database "
                   "(must not exist)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Salvage and report; see the module docstring for the exit codes."""
    from ..kv import WriteBatch  # the engines: loaded by this command only, not by `minidb --help`
    from ..storage import DirDevice
    from ..verify import engine_of, load
    from ..verify.salvage import open_like, salvage

    try:
        if args.out.exists():
            raise ValueError(f"--out {args.out} already exists: give a new directory")
        dev = load(args.dir)
        engine = engine_of(dev)
        if engine is None:
            raise ValueError(f"{args.dir} holds no minidb database files")
    except ValueError as e:
        print(f"minidb repair: error: {e}", file=sys.stderr)
        return 2
    try:
        saved = salvage(dev, engine)
    except (CorruptionError, OSError) as e:
        print(f"minidb repair: error: {args.dir}: nothing can be salvaged: {' '.join(str(e).split())}",
              file=sys.stderr)
        return 1
    out = DirDevice(args.out)
    db = open_like(engine, out, dev)
    try:
        for ks, rows in sorted(saved.data.items()):
            db.create_keyspace(ks, unique=saved.unique.get(ks, True))
            items = list(rows.items())
            for i in range(0, len(items), BATCH_KEYS):
                batch = WriteBatch()
                for key, value in items[i:i + BATCH_KEYS]:
                    batch.put(ks, key, value)
                db.write(batch)
    finally:
        db.close()
        out.close()
    print(f"{engine} database in {args.dir} -> {args.out}: "
          + ("opened and copied whole" if saved.complete else "salvaged file by file"))
    for ks, rows in sorted(saved.data.items()):
        print(f"  {ks}: {len(rows)} keys")
    for line in saved.lost:
        print(f"  lost: {line}")
    return 1 if saved.lost else 0
