"""Altair helpers for the book: one look, one colour per engine family, published and reproduced on one axis, offline.

* ``enable()`` turns on the book's theme and, while the book is built, the offline ``minidb`` renderer; in a
  notebook opened in Jupyter, the ``minidb-notebook`` renderer (the front end's own Vega draws the chart, sliders and
  all, with a static SVG for front ends that have none: offline too). Call it once at the top of a chapter or
  exercise.
* ``engine_kind(name)`` says whether an engine name (``InnoDB-5.7``, ``MyRocks``, ``btree``, ...) is a B+tree or
  an LSM; ``engine_scale(names)`` gives B+trees shades of blue and LSMs shades of orange, in every chart.
* ``compare_rows(published, reproduced, value, ...)`` and ``compare_lines(published, reproduced, x, y, ...)`` put
  a published table (from ``minidb.data``) and the engines' counted result in one chart, on one axis in one unit:
  the published figures as hollow diamonds (and dashed lines), ours as filled dots (and solid lines) drawn over
  them, in one legend. ``stacked`` draws two quantities that do not share a unit one above the other.
* ``io_by_kind(frame)`` charts ``IOStats.to_frame()``: bytes read and written per file kind, split by cause.
* ``problems(spec)`` lists what breaks the book's chart rules in a chart: an axis whose unit is not its column's
  (a column of bytes titled MB), bars stacked without saying they are parts of a whole, panels side by side, a
  fixed width a phone cannot show. The test suite runs it on every chart the chapters draw.

**Fits the column.** A chart made of one view (or layers of one) takes the width of the text column
(``width="container"``): 688 pixels on a laptop, 358 on a 390-pixel phone. Small multiples (a facet, stacked
panels) cannot, so each of their panels is ``SMALL_WIDTH`` wide, which a phone shows whole.

**Offline rendering.** The built book must show charts with no network. Altair's stock HTML output fetches Vega
from a CDN, so the ``minidb`` renderer instead emits a ``<div>`` and a script that calls ``window.minidbDraw``,
which the book's static file ``minidb-vega.js`` defines (``draw.js``: vega-embed with the SVG renderer, the chart
menu named, step sliders showing their value). ``vega_bundle()`` makes that file from vl-convert's
self-contained Vega bundle, wrapped in a function so its top-level names do not clash with the site's other
scripts. The bundle also presets Altair's ``VEGA_DEBUG`` table with the versions Altair would fetch, so a chart
shown with Altair's stock ``html`` renderer finds them already loaded and does not reach for the CDN either.

**In plain Jupyter.** JupyterLab 4 and Notebook 7 draw Vega-Lite 5 themselves, from their own bundled copy, with
no network: the ``minidb-notebook`` renderer hands them the chart as ``application/vnd.vegalite.v5+json`` (Altair
writes Vega-Lite 6, whose specs the book's charts keep within what Vega-Lite 5 reads, so only the schema line
changes), so an explorable chart's sliders work there too. Beside it goes the SVG vl-convert draws, which front
ends without a Vega renderer (GitHub's viewer, nbconvert, the classic Notebook) show instead.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
import uuid
from pathlib import Path

import altair as alt
import pandas as pd

from .. import data, engines

THEME = "minidb"  # name of the book's Altair theme
RENDERER = "minidb"  # name of the book's offline Altair renderer
BUNDLE_FILE = "minidb-vega.js"  # the book's static file defining window.vegaEmbed and window.minidbDraw
DRAW_SCRIPT = Path(__file__).with_name("draw.js")  # window.minidbDraw, added to the bundle
NOTEBOOK_RENDERER = "minidb-notebook"  # plain Jupyter: the front end's Vega, with an SVG as the fallback
# JupyterLab 4 and Notebook 7 render this MIME type with the Vega-Lite 5 they bundle (Altair's own v6 type they
# do not know); the schema line tells Vega-Lite which version wrote the spec
JUPYTER_VEGALITE_MIME = "application/vnd.vegalite.v5+json"
JUPYTER_VEGALITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
OFFLINE_ENV = "MINIDB_OFFLINE_CHARTS"  # set to 1 while the book is built: charts use the bundled Vega

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"  # fonts on the machine
# Several engines of one family in one chart get shades of its colour, the family colour first (minidb.engines).
SHADES = {name: spec.shades for name, spec in engines.REGISTRY.items()}
KIND_COLORS = {name: shades[0] for name, shades in SHADES.items()}  # the family colour: legends, single engines
OTHER_COLOR = "#7f7f7f"  # a name that is no engine
NEUTRAL = ("#54585d", "#7b3294", "#1b9e77", "#c51b7d", "#8c6d31", "#66a61e", "#e6ab02")  # colours with no engine
CAUSE_COLORS = {  # IO causes, in every chart: foreground dark, background jobs in colours that are no engine's
    "foreground": "#54585d",
    "flush": "#7b3294",
    "compaction": "#c2a5cf",
    "eviction": "#1b7837",
    "page-cleaner": "#5aae61",
    "checkpoint": "#a6dba0",
    "sync-flush": "#d9f0d3",
    "recovery": "#c51b7d",
}
WIDTH = "container"  # a one-view chart is as wide as the text column
HEIGHT = 220  # pixels of a plot's height
ROW_STEP = 24  # pixels per row of a chart whose rows are categories (compare_rows)
# Pixels of each panel of small multiples, which cannot take the column's width: with its axis labels, a y title
# and the chart menu beside it, it fits the 358-pixel column of a 390-pixel phone.
SMALL_WIDTH = 220
# A title's or subtitle's line breaks after about this many characters: a phone shows it whole.
TITLE_CHARS, SUBTITLE_CHARS = 34, 52
PUBLISHED = "published"  # name of the layer of published marks (their Vega marks: "published_marks")
REPRODUCED = "reproduced"  # name of the layer of our marks, drawn over the published ones
SOURCES = {PUBLISHED: "published", REPRODUCED: "minidb"}  # how a legend entry says where its figures come from


# -- engines and colours ------------------------------------------------------------------------------------------
engine_kind = engines.kind_of  # 'btree' for 'InnoDB-5.7.10', 'lsm' for 'MyRocks', ...; None for no engine


def kind_label(name) -> str:
    """'B+tree' or 'LSM' for an engine name (``engines.REGISTRY``'s title, without its parenthesis); the name itself
    for a name that is no engine."""
    kind = engine_kind(name)
    return engines.REGISTRY[kind].title.split(" (")[0] if kind else str(name)


def engine_scale(names) -> alt.Scale:
    """A colour scale over ``names`` (in that order) with B+trees in blues and LSMs in oranges."""
    domain = list(dict.fromkeys(str(n) for n in names))
    return alt.Scale(domain=domain, range=_engine_colors(domain))


def _engine_colors(names: list[str]) -> list[str]:
    """The colour of each of ``names``: the next shade of its family's, or ``OTHER_COLOR`` for no engine."""
    used = dict.fromkeys(SHADES, 0)
    colors = []
    for name in names:
        kind = engine_kind(name)
        if kind is None:
            colors.append(OTHER_COLOR)
            continue
        shades = SHADES[kind]
        colors.append(shades[used[kind] % len(shades)])
        used[kind] += 1
    return colors


# -- the theme ---------------------------------------------------------------------------------------------------
def theme() -> dict:
    """The book's Altair theme: system fonts (nothing fetched), quiet axes, legends that stay narrow, a white
    background (the site's dark mode keeps charts readable)."""
    return {
        "config": {
            "font": FONT,
            "background": "white",
            "view": {"continuousWidth": SMALL_WIDTH, "continuousHeight": HEIGHT, "stroke": None},
            # labels that would touch are dropped, not drawn into each other ("8001,000")
            "axis": {"labelFontSize": 11, "titleFontSize": 12, "gridColor": "#e6e6e6", "domainColor": "#888",
                     "labelOverlap": "greedy", "labelSeparation": 6, "labelLimit": 170},
            # an x title ends where its axis ends: under a narrow plot it reaches left, not off the chart; and the
            # end labels of a continuous x axis sit inside its ends, not centred past them (labels inside a narrow
            # axis can still overflow: a chart that has them shortens them, as chapter 12's rates do)
            "axisX": {"titleAnchor": "end", "labelFlush": True},
            # a legend under the chart, one entry to a line: never wider than a phone
            "legend": {"labelFontSize": 11, "titleFontSize": 12, "orient": "bottom", "direction": "vertical",
                       "labelLimit": 220, "symbolLimit": 40},
            "title": {"fontSize": 14, "anchor": "start", "subtitleFontSize": 11, "subtitleColor": "#555"},
            "header": {"labelFontSize": 12, "titleFontSize": 12},
            # Blue and orange mean B+tree and LSM; other categories get colours that are no engine's.
            "range": {"category": list(NEUTRAL)},
        }
    }


def enable(offline: bool | None = None) -> None:
    """Enable the book's theme, and the offline ``minidb`` renderer when ``offline`` (else Altair's default).

    ``offline=None`` reads the environment: the book's Sphinx extension sets ``OFFLINE_ENV=1`` for the notebooks it
    executes, so the built pages draw with the bundled Vega. A notebook opened in Jupyter gets ``notebook_render``'s
    bundle instead: the spec for the front end's own Vega (interactive) and an SVG for front ends without one.
    """
    alt.theme.register(THEME, enable=True)(theme)
    if offline is None:
        offline = os.environ.get(OFFLINE_ENV) == "1"
    alt.renderers.register(RENDERER, render)
    alt.renderers.register(NOTEBOOK_RENDERER, notebook_render)
    alt.renderers.enable(RENDERER if offline else NOTEBOOK_RENDERER)


def heading(title: str | None, *notes: str):
    """A chart title and its subtitle lines (``notes``: a source, a scale), wrapped for a phone's width."""
    lines = [line for note in notes if note for line in textwrap.wrap(note, SUBTITLE_CHARS)]
    text = textwrap.wrap(title or "", TITLE_CHARS) or ""
    if not text and not lines:
        return alt.Undefined
    return alt.Title(text, subtitle=lines) if lines else alt.Title(text)


# -- published and reproduced ----------------------------------------------------------------------------------------
def compare_rows(published: pd.DataFrame, reproduced: pd.DataFrame, value: str, *, by: str = "engine",
                 row: str | None = None, title: str | None = None, value_title: str | None = None,
                 note: str = "") -> alt.LayerChart:
    """One row per engine family (and per value of ``row``: a configuration, a page size), the published figure
    and ours on it, on one ``value`` axis that starts at zero, a grey line between them.

    ``value`` is a column of both frames holding the same quantity in the same unit, which its name says
    (``wkb_per_insert``); ``by`` names the engine of each figure (``InnoDB-5.7``, ``btree``: its family is the
    row's, its colour the family's), ``row`` what else a row stands for. A row only one frame has shows one mark:
    no row is empty. ``note`` says how ours were made (the scale); the source of the published frame is cited when
    it came from ``minidb.data.load``.
    """
    columns = [value, by] + ([row] if row else [])
    long = _together(published, reproduced, columns, by)
    long["row"] = long[by].map(kind_label) + (", " + long[row].astype(str) if row else "")
    rows = list(dict.fromkeys(long.sort_values(["kind_order", "order"])["row"]))
    both = long.groupby("row").filter(lambda g: g.source.nunique() == 2)
    gaps = both.groupby("row", as_index=False)[value].agg(low="min", high="max")
    axis_y = alt.Y("row:N", sort=rows, title=None)
    axis_x = alt.X(f"{value}:Q", title=value_title or axis_title(value), scale=alt.Scale(zero=True))
    series = _series_encodings(long, indent=max(map(len, rows)))
    tooltip = list(dict.fromkeys(["series", *columns]))
    gap = alt.Chart(gaps).mark_rule(color="#c8c8c8", strokeWidth=2).encode(
        y=axis_y, x=alt.X("low:Q"), x2="high:Q")
    layers = [gap] + [
        alt.Chart(long[long.source == source]).mark_point(**_POINTS[source]).encode(
            y=axis_y, x=axis_x, tooltip=tooltip, **series).properties(name=source)
        for source in (PUBLISHED, REPRODUCED)]
    return alt.layer(*layers, title=heading(title, *_notes(published, note))).properties(
        width=WIDTH, height=alt.Step(ROW_STEP))


def compare_lines(published: pd.DataFrame, reproduced: pd.DataFrame, x: str, y: str, *, by: str = "engine",
                  title: str | None = None, y_title: str | None = None, x_title: str | None = None,
                  note: str = "", x_scale: str = "linear") -> alt.LayerChart:
    """Published and reproduced series of ``y`` against ``x`` in one plot: the published dashed with hollow
    diamonds, ours solid with filled dots, drawn over them; one line per value of ``by`` and source.

    ``y`` must be the same quantity in the same unit in both frames, which its name says; ``x_scale`` is
    ``linear`` or ``log`` (a parameter swept by doubling).
    """
    long = _together(published, reproduced, [x, y, by], by)
    axis_x = alt.X(f"{x}:Q", title=x_title or axis_title(x),
                   scale=alt.Scale(type=x_scale) if x_scale != "linear" else alt.Undefined)
    axis_y = alt.Y(f"{y}:Q", title=y_title or axis_title(y))
    series = _series_encodings(long, indent=8)
    tooltip = list(dict.fromkeys(["series", x, y]))
    layers = []
    for source in (PUBLISHED, REPRODUCED):
        mine = alt.Chart(long[long.source == source]).encode(x=axis_x, y=axis_y)
        layers += [mine.mark_line(**_LINES[source]).encode(stroke=series["stroke"], detail="series:N"),
                   mine.mark_point(**_POINTS[source]).encode(tooltip=tooltip, **series).properties(name=source)]
    return alt.layer(*layers, title=heading(title, *_notes(published, note))).properties(width=WIDTH,
                                                                                         height=HEIGHT)


def stacked(published: pd.DataFrame, reproduced: pd.DataFrame, x: str, y: str, *, by: str = "engine",
            title: str | None = None, y_title: str | None = None, note: str = "") -> alt.VConcatChart:
    """Two panels, one above the other, sharing x and colours but each with its own y axis: the published ``y``
    and ours, for two quantities that do not share a unit or a scale (a modelled rate and a measured one), whose
    *shapes* compare. Each panel says so in its title."""
    long = _together(published, reproduced, [x, y, by], by)
    color = alt.Color(f"{by}:N", title=axis_title(by), scale=engine_scale(long[by]))
    panels = [
        alt.Chart(long[long.source == source], title=heading(
            f"{'Published' if source == PUBLISHED else 'Reproduced by minidb'} (own y scale)",
            *_notes(published if source == PUBLISHED else None, note if source == REPRODUCED else ""))
        ).mark_line(point=True).encode(
            x=alt.X(f"{x}:Q", title=axis_title(x)), y=alt.Y(f"{y}:Q", title=y_title or axis_title(y)),
            color=color, tooltip=[by, x, y]).properties(name=source, width=SMALL_WIDTH, height=HEIGHT * 2 // 3)
        for source in (PUBLISHED, REPRODUCED)]
    return alt.vconcat(*panels, title=heading(title)).resolve_scale(x="shared", y="independent", color="shared")


# published marks hollow and larger, under ours: a figure of ours on a published one shows as a dot in a diamond
_POINTS = {PUBLISHED: dict(filled=True, size=150, strokeWidth=2), REPRODUCED: dict(filled=True, size=70)}
_LINES = {PUBLISHED: dict(strokeDash=[5, 3], strokeWidth=1.5, opacity=0.8), REPRODUCED: dict(strokeWidth=2.5)}
LEGEND_CHAR = 6.2  # pixels of a legend label's character, about, to tell whether two columns of entries fit


def _together(published: pd.DataFrame, reproduced: pd.DataFrame, columns: list[str], by: str) -> pd.DataFrame:
    """The rows of both frames, with where each comes from (``source``), its legend entry (``series``), its
    colour, and the order of its family and series (``kind_order``, ``order``)."""
    frames = []
    for source, frame in ((PUBLISHED, published), (REPRODUCED, reproduced)):
        _require_columns(frame, columns, f"the {source} frame")
        part = frame[columns].copy()
        part["source"] = source
        part["series"] = part[by].astype(str) + f" ({SOURCES[source]})"
        # each source's engines take their family's shades in order: InnoDB-5.7 and btree both the first blue
        names = list(dict.fromkeys(part[by].astype(str)))
        part["color"] = part[by].astype(str).map(dict(zip(names, _engine_colors(names))))
        frames.append(part)
    long = pd.concat(frames, ignore_index=True)
    kinds = list(engines.REGISTRY)
    long["kind_order"] = long[by].map(lambda n: kinds.index(engine_kind(n)) if engine_kind(n) else len(kinds))
    long["order"] = range(len(long))
    return long


def _series_encodings(long: pd.DataFrame, indent: int) -> dict:
    """Stroke, fill and shape by series, merged into one legend: each family's published entries beside its own, in
    family order, in two columns when they fit a phone beside ``indent`` characters of axis labels, else in one."""
    entries = long.sort_values(["kind_order", "source", "order"]).drop_duplicates("series")
    domain = list(entries.series)
    label_px = LEGEND_CHAR * max(map(len, domain)) + 30
    columns = 2 if LEGEND_CHAR * indent + 2 * label_px <= SMALL_WIDTH + 90 else 1
    legend = alt.Legend(title=None, columns=columns, labelLimit=int(label_px), symbolOpacity=1)
    published = [source == PUBLISHED for source in entries.source]
    return {
        "stroke": alt.Stroke("series:N", scale=alt.Scale(domain=domain, range=list(entries.color)), legend=legend),
        "fill": alt.Fill("series:N", scale=alt.Scale(
            domain=domain, range=["white" if p else c for p, c in zip(published, entries.color)]), legend=legend),
        "shape": alt.Shape("series:N", scale=alt.Scale(
            domain=domain, range=["diamond" if p else "circle" for p in published]), legend=legend),
    }


def _notes(published: pd.DataFrame | None, note: str) -> list[str]:
    """The subtitle lines of a comparison: the published frame's source, then how ours were made."""
    name = published.attrs.get("name") if published is not None else None
    return [f"Published: {data.cite(name)}" if name else "", f"minidb: {note}" if note else ""]


def _require_columns(frame, shorthands, what: str) -> None:
    """Raise ValueError naming ``what`` if a column of the Altair shorthands (``"clients:O"``) is missing."""
    for shorthand in shorthands:
        if shorthand and shorthand.split(":")[0] not in frame.columns:
            raise ValueError(f"{what} has no column {shorthand.split(':')[0]!r} "
                             f"(columns: {', '.join(map(str, frame.columns))})")


_MARKS = ("line", "bar", "point")  # the marks panel() draws


def panel(frame, x: str, y: str, color: str | None = None, mark: str = "line", title=None,
          y_title: str | None = None, color_scale: alt.Scale | None = None) -> alt.Chart:
    """One chart in the book's conventions (engine colours, readable axis titles), as wide as the text column.

    ``mark="bar"`` with a ``color`` groups the bars of each x side by side (they are not parts of a whole)."""
    if mark not in _MARKS:
        raise ValueError(f"panel: unknown mark {mark!r}; use one of {', '.join(_MARKS)}")
    xname, yname = x.split(":")[0], y.split(":")[0]
    cname = color.split(":")[0] if color else None
    _require_columns(frame, (x, y, color), "panel: the frame")
    discrete_x = x.endswith((":N", ":O")) or (":" not in x and not _is_numeric(frame[xname]))
    enc = {
        "x": alt.X(x, title=axis_title(xname), axis=alt.Axis(labelAngle=0) if discrete_x else alt.Undefined),
        "y": alt.Y(y, title=y_title or axis_title(yname)),
        "tooltip": list(dict.fromkeys(n for n in (xname, yname, cname) if n)),
    }
    if color:
        scale = color_scale if color_scale is not None else engine_scale(frame[cname].astype(str))
        enc["color"] = alt.Color(color, scale=scale, title=axis_title(cname))
    base = alt.Chart(frame, title=title if title is not None else alt.Undefined, width=WIDTH, height=HEIGHT)
    if mark == "line":
        return base.mark_line(point=True).encode(**enc)
    if mark == "bar":
        if color:
            enc["xOffset"] = alt.XOffset(color)
        return base.mark_bar().encode(**enc)
    return base.mark_point(filled=True, size=60).encode(**enc)


_WORDS = {"gb": "GB", "mb": "MB", "kb": "KB", "wkb": "wKB", "rkb": "rKB", "sec": "s", "pct": "%", "usd": "USD",
          "tps": "TPS", "iops": "IOPS", "cpu": "CPU"}  # how unit words of column names are printed
_UNITS = {"gb", "mb", "kb", "sec", "pct", "usd"}  # a trailing unit word goes in parentheses


def _is_numeric(series) -> bool:
    return pd.api.types.is_numeric_dtype(series)


def axis_title(column: str) -> str:
    """A readable axis title: 'inserts_per_sec' -> 'inserts/s', 'wkb_per_insert' -> 'wKB/insert',
    'size_gb' -> 'size (GB)'."""
    head, _, per = column.partition("_per_")
    words = head.split("_")
    if not per and len(words) > 1 and words[-1] in _UNITS:
        return f"{' '.join(_WORDS.get(w, w) for w in words[:-1])} ({_WORDS[words[-1]]})"
    title = " ".join(_WORDS.get(w, w) for w in words)
    return f"{title}/{' '.join(_WORDS.get(w, w) for w in per.split('_'))}" if per else title


# -- counted IO -------------------------------------------------------------------------------------------------------
def io_by_kind(frame, title: str | None = None) -> alt.FacetChart:
    """Bytes read and written per file kind, coloured by cause, from ``IOStats.to_frame()`` (one row per label):
    the bytes read above the bytes written, each bar the sum of its causes' parts."""
    needed = {"kind", "cause", "read_bytes", "write_bytes"}
    if not needed <= set(frame.columns):
        raise ValueError(f"io_by_kind needs the columns of IOStats.to_frame() {sorted(needed)}, "
                         f"got {list(frame.columns)}")
    long = frame.melt(id_vars=["kind", "cause"], value_vars=["read_bytes", "write_bytes"],
                      var_name="direction", value_name="bytes")
    long["direction"] = long["direction"].map({"read_bytes": "read", "write_bytes": "written"})
    long = long[long["bytes"] > 0].groupby(["kind", "cause", "direction"], as_index=False)["bytes"].sum()
    return (
        alt.Chart(long, width=SMALL_WIDTH, height=alt.Step(20))
        .mark_bar()
        .encode(
            y=alt.Y("kind:N", title="file kind", sort="-x"),
            x=alt.X("sum(bytes):Q", title="bytes", stack="zero"),  # the causes' parts of each kind's bytes
            color=alt.Color("cause:N", title="cause", scale=cause_scale(long["cause"])),
            tooltip=["kind", "cause", "direction", "bytes"],
        )
        .facet(facet=alt.Facet("direction:N", title=None,
                               header=alt.Header(labelAnchor="start", labelFontWeight="bold")),
               columns=1, title=heading(title))
        .resolve_scale(y="independent")
    )


def cause_scale(causes) -> alt.Scale:
    """A colour scale over the IO causes present, in ``CAUSES`` order, with the book's cause colours."""
    from ..storage import CAUSES

    present = set(causes)
    domain = [c for c in CAUSES if c in present] + sorted(present - set(CAUSES))
    return alt.Scale(domain=domain, range=[CAUSE_COLORS.get(c, OTHER_COLOR) for c in domain])


# -- the rules every chart keeps ---------------------------------------------------------------------------------
# Words that name a unit of bytes, in a column's name or an axis title, and the unit they name.
BYTE_UNITS = {"byte": "bytes", "bytes": "bytes", "kb": "KB", "kib": "KB", "wkb": "KB", "rkb": "KB", "mb": "MB",
              "mib": "MB", "gb": "GB", "gib": "GB", "tb": "TB"}
MAX_FIXED_WIDTH = SMALL_WIDTH + 40  # the widest fixed panel ``problems`` lets pass


def units(text: str) -> set[str]:
    """The units of bytes ``text`` names: 'wkb_per_insert' -> {'KB'}, 'MB in the level' -> {'MB'}. A unit after a
    number is a quantity the text describes, not the unit of the values ('TPS / TPS with 16 KiB pages')."""
    words = [w for w in re.split(r"[^a-z0-9,.]+", str(text).lower()) if w]
    return {BYTE_UNITS[w] for before, w in zip([""] + words, words)
            if w in BYTE_UNITS and not re.fullmatch(r"[0-9][0-9,.]*", before)}


def problems(chart) -> list[str]:
    """What in ``chart`` (an Altair chart or its spec) breaks the book's rules, in words; [] when nothing does:

    * an axis whose title names another unit of bytes than its column (a column of bytes titled MB) or none;
    * bars coloured by a field that stack (Vega-Lite's default) without ``stack="zero"`` saying they are parts of
      a whole, nor an offset grouping them side by side;
    * panels side by side (``hconcat``), a panel wider than ``MAX_FIXED_WIDTH`` pixels, or a title line longer
      than ``heading`` makes them: a phone cuts them off.
    """
    spec = chart if isinstance(chart, dict) else chart.to_dict()
    found = []
    for view in _views(spec):
        if "hconcat" in view or view.get("columns", 1) > 1 and "concat" in view:
            found.append("panels side by side: stack them (vconcat) or draw one chart")
        width = view.get("width")
        if isinstance(width, (int, float)) and width > MAX_FIXED_WIDTH:
            found.append(f"a panel {width} px wide: use width='container' or at most {MAX_FIXED_WIDTH} px")
        found.extend(_title_problems(view.get("title")))
        encoding = view.get("encoding", {})
        for channel in ("x", "y"):
            found.extend(_unit_problem(channel, encoding.get(channel)))
        mark = view.get("mark", {})
        mark = mark.get("type") if isinstance(mark, dict) else mark
        colour = encoding.get("color", {}).get("field") or encoding.get("fill", {}).get("field")
        if mark in ("bar", "area") and colour and not ({"xOffset", "yOffset"} & set(encoding)):
            if not any("stack" in encoding.get(c, {}) for c in ("x", "y")):
                found.append(f"{mark}s coloured by {colour!r} stack: say stack='zero' if they are parts of a "
                             f"whole, else group them (xOffset) or set stack=None")
    return found


def _title_problems(title) -> list[str]:
    """Title and subtitle lines longer than a phone shows (``heading`` wraps them)."""
    if not title:
        return []
    title = title if isinstance(title, dict) else {"text": title}
    found = []
    for key, most in (("text", TITLE_CHARS), ("subtitle", SUBTITLE_CHARS)):
        lines = title.get(key) or []
        for line in [lines] if isinstance(lines, str) else lines:
            if len(line) > most + 4:
                found.append(f"a {key} line of {len(line)} characters ({line[:30]}...): wrap it with heading()")
    return found


def _unit_problem(channel: str, encoding: dict | None) -> list[str]:
    """The unit problem of one positional encoding, if any."""
    if not encoding or "field" not in encoding:
        return []
    field = encoding["field"]
    title = encoding.get("axis", {}).get("title", encoding.get("title", field)) if isinstance(
        encoding.get("axis"), dict) else encoding.get("title", field)
    if title is None:
        return []
    text = " ".join(title) if isinstance(title, list) else str(title)
    if units(field) != units(text):
        return [f"the {channel} axis titled {text!r} plots {field!r}: its unit is "
                f"{', '.join(sorted(units(field))) or 'not in its name'}, the title's "
                f"{', '.join(sorted(units(text))) or 'missing'}"]
    return []


def _views(spec: dict):
    """``spec`` and every view inside it (layers, facets, concatenations)."""
    yield spec
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for child in spec.get(key, []):
            yield from _views(child)
    if isinstance(spec.get("spec"), dict):
        yield from _views(spec["spec"])


# -- offline rendering ------------------------------------------------------------------------------------------
def render(spec: dict, **metadata) -> dict:
    """Altair renderer for the built book: HTML that draws ``spec`` with the site's bundled Vega."""
    return {"text/html": offline_html(spec), "text/plain": "<minidb chart>"}


def notebook_render(spec: dict, **metadata) -> dict:
    """Altair renderer for plain Jupyter: ``spec`` for the front end's Vega-Lite 5 and, as the fallback, its SVG."""
    from altair.vegalite.v6.display import svg_renderer

    return {JUPYTER_VEGALITE_MIME: jupyter_spec(spec), **svg_renderer(spec, **metadata),
            "text/plain": "<minidb chart>"}


def jupyter_spec(spec: dict) -> dict:
    """``spec`` as JupyterLab's Vega-Lite 5 reads it: the same chart, its schema line naming Vega-Lite 5."""
    return {**spec, "$schema": JUPYTER_VEGALITE_SCHEMA}


def described(spec: dict) -> dict:
    """``spec`` with a ``description``, which Vega gives the drawn SVG as its accessible name: the spec's own, else
    its title's text, else its y axis's title."""
    if spec.get("description"):
        return spec
    title = spec.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    if not text:
        y = next((v["encoding"]["y"] for v in _views(spec) if "y" in v.get("encoding", {})), {})
        text = y.get("title") or y.get("field")
    text = " ".join(text) if isinstance(text, list) else text
    return {**spec, "description": f"Chart: {text}" if text else "Chart"}


def offline_html(spec: dict, div_id: str | None = None) -> str:
    """A ``<div>`` and a script drawing ``spec`` with ``window.minidbDraw``; it loads nothing from anywhere."""
    div_id = div_id or f"minidb-chart-{uuid.uuid4().hex[:12]}"
    # '</' inside a string of the spec would end the <script> element early.
    payload = json.dumps(described(spec), separators=(",", ":")).replace("</", "<\\/")
    return (
        f'<div id="{div_id}" class="minidb-chart"></div>\n'
        '<script type="text/javascript">\n'
        "(function () {\n"
        f"  var spec = {payload};\n"
        "  function draw() {\n"
        f'    var el = document.getElementById("{div_id}");\n'
        '    if (typeof window.minidbDraw !== "function") {\n'
        f'      el.textContent = "This chart needs {BUNDLE_FILE}, the Vega library bundled with the book.";\n'
        "      return;\n"
        "    }\n"
        "    window.minidbDraw(el, spec).catch(function (err) {\n"
        '      el.textContent = "Chart error: " + err.message;\n'
        "      console.error(err);\n"
        "    });\n"
        "  }\n"
        '  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); }\n'
        "  else { draw(); }\n"
        "})();\n"
        "</script>"
    )


def vega_bundle() -> str:
    """The JavaScript of ``BUNDLE_FILE``: Vega, Vega-Lite and vega-embed for the Vega-Lite version Altair emits.

    Defines ``window.vegaEmbed``, ``window.vega``, ``window.vegaLite`` and ``window.minidbDraw`` (``DRAW_SCRIPT``)
    and presets ``window.VEGA_DEBUG``; everything else stays inside a function so it cannot clash with other
    scripts of the page.
    """
    import vl_convert as vlc
    from altair.vegalite.v6 import display

    preset = {"vega_version": display.VEGA_VERSION, "vegalite_version": display.VEGALITE_VERSION,
              "vegaembed_version": display.VEGAEMBED_VERSION}
    snippet = (
        "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;\n"
        f"window.VEGA_DEBUG = Object.assign(window.VEGA_DEBUG || {{}}, {json.dumps(preset)});\n"
        + DRAW_SCRIPT.read_text(encoding="utf-8")
    )
    body = vlc.javascript_bundle(snippet=snippet, vl_version=_vl_version())
    return f"{bundle_header()}(function () {{\n{body}\n}})();\n"


def bundle_header() -> str:
    """The first line of ``vega_bundle()``: the library versions and a digest of ``DRAW_SCRIPT``, so a build can tell
    whether its copy is current."""
    import hashlib

    import vl_convert as vlc

    draw = hashlib.sha256(DRAW_SCRIPT.read_bytes()).hexdigest()[:12]
    return (f"/* {BUNDLE_FILE}: Vega {vlc.get_vega_version()}, Vega-Lite {_vl_version()}, vega-embed "
            f"{vlc.get_vega_embed_version()}, bundled by vl-convert {vlc.__version__} with draw.js {draw} for the "
            "minidb book. */\n")


def _vl_version() -> str:
    """The Vega-Lite 'major.minor' of the specs Altair writes, as vl-convert names its bundled versions."""
    return ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
