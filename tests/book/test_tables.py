"""minidb.book.tables: a run's results printed to the precision of each column, in the book's style."""

from __future__ import annotations

import math
import re

import pandas as pd

from minidb.book import tables


def cells(html: str) -> list[list[str]]:
    """The text of each body row's cells."""
    body = html.split("<tbody>")[1]
    return [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S) for row in body.split("<tr>")[1:]]


def test_counts_print_without_decimals_and_a_missing_value_as_a_dash():
    # a count with a missing value is a float column to pandas: 2000.0 and NaN
    session = pd.DataFrame({"statement": ["create index", "select count(*)"], "count_star": [math.nan, 2000]})
    html = tables.html(session, index=False)
    assert cells(html) == [["create index", tables.MISSING], ["select count(*)", "2,000"]]
    assert "NaN" not in html and "2000.0" not in html


def test_each_column_keeps_the_decimals_its_values_need_and_no_more():
    frame = pd.DataFrame({"ratio": [0.5, 1.25, 2.0], "rows": [200_000, 5, 0],
                          "raw": [1 / 3, 2.0, 0.1], "engine": ["btree", "lsm", "btree"]})
    rows = cells(tables.html(frame, index=False))
    assert [r[0] for r in rows] == ["0.50", "1.25", "2.00"]
    assert [r[1] for r in rows] == ["200,000", "5", "0"]
    assert rows[0][2] == f"{1 / 3:.{tables.MAX_DECIMALS}f}", "an unrounded float: at most MAX_DECIMALS"
    assert [r[3] for r in rows] == ["btree", "lsm", "btree"]


def test_the_table_is_the_books_scrolls_when_wide_and_breaks_long_column_names():
    html = tables.html(pd.DataFrame({"foreground_reads_per_op": [1.0]}))
    assert html.startswith(f'<div class="{tables.SCROLL_CLASS}"><table class="{tables.TABLE_CLASS}">')
    assert f'<p class="{tables.NOTE_CLASS}">{tables.SCROLL_NOTE}</p>' in html, "saying it scrolls, when it does"
    assert "foreground_<wbr>reads_<wbr>per_<wbr>op" in html
    assert 'border="1"' not in html and "dataframe" not in html
    assert "<th></th>" not in html, "the corner above the row labels is named"


def test_only_the_corner_above_the_row_labels_is_named():
    frame = pd.DataFrame({"reads": [1, 2]}, index=pd.Index(["btree", "lsm"], name="engine"))
    head = tables.html(frame).split("<tbody>")[0]
    corner = f'<th><span class="visually-hidden">{tables.INDEX_NAME}</span></th>'
    rows = [re.findall(r"<th[^>]*>.*?</th>", row, re.S) for row in head.split("<tr>")[1:]]
    assert rows == [[corner, "<th>reads</th>"], ["<th>engine</th>", "<th></th>"]], \
        "the named index's row keeps its empty cell under the column"


def test_enable_shows_every_frame_a_cell_returns_as_the_book_does():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        tables.enable()
        data, _ = shell.display_formatter.format(pd.DataFrame({"n": [1.0, math.nan]}))
        assert tables.TABLE_CLASS in data["text/html"] and tables.MISSING in data["text/html"]
    finally:
        shell.display_formatter.formatters["text/html"].pop(pd.DataFrame, None)
        InteractiveShell.clear_instance()
