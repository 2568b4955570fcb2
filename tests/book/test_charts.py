"""minidb.book.charts: engine colours, published beside reproduced, counted IO, the theme and offline rendering."""

from __future__ import annotations

import json
import re

import altair as alt
import pandas as pd
import pytest

from minidb import data
from minidb.book import charts
from minidb.storage import SimDevice


@pytest.fixture
def altair_state():
    """Restore Altair's active theme and renderer after a test that enables the book's."""
    theme, renderer = alt.theme.active, alt.renderers.active
    yield
    alt.theme.enable(theme)
    alt.renderers.enable(renderer)


def published_rates() -> pd.DataFrame:
    return data.load("insert_benchmark_rates")


def reproduced_rates() -> pd.DataFrame:
    return pd.DataFrame({
        "engine": ["btree", "lsm", "btree", "lsm"],
        "workload": ["in-memory", "in-memory", "io-bound", "io-bound"],
        "inserts_per_sec": [210_000.0, 90_000.0, 40_000.0, 95_000.0],
    })


# -- engines and colours -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, kind", [
    ("InnoDB-5.7.10", "btree"), ("innodb", "btree"), ("btree", "btree"), ("B+tree", "btree"),
    ("MyRocks", "lsm"), ("rocksdb", "lsm"), ("LSM", "lsm"), ("nvme", None), ("foreground", None),
])
def test_engine_kind(name, kind):
    assert charts.engine_kind(name) == kind


def test_engine_scale_gives_btrees_blues_and_lsms_oranges_in_order():
    scale = charts.engine_scale(["MyRocks", "InnoDB-5.7", "InnoDB-5.6", "MyRocks", "lsm", "device"]).to_dict()
    assert scale["domain"] == ["MyRocks", "InnoDB-5.7", "InnoDB-5.6", "lsm", "device"]
    assert scale["range"] == [charts.SHADES["lsm"][0], charts.SHADES["btree"][0], charts.SHADES["btree"][1],
                              charts.SHADES["lsm"][1], charts.OTHER_COLOR]


@pytest.mark.parametrize("column, title", [
    ("inserts_per_sec", "inserts/s"), ("wkb_per_insert", "wKB/insert"), ("size_gb", "size (GB)"),
    ("write_kb_per_sec", "write KB/s"), ("tps", "TPS"), ("cpu_user_pct", "CPU user (%)"), ("clients", "clients"),
])
def test_axis_titles_say_the_unit(column, title):
    assert charts.axis_title(column) == title


# -- published and reproduced on one axis ---------------------------------------------------------------------------
def layers_by_name(spec: dict) -> dict:
    return {layer.get("name"): layer for layer in spec["layer"] if layer.get("name")}


def rows_of(spec: dict, layer: dict) -> list[dict]:
    return spec["datasets"][layer["data"]["name"]]


def published_kb() -> pd.DataFrame:
    from minidb.experiments import f1_insert_benchmark as f1

    frame = f1.published()  # InnoDB-5.7 and MyRocks, in memory and IO-bound, from insert_benchmark_by_storage
    out = frame.rename(columns={"wkb_per_op": "wkb_per_insert"})
    out.attrs = frame.attrs
    return out


def reproduced_kb() -> pd.DataFrame:
    return pd.DataFrame({"engine": ["btree", "lsm", "btree", "lsm"], "config": ["in-memory"] * 2 + ["io-bound"] * 2,
                         "wkb_per_insert": [3.1, 2.9, 9.5, 3.3]})


