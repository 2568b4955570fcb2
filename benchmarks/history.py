"""The benchmark history: each ``make bench`` run leaves one JSON file in ``benchmarks/results/``.

The file is named ``<UTC date>-<commit>.json`` (``-dirty`` after the commit when the tree had uncommitted changes)
and holds, per benchmark, minidb's rate, the peer's rate measured in the same run, their ratio and the engine's own
figures (write-amp, tree height, ...). Committing it with a change puts the ratios in the review: a change that
slows an engine shows as a smaller ratio than the previous file's. Ratios, not rates, are what compare across
machines; the file records the machine (cores, Python, platform) beside them.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def commit() -> str:
    """The repository's short commit hash, ``-dirty`` if the tree has uncommitted changes; ``unknown`` outside git."""
    root = RESULTS.parent.parent

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()

    try:
        head = git("rev-parse", "--short=10", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def record(results: dict[str, dict], argv: list[str], folder: Path = RESULTS, now: dt.datetime | None = None,
           rev: str | None = None) -> Path:
    """Write ``results`` (benchmark name -> its figures) with the run's context to ``folder``; return the path.
    ``rev`` is the commit measured (default: the current one; pass the one read when the run started)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    rev = rev or commit()
    doc = {
        "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": rev,
        "args": argv,
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "benchmarks": results,
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{now:%Y-%m-%d}-{rev}.json"
    n = 1
    while path.exists():  # two runs of one commit on one day: keep both
        n += 1
        path = folder / f"{now:%Y-%m-%d}-{rev}-{n}.json"
    path.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return path


def load(folder: Path = RESULTS) -> list[dict]:
    """Every recorded run in ``folder``, oldest first (by the date inside the file)."""
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")]
    return sorted(docs, key=lambda d: d["date"])
