"""The published numbers the book compares against, loaded from ``data/`` with their provenance.

Every number typed in from a source post lives in ``data/published/NAME.csv`` and nowhere else. Each file is tidy:
one row per measurement (or per run, when a run reports several metrics), one column per variable, and the unit in
the column name (``inserts_per_sec``, ``wkb_per_insert``, ``size_gb``, ``tps``). ``data/sources.csv`` says for each
file which seed post it comes from (title, date, author), which table or sentence, and the caveats a reader needs
before comparing (iostat's counting, fast or slow SSD, binlog on or off, cache size, compression).

Code that needs a published number (a chart, a device price) loads it from here::

    from minidb import data

    rates = data.load("insert_benchmark_rates")   # a DataFrame
    rates.attrs["source"]["post_title"]           # 'Insert benchmark, MyRocks and InnoDB'
    data.cite("insert_benchmark_rates")           # a one-line citation for a chart caption

A table that is read in other units than it was published in has its arithmetic here too, once: seed 001's memory
sweep per transaction (``tpcc_memory_sweep``), which chapter 5 charts and the server model is calibrated on.

The test suite checks every row of every file against the text of the seed it cites.
"""

from __future__ import annotations

from pathlib import Path

# The repository's data/ folder; an installed (non-editable) minidb carries a copy as minidb/published_data/ (setup.py).
_CHECKOUT_DATA = Path(__file__).resolve().parent.parent / "data"
DATA_DIR = _CHECKOUT_DATA if _CHECKOUT_DATA.is_dir() else Path(__file__).resolve().parent / "published_data"
PUBLISHED_DIR = DATA_DIR / "published"  # one CSV per published table
SOURCES_CSV = DATA_DIR / "sources.csv"  # provenance, one row per CSV
SOURCE_FIELDS = ("file", "seed", "post_title", "date", "author", "table", "notes")  # columns of sources.csv
SEED_001_THREADS = 56  # seed 001's server: "2 sockets / 28 cores / 56 threads"; vmstat's % are of all of them


def names() -> list[str]:
    """Names of the published tables, for ``load``."""
    return sorted(p.stem for p in PUBLISHED_DIR.glob("*.csv"))


def sources():
    """Provenance of every published table as a DataFrame with the columns ``SOURCE_FIELDS``."""
    import pandas as pd

    frame = pd.read_csv(SOURCES_CSV, dtype=str, keep_default_na=False)
    missing = [c for c in SOURCE_FIELDS if c not in frame.columns]
    if missing:
        raise ValueError(f"{SOURCES_CSV} lacks the columns {missing}")
    return frame


def source(name: str) -> dict[str, str]:
    """The provenance row of table ``name`` as a dict (seed, post_title, date, author, table, notes)."""
    _check_name(name)
    frame = sources()
    rows = frame[frame.file == f"{name}.csv"]
    if len(rows) != 1:
        raise ValueError(f"{SOURCES_CSV} has {len(rows)} rows for {name}.csv; every table needs exactly one")
    return dict(rows.iloc[0])


def load(name: str):
    """The published table ``name`` as a DataFrame; ``df.attrs['source']`` holds its provenance row.

    Numbers come back as numbers, ``true``/``false`` columns as booleans and empty cells as missing values.
    """
    import pandas as pd

    _check_name(name)
    frame = pd.read_csv(PUBLISHED_DIR / f"{name}.csv")
    frame.attrs["name"] = name
    frame.attrs["source"] = source(name)
    return frame


def tpcc_memory_sweep():
    """Seed 001's tables (``tpcc_memory_sweep``) per transaction as well as per second, one row per engine and
    memory: ``engine``, ``memory_gb``, ``tps``, ``rkb_per_txn``, ``wkb_per_txn``, ``read_kb_per_sec``,
    ``write_kb_per_sec`` and ``cpu_ms_per_txn``. Per transaction = per second over TPS; CPU milliseconds per
    transaction = vmstat's user + system share of the server's ``SEED_001_THREADS`` hardware threads over TPS."""
    import pandas as pd

    table = load("tpcc_memory_sweep")
    return pd.DataFrame({
        "engine": table.engine.values,
        "memory_gb": table.memory_gb.values,
        "tps": table.tps.values,
        "rkb_per_txn": (table.read_kb_per_sec / table.tps).values,
        "wkb_per_txn": (table.write_kb_per_sec / table.tps).values,
        "read_kb_per_sec": table.read_kb_per_sec.values,
        "write_kb_per_sec": table.write_kb_per_sec.values,
        "cpu_ms_per_txn": ((table.cpu_user_pct + table.cpu_sys_pct) / 100 * SEED_001_THREADS / table.tps
                           * 1000).values,
    })


def cite(name: str) -> str:
    """A one-line citation of table ``name`` for a caption: author, title and date of its post."""
    row = source(name)
    return f"{row['author']}, \u201c{row['post_title']}\u201d ({row['date']})"


def _check_name(name: str) -> None:
    if not (PUBLISHED_DIR / f"{name}.csv").is_file():
        raise ValueError(f"no published table {name!r}; known tables: {', '.join(names())}")