def test_compare_rows_puts_both_on_one_axis_with_ours_drawn_over_the_published():
    spec = charts.compare_rows(published_kb(), reproduced_kb(), "wkb_per_insert", row="config", title="KB",
                               note="scale tiny").to_dict()
    layers = layers_by_name(spec)
    names = [layer.get("name") for layer in spec["layer"]]
    assert names.index("published") < names.index("reproduced"), "ours are drawn last, over the published"
    published, reproduced = layers["published"], layers["reproduced"]
    assert {r["engine"] for r in rows_of(spec, published)} == {"InnoDB-5.7", "MyRocks"}
    assert {r["engine"] for r in rows_of(spec, reproduced)} == {"btree", "lsm"}
    for layer in (published, reproduced):  # one axis, one unit
        assert layer["encoding"]["x"]["field"] == "wkb_per_insert"
        assert layer["encoding"]["x"]["title"] == "wKB/insert"
    # each row pairs a published figure with ours: its family and its configuration, never an empty slot
    rows = {r["row"] for r in rows_of(spec, published)} | {r["row"] for r in rows_of(spec, reproduced)}
    assert rows == {"B+tree, in-memory", "B+tree, io-bound", "LSM, in-memory", "LSM, io-bound"}
    assert published["encoding"]["y"]["sort"] == ["B+tree, in-memory", "B+tree, io-bound", "LSM, in-memory",
                                                  "LSM, io-bound"]
    # one legend: stroke, fill and shape of the same field and domain; published hollow diamonds, ours filled dots
    domain = published["encoding"]["shape"]["scale"]["domain"]
    assert domain == ["InnoDB-5.7 (published)", "btree (minidb)", "MyRocks (published)", "lsm (minidb)"]
    for channel in ("stroke", "fill", "shape"):
        assert published["encoding"][channel] == reproduced["encoding"][channel]
        assert published["encoding"][channel]["field"] == "series"
    assert published["encoding"]["shape"]["scale"]["range"] == ["diamond", "circle", "diamond", "circle"]
    assert published["encoding"]["fill"]["scale"]["range"][::2] == ["white", "white"]
    strokes = published["encoding"]["stroke"]["scale"]["range"]
    assert strokes == [charts.SHADES["btree"][0]] * 2 + [charts.SHADES["lsm"][0]] * 2, "a family, a colour"
    assert spec["width"] == "container"
    assert spec["title"]["text"] == ["KB"]
    assert " ".join(spec["title"]["subtitle"]) == (
        "Published: Mark Callaghan (Small Datum blog), \u201cThe value of write efficiency for the insert benchmark"
        "\u201d (2017-01-23) minidb: scale tiny")
    assert charts.problems(spec) == []


def test_compare_rows_joins_the_two_figures_of_a_row_and_draws_a_row_one_frame_has_alone():
    pub = pd.DataFrame({"engine": ["MyRocks"], "behaviour": ["2018 bug"], "lost": [100]})
    ours = pd.DataFrame({"engine": ["lsm", "lsm", "btree"], "behaviour": ["2018 bug", "fixed", "InnoDB-like"],
                         "lost": [100, 0, 0]})
    spec = charts.compare_rows(pub, ours, "lost", row="behaviour").to_dict()
    gap = spec["layer"][0]
    assert gap["mark"]["type"] == "rule"
    assert rows_of(spec, gap) == [{"row": "LSM, 2018 bug", "low": 100, "high": 100}], "only where both are"
    assert {r["row"] for r in rows_of(spec, layers_by_name(spec)["reproduced"])} == {
        "LSM, 2018 bug", "LSM, fixed", "B+tree, InnoDB-like"}


def test_compare_lines_draws_the_published_dashed_and_ours_solid_in_one_plot():
    from minidb.experiments import f3_memory_sweep as f3

    pub = f3.published()
    ours = pd.DataFrame({"engine": ["btree", "btree", "lsm", "lsm"], "memory_gb": [5, 100, 5, 100],
                         "tps_vs_largest": [0.2, 1.0, 0.9, 1.0]})
    spec = charts.compare_lines(pub, ours, "memory_gb", "tps_vs_largest", title="share",
                                y_title="TPS / TPS at the largest memory").to_dict()
    lines = [layer for layer in spec["layer"] if layer["mark"]["type"] == "line"]
    assert [line["mark"].get("strokeDash") for line in lines] == [[5, 3], None]
    points = layers_by_name(spec)
    assert points["published"]["mark"]["type"] == points["reproduced"]["mark"]["type"] == "point"
    assert points["reproduced"]["encoding"]["y"]["title"] == "TPS / TPS at the largest memory"
    assert [layer.get("name") for layer in spec["layer"]].index("reproduced") == len(spec["layer"]) - 1
    assert spec["width"] == "container" and charts.problems(spec) == []


def test_stacked_panels_say_they_have_their_own_y_scale():
    ours = pd.DataFrame({"engine": ["btree", "lsm"], "memory_gb": [5, 5], "tps": [210.0, 640.0]})
    spec = charts.stacked(data.load("tpcc_memory_sweep"), ours, x="memory_gb", y="tps").to_dict()
    assert spec["resolve"]["scale"]["y"] == "independent"
    titles = [" ".join(panel["title"]["text"]) for panel in spec["vconcat"]]
    assert titles == ["Published (own y scale)", "Reproduced by minidb (own y scale)"]
    assert charts.problems(spec) == []


def test_comparisons_name_the_missing_column_and_frame():
    reproduced = reproduced_rates().rename(columns={"engine": "structure"})
    with pytest.raises(ValueError, match=r"the reproduced frame has no column 'engine'"):
        charts.compare_rows(published_rates(), reproduced, "inserts_per_sec", row="workload")


