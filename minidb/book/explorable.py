"""Explorable charts: a precomputed sweep embedded in the page, with sliders and dropdowns that pick what is drawn.

A reader of the published book runs no Python, but the experiments are deterministic sweeps over a few parameters.
So the book runs the sweep at build time (through the cached sweep runner), embeds the whole grid in the page, and
lets Vega-Lite filter it in the browser: each control is a Vega-Lite parameter, and the drawn marks are the grid
rows whose columns equal the parameters' values. A number swept over ``SLIDER_MIN_VALUES`` values or more gets a
slider: over the values themselves when they are evenly spaced, else over their steps (a cache that doubles, the
IOPS the post bought), with the value the step stands for written above the plot and, in the built book, beside the
slider (``charts``' draw.js); anything else gets a dropdown. The published points stay on the chart as fixed marks
(hollow black diamonds, in the legend), so the reader sees where the post stands in the space they explore, with the
chosen rows drawn over them; every grid row stays drawn faintly behind, so the reader sees the whole space too
(every row of the metric shown, when a ``metric`` control says what the y axis holds: another metric is another
unit, and the y axis's title is then the metric chosen). ``mark="point"`` draws categories on x as points,
``x_scale="log"`` suits a parameter swept by doubling. The chart is as wide as the text column.

    chart = explorable(grid, x="cache_pct", y="reads_per_insert", controls=["change_buffer"], color="engine",
                       published=pub)

``long_form`` turns a run's frame into (metric, value) rows, so that one control chooses what the chart shows.
A row whose control column holds ``ANY`` (``"n/a"``: an LSM has no change buffer, no doublewrite) is a run the
control does not apply to: it stays drawn whatever the control says, and the control does not offer ``ANY``.

Everything is data in the chart's spec: it works in the built site with the network off (the book's bundled Vega)
and in plain Jupyter (JupyterLab and Notebook 7 draw it with their own Vega: see ``charts.enable``). ``explorable``
refuses a grid whose embedded rows would pass ``MAX_EMBED_BYTES`` unless it may thin it (``thin=True``, the
default): then it keeps every ``k``-th value of the x column and says so in the chart's subtitle (and in
``chart_note(chart)``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd

from . import charts

MAX_EMBED_BYTES = 1_000_000  # most bytes of grid rows one chart embeds in a page (the "about 1 MB")
SLIDER_MIN_VALUES = 4  # a numeric control with at least this many values gets a slider
READOUT_LINE = 14  # pixels between the lines above the plot: the y axis's title, the step sliders' values
GHOST_COLOR = "#d0d0d0"  # every grid row, drawn behind the chosen ones
PUBLISHED_COLOR = "#000000"  # the published points: black, whatever the engine
CHOSEN = "chosen"  # name of the layer drawing the rows the controls pick (its Vega marks: "chosen_marks")
PUBLISHED = charts.PUBLISHED  # name of the layer of published points
PUBLISHED_LABEL = "published (the post)"  # the published points' legend entry
SIGNIFICANT_DIGITS = 4  # floats in the embedded rows: enough for a chart, and a third of the bytes of repr()
ANY = "n/a"  # a control column's value in rows the control does not apply to: chosen whatever it says
METRIC = "metric"  # long_form's column naming what ``value`` holds: rows of other metrics never share the y axis
MARKS = ("line", "point")  # how the chosen rows are drawn: joined along x, or as points (x a set of categories)
SCALES = ("linear", "log")  # the x axis: a log axis for a parameter swept by doubling


def explorable(grid: pd.DataFrame, x: str, y: str, controls: list[str], *, color: str | None = None,
               published: pd.DataFrame | None = None, start: dict | None = None, title: str | None = None,
               width: int | str = charts.WIDTH, height: int = 240, max_bytes: int = MAX_EMBED_BYTES,
               thin: bool = True, mark: str = "line", x_scale: str = "linear") -> alt.LayerChart:
    """A chart of ``y`` against ``x`` over the rows of ``grid`` chosen by one control per column of ``controls``.

    ``start`` gives a control's first value (default: its smallest). ``published`` holds the post's points in the
    same ``x`` and ``y`` columns (and ``color``, if given): drawn always, whatever the controls say. ``mark`` is one
    of ``MARKS``, ``x_scale`` one of ``SCALES``.
    """
    needed = list(dict.fromkeys([x, y, *controls] + ([color] if color else [])))  # x may be the colour too
    _require(grid, needed, "the grid")
    if not controls:
        raise ValueError("explorable: give at least one control column (else a plain chart does the job)")
    if x in controls or y in controls:
        raise ValueError(f"explorable: the axes {x!r} and {y!r} cannot also be controls")
    if mark not in MARKS:
        raise ValueError(f"explorable: unknown mark {mark!r}; use one of {', '.join(MARKS)}")
    if x_scale not in SCALES:
        raise ValueError(f"explorable: unknown x_scale {x_scale!r}; use one of {', '.join(SCALES)}")
    rows, note = _embeddable(grid[needed], x, max_bytes, thin)
    params, conditions, readouts, steps = [], [], [], {}
    for column in controls:
        control = _control(rows[column], column, (start or {}).get(column))
        params.extend(control.params)
        conditions.append((alt.datum[column] == control.value) | (alt.datum[column] == ANY))
        if control.readout is not None:
            readouts.append(control.readout)
            steps[control.params[0].name] = {"values": control.steps, "unit": _unit(column)}
    chosen = conditions[0]
    for cond in conditions[1:]:
        chosen = chosen & cond

    nominal = _type(rows[x]) == "N"
    x_enc = alt.X(f"{x}:{_type(rows[x])}", title=_title(x),
                  scale=alt.Scale(type=x_scale) if x_scale != "linear" else alt.Undefined,
                  sort=[_plain(v) for v in dict.fromkeys(rows[x])] if nominal else alt.Undefined,  # the grid's order
                  axis=alt.Axis(labelAngle=0) if nominal else alt.Undefined)
    # the y axis holds one metric at a time when a control picks it: its title is the metric chosen, written above
    # the plot, as Vega-Lite's axis titles cannot follow a parameter
    picks_metric = METRIC in controls
    y_enc = alt.Y(f"{y}:Q", title=None if picks_metric else _title(y))
    above = ([_param_name(METRIC)] if picks_metric else []) + readouts
    detail = [alt.Detail(f"{c}:N") for c in controls + ([color] if color else [])]
    base = alt.Chart(rows, width=width, height=height)
    # every row, faintly: lines alone (points on every row of a long series would bury the chosen one), or points
    ghost = (base.mark_line(color=GHOST_COLOR) if mark == "line"
             else base.mark_point(filled=True, color=GHOST_COLOR, size=40)).encode(x=x_enc, y=y_enc, detail=detail)
    for column, cond in zip(controls, conditions):
        if column == METRIC:  # another metric is another unit: the grey rows are the chosen metric's
            ghost = ghost.transform_filter(cond)
    enc = {"x": x_enc, "y": y_enc, "tooltip": list(dict.fromkeys(needed))}
    if color:
        names = rows[color].astype(str)
        # engines in the book's engine colours (B+tree blue, LSM orange), anything else in the theme's
        scale = charts.engine_scale(names) if any(map(charts.engine_kind, names)) else alt.Undefined
        enc["color"] = alt.Color(f"{color}:N", title=_title(color), scale=scale)
    drawn = base.mark_line(point=True, strokeWidth=2.5) if mark == "line" else base.mark_point(filled=True, size=90)
    shown = drawn.encode(**enc).add_params(*params).transform_filter(chosen).properties(name=CHOSEN)
    layers = [ghost]
    if published is not None and len(published):
        _require(published, [x, y], "the published frame")
        # hollow and larger than ours, and under them: a run of ours on a published point shows inside its diamond
        marks = alt.Chart(published.assign(source=PUBLISHED_LABEL)).mark_point(
            filled=False, size=170, strokeWidth=2, color=PUBLISHED_COLOR).properties(name=PUBLISHED).encode(
            x=x_enc, y=alt.Y(f"{y}:Q"),
            shape=alt.Shape("source:N", scale=alt.Scale(domain=[PUBLISHED_LABEL], range=["diamond"]),
                            legend=alt.Legend(title=None, symbolStrokeColor=PUBLISHED_COLOR, symbolStrokeWidth=2)),
            tooltip=[c for c in dict.fromkeys((x, y, color, *controls, *published.columns))  # and what it is
                     if c and c in published.columns])
        # a published point follows the controls it has a column for (the metric shown, say), and no others
        shared = [cond for column, cond in zip(controls, conditions) if column in published.columns]
        for cond in shared:
            marks = marks.transform_filter(cond)
        layers.append(marks)
    layers.append(shown)
    layers.extend(_text_above(text, i) for i, text in enumerate(above))
    # usermeta is Vega-Lite's place for a tool's own data: the note travels with the spec, unseen by the renderer,
    # and so do the values of the step sliders, which the book's draw.js writes beside them
    # a thinned grid says so under the title, where the reader sees it
    heading = charts.heading(title, note)
    return alt.layer(*layers, title=heading, usermeta={"minidb": {"note": note, "steps": steps}})


def long_form(frame: pd.DataFrame, keys: list[str], metrics: dict[str, str]) -> pd.DataFrame:
    """``frame`` with one row per (row, metric): ``keys`` kept, a ``metric`` column holding ``metrics``' labels
    (column -> label) and a ``value`` column; metrics ``frame`` lacks are skipped. A ``metric`` control then lets
    the reader choose what the chart shows. Missing keys (an LSM has no doublewrite) become ``"n/a"``."""
    present = {c: label for c, label in metrics.items() if c in frame.columns}
    out = frame[[*keys, *present]].melt(id_vars=keys, var_name="metric", value_name="value")
    out["metric"] = out["metric"].map(present)
    for key in keys:
        if out[key].isna().any() or out[key].dtype == object:
            out[key] = out[key].astype(object).where(out[key].notna(), "n/a")
    return out.dropna(subset=["value"])


# The readers below take an Altair chart or its spec as a dict.
def chart_note(chart) -> str:
    """What the page should say about the embedded grid: '' when it is whole, else how it was thinned."""
    meta = _spec(chart).get("usermeta", {})
    return meta.get("minidb", {}).get("note", "")


def embedded_rows(chart) -> list[dict]:
    """The grid rows embedded in ``chart``'s spec (the data of its first layer), as a reader's browser gets them."""
    spec = _spec(chart)
    name = spec["layer"][0]["data"]["name"] if "data" in spec["layer"][0] else spec["data"]["name"]
    return spec["datasets"][name]


def bound_params(chart) -> dict[str, dict]:
    """``{parameter name: its bind spec}`` of every control in ``chart``'s spec."""
    return {p["name"]: p["bind"] for p in _all_params(_spec(chart)) if "bind" in p}


