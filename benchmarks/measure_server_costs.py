"""Measure the ratio of a SQL statement's own CPU cost to a row's, in a real SQL layer (SQLite), and print it beside
the constant ``minidb.experiments.calibration.STATEMENT_TO_ROW``.

Run: ``python -m benchmarks.measure_server_costs``. The same rows go into a table with one secondary index twice:
once as one INSERT statement each (SQLite parses and plans each one: their text differs), once through a single
prepared statement (``executemany``: one parse and plan for all). Per row, the difference is the statement's own
cost; the prepared run is the row's. Only the ratio is used: the level of both costs is calibrated on seed 001.
"""

from __future__ import annotations

import sqlite3
import time

from minidb.experiments.calibration import STATEMENT_TO_ROW

ROWS = 10_000  # rows per timed transaction
REPEAT = 5  # the best of this many timings


def measure() -> tuple[float, float]:
    """Seconds per row through one prepared statement, and per row as its own statement (best of ``REPEAT``)."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("create table t (id integer primary key, a int, b int, c int, d real, s text)")
    db.execute("create index i1 on t(a, b)")
    rows = [(i, i % 97, i % 13, i % 7, i * 0.5, "x" * 20) for i in range(2 * REPEAT * ROWS)]
    prepared = single = float("inf")
    for rep in range(REPEAT):
        chunk = rows[2 * rep * ROWS:(2 * rep + 1) * ROWS]
        start = time.perf_counter()
        db.execute("begin")
        db.executemany("insert into t values (?, ?, ?, ?, ?, ?)", chunk)
        db.execute("commit")
        prepared = min(prepared, (time.perf_counter() - start) / ROWS)
        chunk = rows[(2 * rep + 1) * ROWS:(2 * rep + 2) * ROWS]
        start = time.perf_counter()
        db.execute("begin")
        for r in chunk:
            db.execute(f"insert into t values ({r[0]}, {r[1]}, {r[2]}, {r[3]}, {r[4]}, '{r[5]}')")
        db.execute("commit")
        single = min(single, (time.perf_counter() - start) / ROWS)
    return prepared, single


def main() -> None:
    prepared, single = measure()
    print(f"per row, prepared statement: {prepared * 1e6:.2f} us")
    print(f"per row, its own statement:  {single * 1e6:.2f} us")
    print(f"statement / row: {(single - prepared) / prepared:.2f} (the model uses {STATEMENT_TO_ROW})")


if __name__ == "__main__":
    main()
