"""Run the book's notebooks in parallel before Sphinx reads them, and print each one's time.

``make book`` runs this, then ``jupyter-book build``. Jupyter Book executes notebooks one after another; the
chapters are independent (each sweeps its own experiment, sharing finished points through the sweep cache), so
this runs them ``--jobs`` at a time, each in its own kernel, and stores every executed notebook in the
jupyter-cache that the build then reads (``execute_notebooks: cache`` in ``_config.yml``). The cache lives in a
folder named by ``offline_site.cache_folder``: the scale and a digest of the engines' sources and the published
data, so a change to any of them is a cold build and a stale result is never shown.

A chapter that reads another chapter's sweeps (chapter 2b validates the server model on chapters 3, 5 and 6's runs)
names them in its front matter, ``execute_after: [03_insert_benchmark, ...]`` (file stems in its folder): it starts
only when they are done, so their points are in the sweep cache instead of being computed twice at the same time.
The order is for sharing, not correctness: a notebook whose prerequisite failed still runs and computes what it
needs. Among the notebooks that may start, those that others wait for go first, then reading order.

For each notebook it prints the wall time and the CPU time of its kernel and of the processes the kernel started
(sweep workers), or that it was already cached. CPU time is what the notebook costs; wall time also depends on
what else the machine runs. With ``--record FOLDER`` (``make book`` gives ``benchmarks/results``) the times of the
notebooks it ran go into the benchmark history (``benchmarks.history``) as the ``book`` entry: per chapter and in
all, with the scale and the jobs, so that a chapter that became slower shows in review beside the engines' ratios.

    python book/_ext/execute_parallel.py book --jobs 2 --record benchmarks/results
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution
from myst_nb.core.read import is_myst_markdown_notebook, myst_nb_reader_plugin

sys.path.insert(0, str(Path(__file__).resolve().parent))
import offline_site  # noqa: E402  (the extension beside this file: the cache folder and the kernels' settings)

sys.path.insert(1, str(Path(__file__).resolve().parents[2]))  # the repository, whose benchmarks keep the history
from benchmarks import history  # noqa: E402


def notebooks(book: Path) -> list[Path]:
    """The pages of ``book``'s table of contents that are notebooks (they have code cells), in reading order."""
    toc = yaml.safe_load((book / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))

    for part in [toc] + toc.get("parts", []):
        walk(part.get("chapters"))
    pages = [book / f"{f}.md" for f in files]
    return [p for p in pages if p.is_file() and is_myst_markdown_notebook(p.read_text(encoding="utf-8"))]


def prerequisites(pages: list[Path]) -> dict[Path, set[Path]]:
    """For each of ``pages``, the pages among them its front matter's ``execute_after`` names; a name that is not
    one of ``pages``, or a cycle, is an error that names the notebook."""
    after = {}
    for path in pages:
        names = myst_nb_reader_plugin(str(path)).metadata.get("execute_after", [])
        if isinstance(names, str) or not isinstance(names, list):
            raise ValueError(f"{path.name}: execute_after must be a list of notebook names, got {names!r}")
        after[path] = set()
        for name in names:
            other = path.parent / f"{name}.md"
            if other not in pages or other == path:
                raise ValueError(f"{path.name}: execute_after names {name!r}, which is not another notebook of the "
                                 f"book")
            after[path].add(other)
    done: set[Path] = set()
    while len(done) < len(after):  # peel off notebooks whose prerequisites are all placed; what is left is a cycle
        free = {p for p, before in after.items() if p not in done and before <= done}
        if not free:
            raise ValueError("execute_after forms a cycle among " + ", ".join(sorted(p.name for p in after
                                                                                    if p not in done)))
        done |= free
    return after


def run_order(pages: list[Path], after: dict[Path, set[Path]]) -> list[Path]:
    """``pages`` by priority: those another page waits for first, then the others, each group in reading order."""
    awaited = set().union(*after.values()) if after else set()
    return [p for p in pages if p in awaited] + [p for p in pages if p not in awaited]