def step_values(chart, column: str) -> list | None:
    """The values the step slider of ``column`` in ``chart`` moves over, in order (None if it has none)."""
    name = _param_name(column)
    for param in _all_params(_spec(chart)):
        if param.get("name") == name and "expr" in param:
            return json.loads(param["expr"].rsplit("[", 1)[0])
    return None


def _all_params(spec: dict) -> list[dict]:
    """The parameters of ``spec`` and of its layers."""
    return [*spec.get("params", []), *(p for layer in spec.get("layer", []) for p in layer.get("params", []))]


def _spec(chart) -> dict:
    """The Vega-Lite spec of ``chart``: an Altair chart, or a spec already (as a notebook's output holds it)."""
    return chart if isinstance(chart, dict) else chart.to_dict()


# -- the controls ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Control:
    """What one control adds to the chart: its parameters, the one holding the chosen value, and for a step
    slider the Vega expression of the text saying which value its step stands for (else None)."""

    params: list
    value: alt.Parameter
    readout: str | None = None
    steps: list | None = None  # a step slider's values, in order


def _control(values: pd.Series, column: str, start) -> _Control:
    """The parameter ``pick_<column>`` holding the value chosen by a slider (numbers, see the module docstring)
    or a dropdown."""
    distinct = sorted((v for v in values.dropna().unique().tolist() if v != ANY), key=_sort_key)
    if not distinct:
        raise ValueError(f"explorable: the control {column!r} has no value but {ANY!r}")
    if start is None:
        start = distinct[0]
    elif start not in distinct:
        raise ValueError(f"explorable: start value {start!r} of {column!r} is not in the grid ({distinct})")
    name = _param_name(column)
    numeric = _numbers(distinct) and len(distinct) >= SLIDER_MIN_VALUES
    step = _even_step(distinct) if numeric else None
    if not numeric or step is not None:
        bind = (alt.binding_range(min=distinct[0], max=distinct[-1], step=step, name=f"{_title(column)} ") if numeric
                else alt.binding_select(options=distinct, labels=[str(v) for v in distinct],
                                        name=f"{_title(column)} "))
        param = alt.param(name=name, value=_plain(start), bind=bind)
        return _Control([param], param)
    # uneven numbers: the slider moves over their steps 1..n; a second parameter looks the value up
    plain = [_plain(v) for v in distinct]
    steps = alt.param(name=f"{name}_step", value=distinct.index(start) + 1,
                      bind=alt.binding_range(min=1, max=len(distinct), step=1, name=f"{_title(column)} "))
    value = alt.param(name=name, expr=f"{json.dumps(plain)}[{steps.name} - 1]")
    return _Control([steps, value], value, readout=f"{json.dumps(_title(column) + ': ')} + format({name}, ',')",
                    steps=plain)


