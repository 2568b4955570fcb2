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
* ``magnitudes(table)`` is the introduction's "how close are we" table (``minidb.experiments.magnitudes``) as HTML:
  each published figure, ours, their ratio, within 2x and 1.25x, and a link to the chapter.
* ``before_after(finding, claims, scale)`` is a chapter's published figures beside ours before the book's last
  change of model (the record of that commit's runs in ``book/records``) and now.
* ``outside(claims)`` lists, as Markdown, the claims whose figure is not within 1.25x of the post's, each with
  the measured cause its claim gives.
"""

from __future__ import annotations

import html
import string
from pathlib import Path

from IPython.display import HTML, Markdown

from ..experiments.claims import Claim, figure

TABLE_CLASS = "minidb-verdict"  # the CSS class book/_static/minidb.css sizes to the text column
MAGNITUDES_CLASS = "minidb-magnitudes"  # and the magnitude table's own columns
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


RECORDS = Path("..") / "records"  # the magnitude records, beside the chapters (book/records)
BEFORE = "0f0b638"  # the commit whose runs the chapters' "before" figures are: the book before sizes were checked


def before_after(finding: str, claims: list[Claim], scale: str, records: Path = RECORDS):
    """``finding``'s published figures, ours in the record of ``BEFORE``'s runs at ``scale``, and ours now (a
    DataFrame; without a record for ``scale``, only now's)."""
    from ..experiments import magnitudes as mag

    now = mag.table({finding: claims})
    path = Path(records) / f"magnitudes-{BEFORE}-{scale}.json"
    if not path.is_file():
        return now[["claim", "published", "ours", "ratio"]]
    return mag.before_after(now, mag.load_record(path), finding)


def outside(claims: list[Claim]) -> Markdown:
    """The claims whose figure is outside 1.25x of the published one, with their reasons, as a Markdown list (a
    sentence saying so when there is none)."""
    lines = []
    for c in claims:
        m = c.magnitude
        if m is None or m.within_1_25x:
            continue
        size = f"{m.ratio:.2f} times the post's" if m.ratio == m.ratio else f"against the post's {fmt(c.published)}"
        why = c.reason or "no measured cause given"
        lines.append(f"* *{c.claim}*: ours {fmt(c.ours)}, {size} ({fmt(c.published)}). {why[0].upper()}{why[1:]}.")
    if not lines:
        return Markdown("Every published figure this chapter tests is within 1.25x of ours at this scale.")
    return Markdown("\n".join(lines))


def magnitudes(table) -> HTML:
    """The magnitude table (``minidb.experiments.magnitudes.table``'s frame) as HTML for the page column, each row
    linking to its chapter (a page beside this one in the built book)."""
    rows = []
    for r in table.itertuples():
        ratio = "" if r.ratio != r.ratio else f"{r.ratio:.2f}"
        link = f'<a href="{html.escape(r.chapter)}.html">{html.escape(r.finding.upper())}</a>'
        cells = [link, html.escape(r.claim), fmt(r.published), fmt(r.ours), ratio,
                 *("yes" if ok else "<b>no</b>" for ok in (r.within_2x, r.within_1_25x))]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("finding", "claim", "published", "ours", "ours / published",
                                             "within 2x", "within 1.25x"))
    return HTML(f'<table class="{TABLE_CLASS} {MAGNITUDES_CLASS}"><thead><tr>{head}</tr></thead>'
                f'<tbody>{"".join(rows)}</tbody></table>')


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
