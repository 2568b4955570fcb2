"""The published numbers the book compares against, loaded from ``data/`` with their provenance.

Every number typed in from a source post lives in ``data/published/NAME.csv`` and nowhere else; ``data/sources.csv``
says for each file which seed post, which table or sentence, and any caveat. Code that needs a published number
(a chart, a device price) loads it from here.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"  # the repository's data/ folder


def names() -> list[str]:
    """Names of the published tables, for ``load``."""
    return sorted(p.stem for p in (DATA_DIR / "published").glob("*.csv"))


def load(name: str):
    """The published table ``name`` as a pandas DataFrame (one row per measurement, units in column names)."""
    import pandas as pd

    path = DATA_DIR / "published" / f"{name}.csv"
    if not path.is_file():
        raise ValueError(f"no published table {name!r}; known tables: {', '.join(names())}")
    return pd.read_csv(path)


def sources():
    """Provenance of every published table: seed file, post title, date, author, table, notes."""
    import pandas as pd

    return pd.read_csv(DATA_DIR / "sources.csv")
