"""``python -m benchmarks [NAME ...] [-- ARGS]``: run the benchmarks named (default: all), passing ARGS to each, and
record their ratios in ``benchmarks/results/<date>-<commit>.json`` (see ``benchmarks.history``)."""

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

from benchmarks import history


def available() -> list[str]:
    """Names of the benchmark modules (``bench_NAME.py`` -> ``NAME``)."""
    here = Path(__file__).parent
    return sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    rest: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run (default: all): {', '.join(available())}")
    parser.add_argument("--no-record", action="store_true",
                        help="print only; do not write the run to benchmarks/results/")
    args = parser.parse_args(argv)
    chosen = []
    for name in args.names or available():
        # A name picks the benchmark of that name, or those whose name starts with it and '_' (btree -> btree_load).
        found = [b for b in available() if b == name or b.startswith(name + "_")]
        if not found:
            parser.error(f"unknown benchmark {name!r}; known: {', '.join(available())}")
        chosen += [b for b in found if b not in chosen]
    rev = history.commit()  # the code measured: read before a run that may outlast the next commit
    results = {}
    for name in chosen:
        print(f"== {name}")
        results[name] = importlib.import_module(f"benchmarks.bench_{name}").main(rest)
    if not args.no_record:
        print(f"recorded in {history.record(results, rest, rev=rev)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
