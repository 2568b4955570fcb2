"""What a chapter says about its run, computed from the run: the verdict table and sentences with figures in them.

A chapter never types a figure of ours. It says it with ``say``, whose placeholders are filled from the run, and
shows the finding's verdict with ``verdict``:

    from minidb.book import prose
    found = f2.claims(runs)
    prose.verdict(found)                                  # the table: claim, published, ours, band, holds
    prose.say("Our 16 KiB pages write {r}x the bytes of 4 KiB pages.", r=found[0].ours)

* ``fmt(x)`` prints a figure as the verdict table does (three significant digits, thousands separated).
* ``say(template, **figures)`` is ``str.format`` whose bare ``{name}`` fields go through ``fmt`` (a field with a
  format spec, ``{name:.1%}``, uses the spec), returned as Markdown: in the built book a code cell tagged
  ``remove-input`` shows only the sentence.
* ``verdict(claims)`` is the verdict table as HTML narrow enough for the page column: the claim wraps, and a claim
  that does not hold says why in its ``holds`` cell.
* ``compare(a, b)`` words the relation of two figures ("more than", "less than", "about the same as"), so that a
  sentence holds whichever way a run comes out.
"""

from __future__ import annotations

import html
import string

from IPython.display import HTML, Markdown

from ..experiments.claims import Claim, figure

TABLE_CLASS = "minidb-verdict"  # the CSS class book/_static/minidb.css sizes to the text column
SAME = 0.1  # two figures within 10% of each other are "about the same"


def fmt(x) -> str:
    """A figure as the book prints it: three significant digits, thousands separated; text as it is."""
    return figure(x) if isinstance(x, (int, float)) else str(x)


class _Formatter(string.Formatter):
    """``str.format`` that prints a bare numeric field with ``fmt``."""

    def format_field(self, value, format_spec):
        if not format_spec and isinstance(value, (int, float)):
            return fmt(value)
        return super().format_field(value, format_spec)


def say(template: str, **figures) -> Markdown:
    """``template`` with its fields filled from ``figures`` (bare numeric fields through ``fmt``), as Markdown."""
    return Markdown(_Formatter().format(template, **figures))


def compare(ours: float, other: float, *, same: float = SAME) -> str:
    """'more than', 'less than' or 'about the same as': how ``ours`` relates to ``other`` (``same`` = tolerance)."""
    if other and abs(ours / other - 1) <= same:
        return "about the same as"
    return "more than" if ours > other else "less than"


def verdict(claims: list[Claim]) -> HTML:
    """The verdict table of ``claims`` as HTML for the page column: claim, published, ours, band, holds; every cell
    wraps, so the table is never wider than the column and "holds" stays in view."""
    rows = []
    for c in claims:
        published = "" if c.published is None else fmt(c.published)
        holds = "yes" if c.holds else f"<b>no</b>: {html.escape(c.reason)}" if c.reason else "<b>no</b>"
        cells = [_td(html.escape(c.claim)), _td(html.escape(published), _is_number(c.published)),
                 _td(html.escape(fmt(c.ours)), _is_number(c.ours)), _td(html.escape(c.band.text)), _td(holds)]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    cols = "".join(f'<col class="minidb-{kind}">' for kind in ("claim", "figure", "figure", "figure", "holds"))
    head = "".join(f"<th>{h}</th>" for h in ("claim", "published", "ours", "band", "holds"))
    return HTML(f'<table class="{TABLE_CLASS}"><colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>'
                f'<tbody>{"".join(rows)}</tbody></table>')


def _td(content: str, number: bool = False) -> str:
    """A cell of the verdict table; a figure's cell is right-aligned (its class, ``minidb-number``)."""
    return f'<td class="minidb-number">{content}</td>' if number else f"<td>{content}</td>"


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)
