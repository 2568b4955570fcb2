"""Subcommands of the ``minidb`` command: one module each, exposing ``register(subparsers)``.

``register`` adds the subcommand's parser and sets ``func`` (called with the parsed arguments, returning the exit
code) with ``parser.set_defaults(func=...)``. ``minidb.cli`` finds the modules here by itself.

``output_file`` is an argparse ``type=`` the subcommands share, so that an output that cannot be written is
reported with the arguments, before any work, not after an hour of experiment.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def output_file(text: str) -> Path:
    """``text`` as the path of a file to write: not a directory, in a directory that exists (made here if missing,
    as the command would) and that really takes a new file; ArgumentTypeError saying what is wrong.

    Writability is tried, not predicted from permission bits (which say yes to root everywhere, even in /proc): a
    temporary file is created next to the output and removed; an existing output is opened for appending, which
    does not change it.
    """
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {ancestor} is a file, not a directory")
    try:
        path.absolute().parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with open(path, "ab"):
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=path.absolute().parent, prefix=".minidb-write-test-"):
                pass
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {e.strerror or e}") from None
    return path
