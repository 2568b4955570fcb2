"""Experiments: one module per finding of the book, each with ``run(scale=...) -> pandas.DataFrame``, and the
sweep runner they share (``sweep``), which caches results on disk and runs points in parallel processes.

A finding's module is named ``f<N>_<topic>`` (``f1_insert_benchmark``); ``findings()`` lists them."""

from __future__ import annotations

import importlib
import pkgutil
import re

__all__ = ["findings", "sweep"]

FINDING_MODULE = re.compile(r"^(f\d+)_\w+$")  # f<finding number>_<topic>


def findings() -> dict[str, str]:
    """The experiment modules of this package: finding (``f1``) -> module name, in finding order."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        m = FINDING_MODULE.match(info.name)
        if m:
            found[m.group(1)] = info.name
    return dict(sorted(found.items(), key=lambda kv: int(kv[0][1:])))


def __getattr__(name: str):
    """``sweep``, imported from ``runner`` on first use: the ``minidb`` command lists the findings without pandas."""
    if name == "sweep":
        return importlib.import_module(".runner", __name__).sweep
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