def _unit(column: str) -> str:
    """What follows a value of ``column`` when it is written alone: '%' for cache_pct, ' GB' for memory_gb."""
    last = column.rsplit("_", 1)[-1]
    return {"pct": "%", "gb": " GB", "mb": " MB", "kb": " KB", "sec": " s", "iops": " IOPS"}.get(last, "")


def _text_above(text: str, line: int) -> alt.Chart:
    """A line of text above the plot, from the Vega expression ``text``: the y axis's title (the metric chosen), or
    a step slider's value."""
    return alt.Chart(alt.Data(values=[{}])).mark_text(
        align="left", baseline="bottom", x=0, y=-4 - READOUT_LINE * line, fontWeight="bold",
        text=alt.ExprRef(expr=text))


def _numbers(values: list) -> bool:
    """Whether every one of ``values`` is a number (a bool is not)."""
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _even_step(values: list) -> float | None:
    """The step of evenly spaced numeric ``values``, else None."""
    steps = np.diff(np.asarray(values, dtype=float))
    if np.allclose(steps, steps[0], rtol=1e-9, atol=0):
        step = float(steps[0])
        return int(step) if step.is_integer() else step
    return None


def _param_name(column: str) -> str:
    """A Vega-safe parameter name for ``column`` (Vega signal names are identifiers)."""
    safe = "".join(ch if ch.isalnum() else "_" for ch in column)
    return f"pick_{safe}"