def _cpu_seconds() -> float:
    """CPU seconds of this process and of every child it has waited for (kernels, and their sweep workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def execute(path: Path, timeout: int):
    """Execute the notebook at ``path`` in its folder; (notebook, error text or None, wall s, CPU s)."""
    nb = myst_nb_reader_plugin(str(path))
    wall, cpu = time.perf_counter(), _cpu_seconds()
    result = single_nb_execution(nb, cwd=str(path.parent), timeout=timeout, allow_errors=False, meta_override=True)
    return nb, result.exc_string if result.err else None, time.perf_counter() - wall, _cpu_seconds() - cpu


def book_times(chapters: dict[str, dict], wall: float, jobs: int, failed: list[str]) -> dict:
    """The ``book`` entry of the benchmark history: the scale, the jobs, the wall seconds of the whole run, the CPU
    seconds of its notebooks, and each notebook's wall and CPU seconds (``chapters``); notebooks that failed are
    named and not timed."""
    from minidb import scales

    return {"scale": scales.current(), "jobs": jobs, "wall_seconds": round(wall, 1),
            "cpu_seconds": round(sum(c["cpu_seconds"] for c in chapters.values()), 1), "chapters": chapters,
            "failed": failed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", type=Path, help="the book's folder (with _config.yml and _toc.yml)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="notebooks run at once (default: "
                        "one per core)")
    parser.add_argument("--record", type=Path, metavar="FOLDER", help="write the notebooks' times to the benchmark "
                        "history in FOLDER (make book: benchmarks/results)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    book = args.book.resolve()
    config = yaml.safe_load((book / "_config.yml").read_text(encoding="utf-8"))
    timeout = int(config.get("execute", {}).get("timeout", 1800))
    os.environ.update(offline_site.KERNEL_ENV)  # the kernels render charts as the build's kernels do
    after = prerequisites(notebooks(book))
    cache = get_cache(str(offline_site.cache_folder(book / "_build")))
    todo = []
    for path in notebooks(book):
        try:
            cache.match_cache_notebook(myst_nb_reader_plugin(str(path)))
            print(f"  {path.relative_to(book)}: cached", flush=True)
        except KeyError:
            todo.append(path)
    rev = history.commit()  # the code measured: read before a run that may outlast the next commit
    start, failed, times = time.perf_counter(), [], {}
    waiting = run_order(todo, after)
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(todo) or 1)) as pool:
        running = {}
        while waiting or running:
            pending = set(waiting) | set(running.values())
            for path in [p for p in waiting if not after[p] & pending]:
                if len(running) >= args.jobs:
                    break
                waiting.remove(path)
                running[pool.submit(execute, path, timeout)] = path
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                path = running.pop(future)
                nb, error, wall, cpu = future.result()
                name = path.relative_to(book)
                if error:
                    failed.append(name)
                    print(f"  {name}: FAILED after {wall:.0f} s\n{error}", flush=True)
                    continue
                cache.cache_notebook_bundle(CacheBundleIn(nb, str(path), data={"execution_seconds": wall}),
                                            check_validity=False, overwrite=True)
                times[str(name)] = {"wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1)}
                print(f"  {name}: {wall:6.1f} s wall, {cpu:6.1f} s CPU", flush=True)
    wall = time.perf_counter() - start
    print(f"executed {len(todo) - len(failed)} of {len(todo)} notebooks ({len(notebooks(book)) - len(todo)} "
          f"cached) in {wall:.0f} s with {args.jobs} at a time", flush=True)
    if args.record is not None and times:
        path = history.record({"book": book_times(times, wall, args.jobs, [str(f) for f in failed])},
                              ["--jobs", str(args.jobs)], folder=args.record, rev=rev)
        print(f"times recorded in {path}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
