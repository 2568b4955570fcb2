"""The ``minidb`` command: a thin dispatcher over the subcommand modules in ``minidb/commands/``.

Bad arguments print one line (``minidb: error: ...``) and exit with code 2, as the Unix convention and argparse do.
The environment is an argument too: a bad ``$MINIDB_SCALE`` is reported the same way, before any work, by the
commands that would use it (those with ``--scale``, when it is not given).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import __version__, commands
from . import scales


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, with a pointer to --help."""

    def error(self, message: str) -> None:  # argparse's contract: print and exit 2
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand module registered."""
    parser = _Parser(prog="minidb", description="Run the minidb workbench engines, experiments and grading.")
    parser.add_argument("--version", action="version", version=f"minidb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: the process arguments), run the subcommand, return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "scale") and args.scale is None:
        try:
            scales.current()
        except ValueError as e:
            parser.error(str(e))
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
