"""Opening an engine for a workload run: by name, or through any opener callable.

* ``"btree"``: ``minidb.btree.open_btree(device, buffer_pool_bytes=..., page_size=..., clock=..., **options)``
* ``"lsm"``: ``minidb.lsm.open_lsm(device, block_cache_bytes=..., memtable_bytes=..., max_bytes_for_level_base=...,
  target_file_size_base=..., block_size=..., clock=..., **options)``
* a callable ``opener(device, *, cache_bytes, clock, **options) -> Engine``: anything else that implements
  ``minidb.kv.Engine`` plus ``create_keyspace`` (a student's engine, or a test double).

The engines are imported only when asked for, so a runner works with whichever engines are installed. Options
given by the caller win over the sizes the scale computed.

``engine_counters`` reads the cumulative counters a run needs from any engine, cheaply enough to call once per step:
the CPU model's work units and the cache's hits and misses, under the cost model's names or under the name each
engine gives the same count (``COUNTER_PATHS``).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable

from ..kv import Engine
from ..scale import EngineSizes
from ..sim.clock import Clock

# name -> (module, opener function, how the scale's sizes become the opener's keyword arguments)
ENGINES: dict[str, tuple[str, str, Callable[[EngineSizes], dict]]] = {
    "btree": ("minidb.btree", "open_btree",
              lambda s: {"buffer_pool_bytes": s.cache_bytes, "page_size": s.page_size}),
    "lsm": ("minidb.lsm", "open_lsm",
            lambda s: {"block_cache_bytes": s.cache_bytes, "memtable_bytes": s.memtable_bytes,
                       "max_bytes_for_level_base": s.level_base_bytes, "target_file_size_base": s.target_file_bytes,
                       "block_size": s.page_size}),
}

# counter -> where engines report it in stats(), first match wins: the generic name, the LSM's, the B+tree's.
COUNTER_PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    "page_visits": (("page_visits",), ("blocks_accessed",), ("buffer_pool", "read_requests")),
    "cache_hits": (("cache_hits",), ("block_cache_hits",), ("buffer_pool", "hits")),
    "cache_misses": (("cache_misses",), ("block_cache_misses",), ("buffer_pool", "reads")),
}


def engine_name(engine) -> str:
    """A short name for ``engine`` (a name or an opener) in results."""
    if isinstance(engine, str):
        return engine
    return getattr(engine, "__name__", type(engine).__name__)


def open_engine(engine, device, sizes: EngineSizes, *, clock: Clock, **options) -> Engine:
    """Open ``engine`` (``"btree"``, ``"lsm"`` or an opener callable) on ``device`` with ``sizes`` and ``clock``."""
    if callable(engine):
        return engine(device, cache_bytes=sizes.cache_bytes, clock=clock, **options)
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)} or an opener callable")
    module_name, function, size_options = ENGINES[engine]
    try:
        opener = getattr(importlib.import_module(module_name), function)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"engine {engine!r} is not available: {module_name}.{function} cannot be loaded ({exc})") \
            from exc
    return opener(device, **{**size_options(sizes), "clock": clock, **options})


def engine_counters(engine, names) -> dict[str, float]:
    """The cumulative counters ``names`` that ``engine`` reports (absent ones are left out).

    Looks first in ``engine.work()`` when the engine has one (a cheap dict of cumulative work counters), then in
    ``stats()``, asking an engine whose ``stats`` takes ``trees`` (the B+tree) to skip walking its trees, which
    would read pages.
    """
    sources = []
    work = getattr(engine, "work", None)
    if callable(work):
        sources.append(work)
    if "trees" in inspect.signature(engine.stats).parameters:
        sources.append(lambda: engine.stats(trees=False))
    else:
        sources.append(engine.stats)
    out: dict[str, float] = {}
    for source in sources:
        missing = [n for n in names if n not in out]
        if not missing:
            break
        stats = source()
        for name in missing:
            for path in COUNTER_PATHS.get(name, ((name,),)):
                value = stats
                for part in path:
                    value = value.get(part) if isinstance(value, dict) else None
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    out[name] = value
                    break
    return out