def test_heading_wraps_a_title_and_its_notes_for_a_phone():
    title = charts.heading("Throughput by the IOPS bought (io1), over the B+tree's on 30,000", "a " * 40)
    assert all(len(line) <= charts.TITLE_CHARS for line in title.text)
    assert all(len(line) <= charts.SUBTITLE_CHARS for line in title.subtitle)
    assert charts.heading(None) is alt.Undefined


# -- the rules every chart keeps -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, found", [
    ("wkb_per_insert", {"KB"}), ("MB in the level", {"MB"}), ("size_mb", {"MB"}), ("peak memory (bytes)", {"bytes"}),
    ("log_bytes_per_row", {"bytes"}), ("Size", set()), ("inserts/s", set()), ("MiB in level", {"MB"}),
    ("TPS / TPS with 16 KiB pages", set()), ("TPS / TPS at 3,400 GB", set()), ("gp2 volume (GB)", {"GB"}),
])
def test_units_are_read_from_names_and_titles(text, found):
    assert charts.units(text) == found


def test_an_axis_whose_title_says_mb_over_a_column_of_bytes_is_a_problem():
    levels = pd.DataFrame({"Level": ["L5", "L6"], "Size": [0, 4_227_000]})  # bytes, as compaction_stats gives them
    wrong = alt.Chart(levels).mark_bar().encode(x="Level:N", y=alt.Y("Size:Q", title="MB in the level"))
    (problem,) = charts.problems(wrong)
    assert "titled 'MB in the level' plots 'Size'" in problem
    mislabelled = alt.Chart(levels).mark_bar().encode(x="Level:N", y=alt.Y("size_bytes:Q", title="size (MB)"))
    assert charts.problems(mislabelled)
    right = alt.Chart(levels.assign(size_mb=levels.Size / 2**20)).mark_bar().encode(
        x="Level:N", y=alt.Y("size_mb:Q", title="size of the level (MB)"))
    assert charts.problems(right) == []


def test_coloured_bars_that_would_stack_must_say_so_or_be_grouped():
    rates = pd.DataFrame({"engine": ["a", "a"], "cache": ["in-memory", "5%"], "rows_per_sec": [10.0, 4.0]})
    summed = alt.Chart(rates).mark_bar().encode(x="rows_per_sec:Q", y="engine:N", color="cache:N")
    assert "stack" in " ".join(charts.problems(summed)), "Vega-Lite would draw the sum of the two rates"
    grouped = summed.encode(yOffset="cache:N")
    parts = alt.Chart(rates).mark_bar().encode(x=alt.X("rows_per_sec:Q", stack="zero"), y="engine:N",
                                               color="cache:N")
    assert charts.problems(grouped) == charts.problems(parts) == []


def test_panels_side_by_side_wide_panels_and_long_titles_are_problems():
    one = alt.Chart(reproduced_rates()).mark_point().encode(x="workload:N", y="inserts_per_sec:Q")
    assert "side by side" in " ".join(charts.problems(one | one))
    assert "px wide" in " ".join(charts.problems(one.properties(width=600)))
    assert "characters" in " ".join(charts.problems(one.properties(title="x" * 60)))
    assert charts.problems(one.properties(width="container", title=charts.heading("x " * 40))) == []


def test_panel_rejects_unknown_marks():
    with pytest.raises(ValueError, match="unknown mark 'pie'"):
        charts.panel(reproduced_rates(), x="workload", y="inserts_per_sec", mark="pie")


# -- counted IO ------------------------------------------------------------------------------------------------------
def test_io_by_kind_charts_the_counted_bytes():
    dev = SimDevice()
    wal = dev.open("1.log", kind="wal", create=True)
    wal.append(b"x" * 300)
    wal.sync()
    with dev.stats.cause("flush"):
        sst = dev.open("2.sst", kind="sst", create=True)
        sst.append(b"y" * 4096)
        wal.read(0, 300)
    spec = charts.io_by_kind(dev.stats.to_frame(), title="demo").to_dict()
    rows = {(r["kind"], r["cause"], r["direction"]): r["bytes"] for r in spec["datasets"][spec["data"]["name"]]}
    assert rows == {("wal", "foreground", "written"): 300, ("sst", "flush", "written"): 4096,
                    ("wal", "flush", "read"): 300}
    assert spec["facet"]["field"] == "direction" and spec["columns"] == 1, "read above written"
    assert charts.problems(spec) == []
    color = spec["spec"]["encoding"]["color"]["scale"]
    assert color["domain"] == ["foreground", "flush"]
    assert color["range"] == [charts.CAUSE_COLORS["foreground"], charts.CAUSE_COLORS["flush"]]


def test_io_by_kind_needs_an_iostats_frame():
    with pytest.raises(ValueError, match="io_by_kind needs the columns"):
        charts.io_by_kind(pd.DataFrame({"kind": ["wal"]}))


