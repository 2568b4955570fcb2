"""How the book prints a table of a run's results: the verdict table's look, numbers to their precision.

pandas prints a frame as it holds it: ``2000.0`` for a count in a column that also holds a missing value, ``NaN`` for
that value, ``0.12345678`` beside ``3.0``. The book prints each column to the precision its values have (at most
``MAX_DECIMALS`` decimals, none on a whole number), thousands separated, a missing value as an en dash, in the
style of the verdict table (``book/_static/minidb.css``); column names may break after their underscores, and a
table wider than the text column scrolls sideways inside it and says so.

    from minidb.book import tables
    tables.enable()          # every DataFrame a cell returns is shown this way (the chapters' first cell)
    tables.show(frame, index=False)

``html(frame)`` is the HTML itself.
"""

from __future__ import annotations

import math
import re

import pandas as pd
from IPython.display import HTML

TABLE_CLASS = "minidb-table"  # the CSS class of a results table (book/_static/minidb.css)
SCROLL_CLASS = "minidb-scroll"  # a box that scrolls sideways what is wider than the text column
NOTE_CLASS = "minidb-scroll-note"  # the line saying so, shown only when the table is wider (the page's script)
SCROLL_NOTE = "The table is wider than the page: scroll it sideways."
MAX_DECIMALS = 6  # the most decimals a column is printed with
MISSING = "\u2013"  # how a missing value is printed
INDEX_NAME = "row"  # what an unnamed header cell above the row labels says, to a screen reader only


def html(frame: pd.DataFrame, index: bool = True) -> str:
    """``frame`` as the book's HTML table, inside its scrolling box (see the module docstring)."""
    formatters = [_formatter(frame.iloc[:, i]) for i in range(frame.shape[1])]
    table = frame.to_html(index=index, formatters=formatters, na_rep=MISSING, border=0, classes=TABLE_CLASS,
                          max_rows=pd.get_option("display.max_rows"), escape=True)
    # the book's class alone: Jupyter's style of "dataframe" tables (and a border attribute) is not the book's
    table = re.sub(r'<table[^>]*class="dataframe ([^"]*)"[^>]*>', r'<table class="\1">', table, count=1)
    table = table.replace('<tr style="text-align: right;">', "<tr>")
    # the corner above the row labels (a header row's empty first cell) says what they are to a screen reader: an
    # empty header cell says nothing; the empty cells after a named index's name, under the columns, stay empty
    head, body = table.split("<tbody>", 1)
    head = re.sub(r"(<tr>\s*)<th></th>", rf'\1<th><span class="visually-hidden">{INDEX_NAME}</span></th>', head)
    table = head + "<tbody>" + body
    # a long column name may break after an underscore (the text is escaped already: '_' is no part of an entity)
    table = re.sub(r"(<th[^>]*>)(.*?)(</th>)", lambda m: m[1] + m[2].replace("_", "_<wbr>") + m[3], table,
                   flags=re.S)
    return f'<div class="{SCROLL_CLASS}">{table}</div><p class="{NOTE_CLASS}">{SCROLL_NOTE}</p>'


def show(frame: pd.DataFrame, index: bool = True) -> HTML:
    """``frame`` as the book shows a table, for a cell to display."""
    return HTML(html(frame, index=index))


def enable() -> None:
    """Show every DataFrame a cell returns as ``html`` does (in IPython; elsewhere, nothing to do)."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, html)


def _formatter(column: pd.Series):
    """The function printing each value of ``column``: whole numbers without decimals, others with as many as
    their column needs, up to ``MAX_DECIMALS``; text as it is."""
    if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
        return lambda v: MISSING if _missing(v) else str(v)
    values = [float(v) for v in column.dropna()]
    decimals = next((d for d in range(MAX_DECIMALS + 1)
                     if all(math.isclose(v, round(v, d), rel_tol=1e-9, abs_tol=1e-12) for v in values)),
                    MAX_DECIMALS)
    return lambda v: MISSING if _missing(v) else f"{v:,.{decimals}f}"


def _missing(value) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or an array in a cell
        return False
