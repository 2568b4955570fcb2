"""Altair helpers for the book: one look, one colour per engine family, published beside reproduced, offline.

* ``enable()`` turns on the book's theme and, while the book is built, the offline ``minidb`` renderer; in a
  notebook opened in Jupyter, the ``minidb-notebook`` renderer (the front end's own Vega draws the chart, sliders and
  all, with a static SVG for front ends that have none: offline too). Call it once at the top of a chapter or
  exercise.
* ``engine_kind(name)`` says whether an engine name (``InnoDB-5.7``, ``MyRocks``, ``btree``, ...) is a B+tree or
  an LSM; ``engine_scale(names)`` gives B+trees shades of blue and LSMs shades of orange, in every chart.
* ``side_by_side(published, reproduced, x=..., y=...)`` puts a published table (from ``minidb.data``) and the
  engines' counted result next to each other with the same axes, the same units and the same colours.
* ``io_by_kind(frame)`` charts ``IOStats.to_frame()``: bytes read and written per file kind, split by cause.

**Offline rendering.** The built book must show charts with no network. Altair's stock HTML output fetches Vega
from a CDN, so the ``minidb`` renderer instead emits a ``<div>`` and a script that calls ``window.vegaEmbed``,
which the book's static file ``minidb-vega.js`` defines. ``vega_bundle()`` makes that file from vl-convert's
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
import uuid

import altair as alt

from .. import data, engines

THEME = "minidb"  # name of the book's Altair theme
RENDERER = "minidb"  # name of the book's offline Altair renderer
BUNDLE_FILE = "minidb-vega.js"  # the book's static file defining window.vegaEmbed
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
PANEL_WIDTH = 210  # pixels per panel: two panels, their axes and titles fit the book's text column (about 600 px)
PANEL_HEIGHT = 200


# -- engines and colours ------------------------------------------------------------------------------------------
engine_kind = engines.kind_of  # 'btree' for 'InnoDB-5.7.10', 'lsm' for 'MyRocks', ...; None for no engine


def engine_scale(names) -> alt.Scale:
    """A colour scale over ``names`` (in that order) with B+trees in blues and LSMs in oranges."""
    domain = list(dict.fromkeys(str(n) for n in names))
    used = dict.fromkeys(SHADES, 0)
    colors = []
    for name in domain:
        kind = engine_kind(name)
        if kind is None:
            colors.append(OTHER_COLOR)
            continue
        shades = SHADES[kind]
        colors.append(shades[used[kind] % len(shades)])
        used[kind] += 1
    return alt.Scale(domain=domain, range=colors)


# -- the theme ---------------------------------------------------------------------------------------------------
def theme() -> dict:
    """The book's Altair theme: system fonts (nothing fetched), quiet axes, a default panel size."""
    return {
        "config": {
            "font": FONT,
            "view": {"continuousWidth": PANEL_WIDTH, "continuousHeight": PANEL_HEIGHT, "stroke": None},
            "axis": {"labelFontSize": 11, "titleFontSize": 12, "gridColor": "#e6e6e6", "domainColor": "#888"},
            "legend": {"labelFontSize": 11, "titleFontSize": 12, "orient": "bottom"},
            "title": {"fontSize": 14, "anchor": "start", "subtitleFontSize": 11, "subtitleColor": "#555"},
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


# -- published beside reproduced ---------------------------------------------------------------------------------
def side_by_side(published, reproduced, x: str, y: str, color: str | None = None, title: str | None = None,
                 mark: str = "line", y_title: str | None = None, reproduced_note: str = "",
                 y_scale: str = "shared") -> alt.HConcatChart:
    """Two panels with shared x and colour scales: the published table and the engines' counted result.

    ``x``, ``y`` and ``color`` are column names present in both frames, optionally with an Altair type
    (``"clients:O"``); the y column must be the same quantity in the same unit in both, which its name says
    (``inserts_per_sec``). ``mark`` is ``line`` (with points), ``bar`` (grouped by colour) or ``point``. The
    published panel's subtitle cites the post when the frame came from ``minidb.data.load``. ``y_scale`` is
    ``shared`` (one y axis: the same quantity, comparable as values) or ``independent`` (each panel its own y
    axis, for a modelled rate beside a measured one whose shapes, not values, compare; each panel's title says so).
    """
    if y_scale not in ("shared", "independent"):
        raise ValueError(f"side_by_side: y_scale must be 'shared' or 'independent', got {y_scale!r}")
    own = " (own y scale)" if y_scale == "independent" else ""
    for label, frame in (("published", published), ("reproduced", reproduced)):
        _require_columns(frame, (x, y, color), f"side_by_side: the {label} frame")
    color_scale = None
    if color:
        cname = color.split(":")[0]
        color_scale = engine_scale([*published[cname].astype(str), *reproduced[cname].astype(str)])
    name = published.attrs.get("name")
    left = panel(published, x, y, color, mark=mark, y_title=y_title, color_scale=color_scale,
                 title=alt.Title(f"Published{own}", subtitle=data.cite(name) if name else ""))
    right = panel(reproduced, x, y, color, mark=mark, y_title=y_title, color_scale=color_scale,
                  title=alt.Title(f"Reproduced by minidb{own}", subtitle=reproduced_note))
    chart = alt.hconcat(left, right, title=title or alt.Undefined)
    return chart.resolve_scale(x="shared", y=y_scale, color="shared")


_MARKS = ("line", "bar", "point")  # the marks panel() draws


def _require_columns(frame, shorthands, what: str) -> None:
    """Raise ValueError naming ``what`` if a column of the Altair shorthands (``"clients:O"``) is missing."""
    for shorthand in shorthands:
        if shorthand and shorthand.split(":")[0] not in frame.columns:
            raise ValueError(f"{what} has no column {shorthand.split(':')[0]!r} "
                             f"(columns: {', '.join(map(str, frame.columns))})")


def panel(frame, x: str, y: str, color: str | None = None, mark: str = "line", title=None,
          y_title: str | None = None, color_scale: alt.Scale | None = None) -> alt.Chart:
    """One chart in the book's conventions (engine colours, readable axis titles); ``side_by_side`` uses two."""
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
    base = alt.Chart(frame, title=title if title is not None else alt.Undefined, width=PANEL_WIDTH,
                     height=PANEL_HEIGHT)
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
    import pandas as pd

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
def io_by_kind(frame, title: str | None = None) -> alt.Chart:
    """Bytes read and written per file kind, coloured by cause, from ``IOStats.to_frame()`` (one row per label)."""
    needed = {"kind", "cause", "read_bytes", "write_bytes"}
    if not needed <= set(frame.columns):
        raise ValueError(f"io_by_kind needs the columns of IOStats.to_frame() {sorted(needed)}, "
                         f"got {list(frame.columns)}")
    long = frame.melt(id_vars=["kind", "cause"], value_vars=["read_bytes", "write_bytes"],
                      var_name="direction", value_name="bytes")
    long["direction"] = long["direction"].map({"read_bytes": "read", "write_bytes": "written"})
    long = long[long["bytes"] > 0].groupby(["kind", "cause", "direction"], as_index=False)["bytes"].sum()
    return (
        alt.Chart(long, title=title or alt.Undefined, width=PANEL_WIDTH, height=28 * max(1, long.kind.nunique()))
        .mark_bar()
        .encode(
            y=alt.Y("kind:N", title="file kind", sort="-x"),
            x=alt.X("sum(bytes):Q", title="bytes"),
            color=alt.Color("cause:N", title="cause", scale=cause_scale(long["cause"])),
            column=alt.Column("direction:N", title=None),
            tooltip=["kind", "cause", "direction", "bytes"],
        )
    )


def cause_scale(causes) -> alt.Scale:
    """A colour scale over the IO causes present, in ``CAUSES`` order, with the book's cause colours."""
    from ..storage import CAUSES

    present = set(causes)
    domain = [c for c in CAUSES if c in present] + sorted(present - set(CAUSES))
    return alt.Scale(domain=domain, range=[CAUSE_COLORS.get(c, OTHER_COLOR) for c in domain])


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


def offline_html(spec: dict, div_id: str | None = None) -> str:
    """A ``<div>`` and a script drawing ``spec`` with ``window.vegaEmbed``; it loads nothing from anywhere."""
    div_id = div_id or f"minidb-chart-{uuid.uuid4().hex[:12]}"
    # '</' inside a string of the spec would end the <script> element early.
    payload = json.dumps(spec, separators=(",", ":")).replace("</", "<\\/")
    options = json.dumps({"actions": {"export": True, "source": False, "compiled": False, "editor": False}})
    return (
        f'<div id="{div_id}" class="minidb-chart"></div>\n'
        '<script type="text/javascript">\n'
        "(function () {\n"
        f"  var spec = {payload};\n"
        "  function draw() {\n"
        f'    var el = document.getElementById("{div_id}");\n'
        '    if (typeof window.vegaEmbed !== "function") {\n'
        f'      el.textContent = "This chart needs {BUNDLE_FILE}, the Vega library bundled with the book.";\n'
        "      return;\n"
        "    }\n"
        # the drawn view stays on its element (el.vegaView): a reader's console, or a test, can ask what it draws
        f"    window.vegaEmbed(el, spec, {options}).then(function (result) {{ el.vegaView = result.view; }})"
        ".catch(function (err) {\n"
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

    Defines ``window.vegaEmbed``, ``window.vega`` and ``window.vegaLite`` and presets ``window.VEGA_DEBUG``;
    everything else stays inside a function so it cannot clash with other scripts of the page.
    """
    import vl_convert as vlc
    from altair.vegalite.v6 import display

    preset = {"vega_version": display.VEGA_VERSION, "vegalite_version": display.VEGALITE_VERSION,
              "vegaembed_version": display.VEGAEMBED_VERSION}
    snippet = (
        "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;\n"
        f"window.VEGA_DEBUG = Object.assign(window.VEGA_DEBUG || {{}}, {json.dumps(preset)});\n"
    )
    body = vlc.javascript_bundle(snippet=snippet, vl_version=_vl_version())
    return f"{bundle_header()}(function () {{\n{body}\n}})();\n"


def bundle_header() -> str:
    """The first line of ``vega_bundle()``: the library versions, so a build can tell whether its copy is current."""
    import vl_convert as vlc

    return (f"/* {BUNDLE_FILE}: Vega {vlc.get_vega_version()}, Vega-Lite {_vl_version()}, vega-embed "
            f"{vlc.get_vega_embed_version()}, bundled by vl-convert {vlc.__version__} for the minidb book. */\n")


def _vl_version() -> str:
    """The Vega-Lite 'major.minor' of the specs Altair writes, as vl-convert names its bundled versions."""
    return ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