# -- theme and renderers -------------------------------------------------------------------------------------------
def test_enable_offline_sets_the_theme_and_the_offline_renderer(altair_state):
    charts.enable(offline=True)
    assert alt.theme.active == charts.THEME
    assert alt.renderers.active == charts.RENDERER
    spec = charts.panel(reproduced_rates(), x="workload", y="inserts_per_sec").to_dict()
    assert spec["config"]["font"] == charts.FONT
    bundle = alt.renderers.get()(spec)
    assert set(bundle) == {"text/html", "text/plain"}


def test_enable_follows_the_environment(altair_state, monkeypatch):
    monkeypatch.setenv(charts.OFFLINE_ENV, "1")
    charts.enable()
    assert alt.renderers.active == charts.RENDERER
    monkeypatch.delenv(charts.OFFLINE_ENV)
    charts.enable()
    assert alt.renderers.active == charts.NOTEBOOK_RENDERER


def test_notebook_charts_render_without_the_network(altair_state):
    # A front end without a Vega renderer (GitHub, nbconvert, the classic Notebook) shows this SVG as is: no script,
    # nothing fetched.
    charts.enable(offline=False)
    spec = charts.panel(reproduced_rates(), x="workload", y="inserts_per_sec").to_dict()
    bundle = alt.renderers.get()(spec)
    svg = bundle["image/svg+xml"]
    assert svg.lstrip().startswith("<svg") and "inserts" in svg.lower()
    assert not re.search(r"https?://(cdn|unpkg)|<script", svg)


def test_notebook_charts_hand_jupyterlab_the_spec_for_its_own_vega(altair_state):
    # JupyterLab 4 and Notebook 7 draw this MIME type with the Vega-Lite 5 they bundle: interactive, offline.
    charts.enable(offline=False)
    spec = charts.panel(reproduced_rates(), x="workload", y="inserts_per_sec").to_dict()
    bundle = alt.renderers.get()(spec)
    assert set(bundle) == {charts.JUPYTER_VEGALITE_MIME, "image/svg+xml", "text/plain"}
    lab = bundle[charts.JUPYTER_VEGALITE_MIME]
    assert lab["$schema"] == charts.JUPYTER_VEGALITE_SCHEMA
    assert {k: v for k, v in lab.items() if k != "$schema"} == {k: v for k, v in spec.items() if k != "$schema"}


def test_the_books_charts_compile_with_vega_lite_5():
    # JupyterLab 4 bundles Vega-Lite 5.6; vl-convert's oldest is 5.8: a spec it compiles uses nothing of 6.
    import vl_convert as vlc

    chart = charts.compare_rows(published_kb(), reproduced_kb(), "wkb_per_insert", row="config")
    vega = vlc.vegalite_to_vega(charts.jupyter_spec(chart.to_dict()), vl_version="5.8")
    assert vega["marks"], "the bars compile to Vega marks"


def test_offline_html_draws_with_the_bundle_and_loads_nothing():
    spec = charts.panel(reproduced_rates(), x="workload", y="inserts_per_sec",
                        title="a </script> in a title").to_dict()
    html = charts.offline_html(spec, div_id="chart-1")
    assert html.startswith('<div id="chart-1" class="minidb-chart"></div>')
    assert "window.minidbDraw(el, spec)" in html
    assert html.count("</script>") == 1  # the one closing the element: the title's was escaped
    assert not re.search(r"<script[^>]*\bsrc=|<link|import\(|fetch\(", html)
    payload = re.search(r"var spec = (\{.*\});\n", html).group(1)
    drawn = json.loads(payload.replace("<\\/", "</"))
    assert drawn == {**spec, "description": "Chart: a </script> in a title"}, "the SVG's accessible name"


def test_vega_bundle_is_wrapped_and_presets_altairs_versions():
    from altair.vegalite.v6 import display

    js = charts.vega_bundle()
    assert js.startswith(charts.bundle_header() + "(function () {\n")
    assert js.endswith("\n})();\n")
    for name in ("vegaEmbed", "vega", "vegaLite", "minidbDraw"):  # the bundler renames the right-hand sides
        assert re.search(rf"window\.{name}\s*=", js), name
    preset = re.search(r"Object\.assign\(window\.VEGA_DEBUG\s*\|\|\s*\{\},\s*(\{[^}]*\})\)", js).group(1)
    preset = json.loads(preset)
    assert preset == {"vega_version": display.VEGA_VERSION, "vegalite_version": display.VEGALITE_VERSION,
                      "vegaembed_version": display.VEGAEMBED_VERSION}
    assert len(js) > 500_000  # Vega, Vega-Lite and vega-embed themselves are in it
