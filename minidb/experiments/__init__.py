"""Experiments: one module per finding of the book, each with ``run(scale=...) -> pandas.DataFrame``, and the
sweep runner they share (``sweep``), which caches results on disk and runs points in parallel processes."""

from .runner import sweep

__all__ = ["sweep"]