# -- the embedded rows ------------------------------------------------------------------------------------------
def _embeddable(frame: pd.DataFrame, x: str, max_bytes: int, thin: bool) -> tuple[pd.DataFrame, str]:
    """``frame`` with floats rounded, thinned along ``x`` if its JSON passes ``max_bytes``; and a note saying so."""
    rows = frame.copy()
    for column in rows.columns:
        if pd.api.types.is_float_dtype(rows[column]):
            rows[column] = rows[column].map(lambda v: float(f"{v:.{SIGNIFICANT_DIGITS}g}") if pd.notna(v) else v)
    size = _json_bytes(rows)
    if size <= max_bytes:
        return rows.reset_index(drop=True), ""
    if not thin:
        raise ValueError(f"explorable: the grid would embed {size:,} bytes, over the {max_bytes:,} allowed; "
                         f"pass thin=True or a coarser grid")
    xs = sorted(rows[x].unique().tolist(), key=_sort_key)
    every = 2
    while True:
        keep = set(xs[::every]) | {xs[-1]}
        thinned = rows[rows[x].isin(keep)]
        if _json_bytes(thinned) <= max_bytes or len(keep) <= 2:
            break
        every += 1
    if _json_bytes(thinned) > max_bytes:
        raise ValueError(f"explorable: even two values of {x!r} embed {_json_bytes(thinned):,} bytes, over "
                         f"{max_bytes:,}: use fewer control values")
    note = (f"The page embeds {len(keep)} of the grid's {len(xs)} values of {_title(x)} (every {every}th, and the "
            f"last) to stay under {max_bytes // 1000:,} KB.")
    return thinned.reset_index(drop=True), note


def _json_bytes(frame: pd.DataFrame) -> int:
    return len(json.dumps(frame.to_dict(orient="records"), separators=(",", ":"), default=str))


# -- small helpers --------------------------------------------------------------------------------------------------
def _require(frame: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"explorable: {what} has no column {missing[0]!r} (columns: {', '.join(frame.columns)})")


def _type(series: pd.Series) -> str:
    return "Q" if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series) else "N"


def _plain(value):
    """A value JSON can hold (numpy scalars become Python numbers)."""
    return value.item() if hasattr(value, "item") else value


def _sort_key(value):
    return (0, value, "") if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, 0, str(value))


def _title(column: str) -> str:
    return charts.axis_title(column)
