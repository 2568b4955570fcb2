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


# -- published beside reproduced -------------------------------------------------------------------------------------
def test_side_by_side_has_both_panels_both_datasets_and_shared_scales():
    pub, rep = published_rates(), reproduced_rates()
    spec = charts.side_by_side(pub, rep, x="workload:N", y="inserts_per_sec:Q", color="engine:N",
                               mark="bar", title="F1", reproduced_note="scale=tiny").to_dict()
    assert spec["resolve"]["scale"] == {"x": "shared", "y": "shared", "color": "shared"}
    left, right = spec["hconcat"]
    for panel, frame in ((left, pub), (right, rep)):
        assert spec["datasets"][panel["data"]["name"]] == frame.to_dict(orient="records")
        assert panel["encoding"]["x"]["field"] == "workload"
        assert panel["encoding"]["y"]["field"] == "inserts_per_sec"
        assert panel["encoding"]["y"]["title"] == "inserts/s"
        assert panel["mark"]["type"] == "bar"
    assert left["encoding"]["color"]["scale"] == right["encoding"]["color"]["scale"]
    assert set(left["encoding"]["color"]["scale"]["domain"]) == set(pub.engine) | set(rep.engine)
    assert left["title"]["text"] == "Published"
    assert left["title"]["subtitle"] == (
        "Mark Callaghan (Small Datum blog), \u201cInsert benchmark, MyRocks and InnoDB\u201d (2017-01-17)")
    assert right["title"] == {"text": "Reproduced by minidb", "subtitle": "scale=tiny"}
    assert spec["title"] == "F1"


def test_side_by_side_without_provenance_has_no_citation():
    spec = charts.side_by_side(reproduced_rates(), reproduced_rates(), x="workload", y="inserts_per_sec").to_dict()
    assert spec["hconcat"][0]["title"]["subtitle"] == ""
    assert spec["hconcat"][0]["mark"]["type"] == "line"


def test_side_by_side_with_independent_y_scales_says_so_in_both_titles():
    spec = charts.side_by_side(published_rates(), reproduced_rates(), x="workload", y="inserts_per_sec",
                               y_scale="independent").to_dict()
    assert spec["resolve"]["scale"]["y"] == "independent"
    assert [p["title"]["text"] for p in spec["hconcat"]] == ["Published (own y scale)",
                                                             "Reproduced by minidb (own y scale)"]
    with pytest.raises(ValueError, match="y_scale must be 'shared' or 'independent', got 'log'"):
        charts.side_by_side(published_rates(), reproduced_rates(), x="workload", y="inserts_per_sec", y_scale="log")


def test_side_by_side_names_the_missing_column_and_frame():
    reproduced = reproduced_rates().rename(columns={"engine": "structure"})
    with pytest.raises(ValueError, match=r"the reproduced frame has no column 'engine'"):
        charts.side_by_side(published_rates(), reproduced, x="workload", y="inserts_per_sec", color="engine")


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
    color = spec["encoding"]["color"]["scale"]
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

    chart = charts.side_by_side(published_rates(), reproduced_rates(),
                                x="workload:N", y="inserts_per_sec:Q", color="engine:N", mark="bar")
    vega = vlc.vegalite_to_vega(charts.jupyter_spec(chart.to_dict()), vl_version="5.8")
    assert vega["marks"], "the bars compile to Vega marks"


def test_offline_html_draws_with_the_bundle_and_loads_nothing():
    spec = charts.panel(reproduced_rates(), x="workload", y="inserts_per_sec",
                        title="a </script> in a title").to_dict()
    html = charts.offline_html(spec, div_id="chart-1")
    assert html.startswith('<div id="chart-1" class="minidb-chart"></div>')
    assert "window.vegaEmbed(el, spec" in html
    assert html.count("</script>") == 1  # the one closing the element: the title's was escaped
    assert not re.search(r"<script[^>]*\bsrc=|<link|import\(|fetch\(", html)
    payload = re.search(r"var spec = (\{.*\});\n", html).group(1)
    assert json.loads(payload.replace("<\\/", "</")) == spec


def test_vega_bundle_is_wrapped_and_presets_altairs_versions():
    from altair.vegalite.v6 import display

    js = charts.vega_bundle()
    assert js.startswith(charts.bundle_header() + "(function () {\n")
    assert js.endswith("\n})();\n")
    for name in ("vegaEmbed", "vega", "vegaLite"):  # the bundler renames the right-hand sides
        assert re.search(rf"window\.{name}\s*=", js), name
    preset = re.search(r"Object\.assign\(window\.VEGA_DEBUG\s*\|\|\s*\{\},\s*(\{[^}]*\})\)", js).group(1)
    preset = json.loads(preset)
    assert preset == {"vega_version": display.VEGA_VERSION, "vegalite_version": display.VEGALITE_VERSION,
                      "vegaembed_version": display.VEGAEMBED_VERSION}
    assert len(js) > 500_000  # Vega, Vega-Lite and vega-embed themselves are in it
