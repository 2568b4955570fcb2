"""The sweep runner: run a function at every point of a parameter grid and gather one tidy DataFrame.

::

    from minidb.experiments import sweep

    df = sweep(run_point, {"engine": ["btree", "lsm"], "cache_mb": [8, 64]}, name="memory-sweep")

``run_point(**params)`` returns a dict (one row) or a DataFrame (many rows, e.g. a per-interval series); the runner
prepends the point's parameters as columns and concatenates the points in grid order.

* **Cache**: each point's result is stored under ``cache_dir`` (default ``.minidb-cache`` in the working
  directory, or ``$MINIDB_CACHE``), keyed by the sweep name, the function, its parameters and the minidb version, so
  re-running a chapter redoes only the points that changed. The version includes a fingerprint of minidb's own
  source files, so a change to an engine invalidates the cache without a version bump. ``cache_dir=False`` turns
  caching off.
* **Parallelism**: points not in the cache run through a ``concurrent.futures`` executor. By default
  (``executor=None``) the one ``$MINIDB_EXECUTOR`` names (see ``executors``): a process pool with one worker per
  core unless it names ``serial`` or a Dask scheduler address. Pass any executor to run elsewhere, e.g.
  ``executor=client.get_executor()``; pass ``executor=False`` to run in this process (for debugging).
  Results are the same either way: every point is seeded and deterministic.
* **Progress**: a tqdm bar over the points (``progress=False`` hides it).
* **Loads**: points that measure one loaded database at different cache sizes, devices or clients name it with
  ``load=`` (a function of a point's parameters giving an ``images.Load``). Each load the uncached points need is
  made once, in parallel, and kept as an image in the cache (``images``); each point then runs on its own copy,
  and a later sweep needing the same load, in this chapter or another, reads the image instead of loading again.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import pandas as pd
from tqdm import tqdm  # the plain bar: tqdm.auto warns in notebooks without ipywidgets

from .. import __version__
from . import executors, images
from .fingerprint import source_fingerprint


def grid_points(grid: dict[str, list] | list[dict]) -> list[dict[str, Any]]:
    """The points of ``grid``: the cartesian product of a dict of value lists, or a list of dicts as given."""
    if isinstance(grid, dict):
        for key, values in grid.items():
            if not isinstance(values, (list, tuple)) or not values:
                raise ValueError(f"sweep parameter {key!r} needs a non-empty list of values, got {values!r}")
        keys = list(grid)
        return [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]
    if isinstance(grid, list) and all(isinstance(p, dict) for p in grid):
        return [dict(p) for p in grid]
    raise ValueError(f"a sweep grid is a dict of value lists or a list of dicts, got {type(grid).__name__}")


def point_key(name: str, func: Callable, params: dict[str, Any]) -> str:
    """The cache key of one point: a hash of the sweep name, the function, its parameters and minidb's version
    and source fingerprint."""
    ident = {
        "name": name,
        "func": f"{func.__module__}.{func.__qualname__}",
        "params": params,
        "version": __version__,
        "source": source_fingerprint(),
    }
    text = json.dumps(ident, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _as_frame(result: dict | pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    frame = pd.DataFrame([result]) if isinstance(result, dict) else result.copy()
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"a sweep point must return a dict or a DataFrame, got {type(result).__name__}")
    for i, (key, value) in enumerate(params.items()):
        if key in frame.columns:
            raise ValueError(f"sweep point result already has a column named like parameter {key!r}")
        frame.insert(i, key, [value] * len(frame))
    return frame


def _cache_root(cache_dir: str | os.PathLike | bool | None) -> Path | None:
    if cache_dir is False:
        return None
    if cache_dir is None or cache_dir is True:
        cache_dir = os.environ.get("MINIDB_CACHE", ".minidb-cache")
    return Path(cache_dir)


def sweep(
    func: Callable[..., dict | pd.DataFrame],
    grid: dict[str, list] | list[dict],
    *,
    name: str | None = None,
    cache_dir: str | os.PathLike | bool | None = None,
    executor: Executor | bool | None = None,
    progress: bool = True,
    load: Callable[..., images.Load] | None = None,
) -> pd.DataFrame:
    """Run ``func(**point)`` at every point of ``grid``; return the results as one DataFrame, in grid order.

    With ``load``, the points measure loaded databases: ``load(**point)`` names the load a point measures
    (``images.Load``), each load the points not yet cached need is made once (in parallel, stored as an image in the
    cache) and the point runs as ``func(**point, loaded=...)`` on its own copy.
    """
    points = grid_points(grid)
    name = name or func.__name__
    root = _cache_root(cache_dir)
    results: list[pd.DataFrame | None] = [None] * len(points)
    todo = []
    for i, params in enumerate(points):
        path = root / name / f"{point_key(name, func, params)}.pkl" if root else None
        if path is not None and path.is_file():
            results[i] = pd.read_pickle(path)
        else:
            todo.append((i, params, path))

    def store(i: int, params: dict, path: Path | None, result) -> None:
        frame = _as_frame(result, params)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A temporary name of this process's own: two kernels of a parallel book build may store one point at
            # once, and a crash mid-write never leaves a half cache entry.
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            frame.to_pickle(tmp)
            tmp.replace(path)
        results[i] = frame

    bar = tqdm(total=len(points), initial=len(points) - len(todo), desc=name, disable=not progress, leave=False)
    if executor is None and len(todo) > 1:
        executor = executors.from_env()
    serial = executor is False or len(todo) <= 1
    own = not serial and (executor is None or executor is True)
    pool = ProcessPoolExecutor(max_workers=min(len(todo), os.cpu_count() or 1)) if own else executor
    try:
        calls = _calls(func, [params for _, params, _ in todo], load, root, None if serial else pool)
        if serial:
            for (i, params, path), call in zip(todo, calls):
                store(i, params, path, call())
                bar.update()
        else:
            futures = {pool.submit(call): job for job, call in zip(todo, calls)}
            for future in _as_completed(futures):
                store(*futures[future], future.result())
                bar.update()
    finally:
        if own:
            pool.shutdown()
    bar.close()
    return pd.concat(results, ignore_index=True)


def _calls(func: Callable, todo: list[dict], load: Callable | None, root: Path | None,
           pool: Executor | None) -> list[Callable]:
    """One call per point of ``todo``: ``func(**point)``, or, with ``load``, ``func(**point, loaded=...)`` once the
    loads the points need are made (on ``pool``, or here if None; see ``sweep``)."""
    if load is None:
        return [functools.partial(func, **params) for params in todo]
    loads = [load(**params) for params in todo]
    needed = {ld.key: ld for ld in loads}
    if root is None:  # no cache to keep images in: load here, once, and hand the points the database itself
        made = {key: ld.make() for key, ld in needed.items()}
        return [functools.partial(func, **params, loaded=made[ld.key]) for params, ld in zip(todo, loads)]
    missing = [ld for key, ld in needed.items() if not images.usable(images.path(root, key), key)]
    # Images are made where the cache is: by this machine's workers, or here when the points run elsewhere (Dask).
    if not isinstance(pool, (ProcessPoolExecutor, ThreadPoolExecutor)) or len(missing) <= 1:
        for ld in missing:
            images.make(ld, root)
    else:
        for future in _as_completed([pool.submit(images.make, ld, root) for ld in missing]):
            future.result()
    return [functools.partial(_on_image, func, params, ld, root) for params, ld in zip(todo, loads)]


def _on_image(func: Callable, params: dict, load: images.Load, root: Path):
    """``func(**params, loaded=...)`` on ``load``'s image at ``root`` (loaded again if it is missing or unusable
    there, e.g. on a worker that does not share this machine's disk)."""
    return func(**params, loaded=images.get(load, root))


def _as_completed(futures):
    # Imported here so that an executor from another library (Dask's) is accepted: both speak concurrent.futures.
    from concurrent.futures import as_completed

    return as_completed(futures)
