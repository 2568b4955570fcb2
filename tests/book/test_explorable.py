"""Explorable charts: the grid is embedded whole (or thinned, and said so), each control is a bound parameter, the
published points stay, and in a browser with the network off moving a control changes what is drawn."""

from __future__ import annotations

import pandas as pd
import pytest
import vl_convert

from browser import CHROMIUM, drawn_after
from minidb.book.explorable import (ANY, MAX_EMBED_BYTES, bound_params, chart_note, embedded_rows, explorable,
                                     long_form, step_values)


def grid() -> pd.DataFrame:
    """A small sweep: reads per insert by cache size, for two engines, change buffer on and off."""
    rows = []
    for engine in ("btree", "lsm"):
        for cb in (False, True):
            for cache_pct in range(5, 101, 5):
                misses = (100 - cache_pct) / 100
                reads = 3 * misses * (0.2 if cb else 1) if engine == "btree" else 0.0
                rows.append(dict(engine=engine, change_buffer=cb, cache_pct=cache_pct, reads_per_insert=reads))
    return pd.DataFrame(rows)


PUBLISHED = pd.DataFrame({"cache_pct": [10, 100], "reads_per_insert": [1.14, 0.0], "engine": ["InnoDB", "InnoDB"]})


def test_the_whole_grid_is_embedded_when_it_is_small():
    chart = explorable(grid(), "cache_pct", "reads_per_insert", ["change_buffer"], color="engine")
    rows = embedded_rows(chart)
    assert len(rows) == len(grid())
    assert chart_note(chart) == ""
    assert {r["change_buffer"] for r in rows} == {False, True}


def test_an_evenly_spaced_number_gets_a_slider_and_anything_else_a_dropdown():
    chart = explorable(grid(), "engine", "reads_per_insert", ["cache_pct", "change_buffer"])
    binds = bound_params(chart)
    assert binds["pick_cache_pct"] == {"input": "range", "min": 5, "max": 100, "step": 5, "name": "cache (%) "}
    assert binds["pick_change_buffer"]["input"] == "select"
    assert binds["pick_change_buffer"]["options"] == [False, True]


def test_uneven_numbers_get_a_slider_over_their_steps_and_say_which_value_is_chosen():
    g = grid()
    g = g[g.cache_pct.isin([5, 10, 20, 50, 100])]
    chart = explorable(g, "engine", "reads_per_insert", ["cache_pct"], start={"cache_pct": 20})
    binds = bound_params(chart)
    assert binds == {"pick_cache_pct_step": {"input": "range", "min": 1, "max": 5, "step": 1, "name": "cache (%) "}}
    assert step_values(chart, "cache_pct") == [5, 10, 20, 50, 100]
    spec = chart.to_dict()
    params = {p["name"]: p for p in [*spec.get("params", []), *(p for layer in spec["layer"]
                                                                 for p in layer.get("params", []))]}
    assert params["pick_cache_pct_step"]["value"] == 3, "the start value's step"
    texts = [layer["mark"]["text"]["expr"] for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert texts == ["\"cache (%): \" + format(pick_cache_pct, ',')"], "the chosen value, written above the plot"
    assert spec["usermeta"]["minidb"]["steps"] == {"pick_cache_pct_step": {"values": [5, 10, 20, 50, 100],
                                                                           "unit": "%"}}, "for the book's draw.js"
    assert step_values(explorable(grid(), "engine", "reads_per_insert", ["cache_pct"]), "cache_pct") is None


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package chromium), which .ci/run installs")
def test_in_the_book_a_step_slider_shows_its_value_in_the_parameters_unit(tmp_path):
    from devtools import Browser
    from minidb.book import charts

    g = grid()
    chart = explorable(g[g.cache_pct.isin([5, 10, 20, 50, 100])], "engine", "reads_per_insert", ["cache_pct"],
                       start={"cache_pct": 20})
    page = tmp_path / "chapter.html"
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><script>{charts.vega_bundle()}</script>"
                    f"</head><body>{charts.offline_html(chart.to_dict())}</body></html>", encoding="utf-8")
    shown = ("new Promise(function (done) { (function wait() { var el = document.querySelector('.minidb-chart');"
             " if (!el.vegaView) return setTimeout(wait, 50); var input = el.querySelector('input[type=range]');"
             " done([input.nextElementSibling.textContent, input.getAttribute('aria-valuetext')]); })(); })")
    with Browser() as browser:
        tab = browser.open(page, width=390)
        before = tab.evaluate(shown)
        tab.evaluate("var i = document.querySelector('input[type=range]'); i.value = '5';"
                     " i.dispatchEvent(new Event('input')); true")
        after = tab.evaluate(shown)
        menu = tab.evaluate("document.querySelector('.minidb-chart summary').getAttribute('aria-label')")
        assert tab.console_errors == []
    assert before == ["20%", "20%"], "the value the step stands for, not the step (3)"
    assert after == ["100%", "100%"]
    assert menu.startswith("Chart menu"), "the chart's menu has a name a screen reader says"


def test_the_y_axis_says_the_metric_chosen_and_the_published_points_are_in_the_legend_under_ours():
    g = long_form(grid(), ["engine", "change_buffer", "cache_pct"], {"reads_per_insert": "reads per insert"})
    pub = PUBLISHED.assign(metric="reads per insert", value=PUBLISHED.reads_per_insert)
    spec = explorable(g, "engine", "value", ["metric", "cache_pct", "change_buffer"], published=pub,
                      mark="point").to_dict()
    names = [layer.get("name") for layer in spec["layer"]]
    assert names.index("published") < names.index("chosen"), "ours drawn over the published"
    chosen = spec["layer"][names.index("chosen")]
    assert chosen["encoding"]["y"]["title"] is None
    texts = [layer["mark"]["text"]["expr"] for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert texts[0] == "pick_metric", "the metric chosen, with its unit, written as the y axis's title"
    shape = spec["layer"][names.index("published")]["encoding"]["shape"]
    assert shape["scale"] == {"domain": ["published (the post)"], "range": ["diamond"]}
    assert shape["legend"]["title"] is None
    assert spec["width"] == "container", "as wide as the text column"


def test_fewer_numbers_than_a_slider_needs_get_a_dropdown_of_their_values():
    g = grid()
    g = g[g.cache_pct.isin([5, 10, 100])]
    binds = bound_params(explorable(g, "engine", "reads_per_insert", ["cache_pct"]))
    assert binds["pick_cache_pct"]["input"] == "select"
    assert binds["pick_cache_pct"]["options"] == [5, 10, 100]


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package chromium), which .ci/run installs")
def test_moving_a_step_slider_in_a_browser_draws_the_rows_of_the_value_at_that_step():
    g = grid()
    g = g[g.cache_pct.isin([5, 10, 20, 50, 100])]
    chart = explorable(g, "engine", "reads_per_insert", ["cache_pct"], mark="point")
    record = drawn_after(chart, {"cache (%)": 4})
    assert "error" not in record, record
    assert {d["cache_pct"] for d in record["before"]} == {5}
    assert {d["cache_pct"] for d in record["after"]} == {50}


def test_the_chosen_layer_filters_on_every_control():
    spec = explorable(grid(), "cache_pct", "reads_per_insert", ["change_buffer", "engine"]).to_dict()
    chosen = [layer for layer in spec["layer"] if layer.get("name") == "chosen"][0]
    (flt,) = chosen["transform"]
    assert "pick_change_buffer" in str(flt) and "pick_engine" in str(flt)


def test_published_points_are_a_layer_of_their_own():
    spec = explorable(grid(), "cache_pct", "reads_per_insert", ["change_buffer"], color="engine",
                      published=PUBLISHED).to_dict()
    published = [layer for layer in spec["layer"] if layer.get("name") == "published"]
    assert len(published) == 1 and "transform" not in published[0]


def test_a_grid_over_the_limit_is_thinned_along_x_and_the_note_says_so():
    g = grid()
    full = len(g)
    chart = explorable(g, "cache_pct", "reads_per_insert", ["change_buffer", "engine"], max_bytes=2000)
    rows = embedded_rows(chart)
    assert len(rows) < full
    assert 100 in {r["cache_pct"] for r in rows}, "the last x value is kept"
    assert "of the grid's 20 values" in chart_note(chart)


def test_a_grid_over_the_limit_is_refused_when_thinning_is_off():
    with pytest.raises(ValueError, match="over the 2,000 allowed"):
        explorable(grid(), "cache_pct", "reads_per_insert", ["change_buffer"], max_bytes=2000, thin=False)


def test_default_limit_is_about_a_megabyte():
    assert MAX_EMBED_BYTES == 1_000_000


@pytest.mark.parametrize("kwargs, message", [
    (dict(controls=[]), "at least one control"),
    (dict(controls=["cache_pct"]), "cannot also be controls"),
    (dict(controls=["nope"]), "no column 'nope'"),
    (dict(controls=["change_buffer"], start={"change_buffer": "maybe"}), "not in the grid"),
    (dict(controls=["change_buffer"], mark="bar"), "unknown mark 'bar'"),
    (dict(controls=["change_buffer"], x_scale="sqrt"), "unknown x_scale 'sqrt'"),
])
def test_bad_arguments_are_refused_with_a_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        explorable(grid(), "cache_pct", "reads_per_insert", **kwargs)


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package chromium), which .ci/run installs")
def test_moving_a_control_in_a_browser_changes_the_drawn_marks():
    chart = explorable(grid(), "cache_pct", "reads_per_insert", ["change_buffer", "engine"], published=PUBLISHED)
    record = drawn_after(chart, {"change buffer": "True"})
    assert "error" not in record, record
    assert len(record["inputs"]) == 2
    before = {(d["cache_pct"], d["reads_per_insert"]) for d in record["before"]}
    after = {(d["cache_pct"], d["reads_per_insert"]) for d in record["after"]}
    assert before and after and before != after
    assert {d["change_buffer"] for d in record["before"]} == {False}
    assert {d["change_buffer"] for d in record["after"]} == {True}


def test_published_points_follow_the_controls_they_have_a_column_for():
    g = long_form(grid(), ["engine", "change_buffer", "cache_pct"], {"reads_per_insert": "reads per insert"})
    pub = PUBLISHED.rename(columns={"reads_per_insert": "value"}).assign(metric="reads per insert")
    spec = explorable(g, "cache_pct", "value", ["metric", "change_buffer"], published=pub).to_dict()
    (published,) = [layer for layer in spec["layer"] if layer.get("name") == "published"]
    filters = str(published.get("transform", []))
    assert "pick_metric" in filters and "pick_change_buffer" not in filters


def test_long_form_has_one_row_per_metric_and_marks_missing_keys():
    frame = pd.DataFrame({"engine": ["btree", "lsm"], "doublewrite": [True, None], "tps": [1.0, 2.0],
                          "wkb": [3.0, 4.0]})
    out = long_form(frame, ["engine", "doublewrite"], {"tps": "TPS", "wkb": "KB written", "absent": "x"})
    assert len(out) == 4 and set(out.metric) == {"TPS", "KB written"}
    assert "n/a" in set(out.doublewrite)


def test_a_thinned_chart_says_so_under_its_title():
    spec = explorable(grid(), "cache_pct", "reads_per_insert", ["change_buffer", "engine"], max_bytes=2000,
                      title="t").to_dict()
    assert "values of cache (%)" in " ".join(spec["title"]["subtitle"])


def test_the_grey_rows_are_the_chosen_metrics_and_no_others():
    g = long_form(grid().assign(writes_per_insert=2.0), ["engine", "change_buffer", "cache_pct"],
                  {"reads_per_insert": "reads per insert", "writes_per_insert": "writes per insert"})
    spec = explorable(g, "cache_pct", "value", ["metric", "change_buffer"]).to_dict()
    ghost = spec["layer"][0]
    assert "pick_metric" in str(ghost["transform"]) and "pick_change_buffer" not in str(ghost["transform"])
    plain = explorable(grid(), "cache_pct", "reads_per_insert", ["change_buffer"]).to_dict()
    assert "transform" not in plain["layer"][0], "without a metric control every row is grey behind"


def grid_with_an_lsm() -> pd.DataFrame:
    """``grid()`` as a run gives it: the LSM has no change buffer, so its rows say ``ANY`` (once per cache size)."""
    g = grid()
    g["change_buffer"] = g.change_buffer.astype(object)
    g.loc[g.engine == "lsm", "change_buffer"] = ANY
    return g.drop_duplicates(["engine", "change_buffer", "cache_pct"])


def test_a_row_a_control_does_not_apply_to_is_not_offered_as_a_choice():
    binds = bound_params(explorable(grid_with_an_lsm(), "cache_pct", "reads_per_insert", ["change_buffer"]))
    assert binds["pick_change_buffer"]["options"] == [False, True]


def test_a_control_with_nothing_but_rows_it_does_not_apply_to_is_refused():
    g = grid_with_an_lsm()
    with pytest.raises(ValueError, match="no value but 'n/a'"):
        explorable(g[g.engine == "lsm"], "cache_pct", "reads_per_insert", ["change_buffer"])


def test_the_log_axis_and_the_point_mark_reach_the_spec():
    spec = explorable(grid(), "cache_pct", "reads_per_insert", ["change_buffer"], color="engine", mark="point",
                      x_scale="log", published=PUBLISHED).to_dict()
    chosen, published = (next(layer for layer in spec["layer"] if layer.get("name") == name)
                         for name in ("chosen", "published"))
    assert chosen["mark"]["type"] == "point"
    assert chosen["encoding"]["x"]["scale"] == {"type": "log"}
    assert published["encoding"]["x"]["scale"] == {"type": "log"}, "the post's points on the same axis"


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package chromium), which .ci/run installs")
def test_rows_a_control_does_not_apply_to_stay_drawn_whatever_it_says():
    chart = explorable(grid_with_an_lsm(), "cache_pct", "reads_per_insert", ["change_buffer"], color="engine")
    record = drawn_after(chart, {"change buffer": "True"})
    assert "error" not in record, record
    for drawn in (record["before"], record["after"]):
        assert {d["engine"] for d in drawn} == {"btree", "lsm"}
    assert {d["change_buffer"] for d in record["before"]} == {False, ANY}
    assert {d["change_buffer"] for d in record["after"]} == {True, ANY}


# -- in plain Jupyter: a chapter's explorable figure, executed at tiny ----------------------------------------------
def explore_section(path):
    """The chapter at ``path`` cut to its first code cell (imports, scale), its "## Explore" section, and the earlier
    cells that assign a name the section uses without assigning it (the run it draws, as ``runs = f2.run(...)``)."""
    import ast
    import re

    import jupytext
    import nbformat

    nb = jupytext.read(path)
    first, before, explore, inside = None, [], [], False
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "## " in cell.source:
            heads = [line for line in cell.source.splitlines() if line.startswith("## ")]
            if heads:
                inside = heads[-1].startswith("## Explore")
        if cell.cell_type != "code":
            continue
        if first is None:
            first = cell
        else:
            (explore if inside else before).append(cell)
    assert explore, f"{path.name} has no Explore section with code"

    def assigned(cell):
        return set(re.findall(r"^(\w+) = ", cell.source, flags=re.M))

    used = {node.id for cell in explore for node in ast.walk(ast.parse(cell.source)) if isinstance(node, ast.Name)}
    own = set().union(*map(assigned, explore))
    needed = {name for cell in before for name in assigned(cell) if name in used - own}
    cells = [first, *(cell for cell in before if assigned(cell) & needed), *explore]
    return nbformat.v4.new_notebook(cells=cells, metadata=nb.metadata)


def combos(rows, columns, metric=None) -> set:
    """The distinct values of ``columns`` in the embedded ``rows`` (of one metric, if given)."""
    return {tuple(r[c] for c in columns) for r in rows if metric is None or r["metric"] == metric}


def expected_grid(stem):
    """What chapter ``stem``'s explorable embeds at tiny: (its control columns, the set of their combinations, the
    step slider's values if it has one, whether it carries the post's points)."""
    if stem == "03_insert_benchmark":
        from minidb.experiments.f1_insert_benchmark import CACHE_GRIDS

        pcts = CACHE_GRIDS["tiny"].cache_pcts
        every = {(e, cb, p) for p in pcts for e, cb in (("btree", True), ("btree", False), ("lsm", ANY))}
        return ["engine", "change_buffer", "cache_of_rows_pct"], every, ("cache_of_rows_pct", list(pcts)), True
    if stem == "04_write_efficiency":
        from minidb.experiments.f2_write_efficiency import KIB, POINTS

        every = {(e, ps // KIB, dw) if e == "btree" else (e, ANY, ANY) for e, ps, dw in POINTS}
        return ["engine", "page_size_kb", "doublewrite"], every, None, True
    if stem == "05_memory_sweep":
        from minidb.experiments.f3_memory_sweep import ENGINES, MEMORY_GB

        return (["engine", "memory_gb"], {(e, m) for e in ENGINES for m in MEMORY_GB}, ("memory_gb", list(MEMORY_GB)),
                True)
    if stem == "06_cloud_iops":
        from minidb.experiments.f4_cloud_iops import ENGINES, VOLUMES

        iops = sorted({i for _, i in VOLUMES})
        return (["engine", "volume_type", "iops"], {(e, v, i) for e in ENGINES for v, i in VOLUMES}, ("iops", iops),
                True)
    if stem == "07_disk_full":
        from minidb.experiments.f7_disk_full import BEHAVIOURS, FREE_SPACE_PCTS

        return (["behaviour", "free_space_pct"], {(b, f) for b in BEHAVIOURS for f in FREE_SPACE_PCTS}, None, True)
    if stem == "08_space":
        from minidb.experiments.f5_space import EXPLORE_SETTINGS, SIZE_CONFIGS

        every = {(SIZE_CONFIGS[c][0], layout or ANY, comp or ANY) for c, (layout, comp) in EXPLORE_SETTINGS.items()}
        return ["engine", "page_layout", "lsm_compression"], every, None, True
    if stem == "10_stalls":
        from minidb.experiments.f6_stalls import COMPACTIONS, TRIGGERS

        return ["compaction", "slowdown_trigger"], {(c, t) for c in COMPACTIONS for t in TRIGGERS}, None, False
    raise AssertionError(stem)


EXPLORABLE = {  # chapter: the controls of its explorable figure, by parameter name, and their kind of input
    "03_insert_benchmark": {"pick_metric": "select", "pick_cache_of_rows_pct_step": "range",
                            "pick_change_buffer": "select"},
    "04_write_efficiency": {"pick_metric": "select", "pick_page_size_kb": "select", "pick_doublewrite": "select"},
    "05_memory_sweep": {"pick_metric": "select", "pick_memory_gb_step": "range"},
    "06_cloud_iops": {"pick_metric": "select", "pick_volume_type": "select", "pick_iops_step": "range"},
    "07_disk_full": {"pick_metric": "select", "pick_free_space_pct": "range"},
    "08_space": {"pick_metric": "select", "pick_page_layout": "select", "pick_lsm_compression": "select"},
    "10_stalls": {"pick_compaction": "select", "pick_slowdown_trigger": "range"},
}


@pytest.fixture(scope="module")
def explored() -> dict:
    """{chapter: its ``explore_section`` cells, executed at tiny as a notebook opened in JupyterLab runs them}.

    One kernel runs every chapter's section, each after ``%reset -f`` (a namespace as empty as a fresh kernel's, so
    a name the section needs and does not assign still fails): starting a kernel and importing the engine and the
    chart libraries costs seconds of CPU, once here rather than once per chapter."""
    import nbformat
    from nbclient import NotebookClient

    from book_pages import BOOK
    from minidb.book import charts

    sections = {stem: explore_section(BOOK / "chapters" / f"{stem}.md") for stem in EXPLORABLE}
    (kernel,) = {nb.metadata["kernelspec"]["name"] for nb in sections.values()}
    cells, owners = [], []
    for stem, nb in sections.items():
        cells += [nbformat.v4.new_code_cell("%reset -f"), *nb.cells]
        owners += [None, *[stem] * len(nb.cells)]
    combined = nbformat.v4.new_notebook(cells=cells, metadata=next(iter(sections.values())).metadata)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINIDB_SCALE", "tiny")
        patch.delenv(charts.OFFLINE_ENV, raising=False)  # as a notebook opened in JupyterLab runs
        NotebookClient(combined, timeout=600, kernel_name=kernel,
                       resources={"metadata": {"path": str(BOOK / "chapters")}}).execute()
    return {stem: [cell for cell, owner in zip(combined.cells, owners) if owner == stem] for stem in sections}


@pytest.mark.xdist_group("explorable")  # its module fixture runs once, on one worker
@pytest.mark.parametrize("stem, controls", EXPLORABLE.items())
def test_a_chapters_explorable_figure_is_interactive_in_plain_jupyter(stem, controls, explored):
    from minidb.book import charts

    bundles = [o["data"] for cell in explored[stem] for o in cell.get("outputs", [])
               if charts.JUPYTER_VEGALITE_MIME in o.get("data", {})]
    (bundle,) = [b for b in bundles if bound_params(b[charts.JUPYTER_VEGALITE_MIME])]
    spec = bundle[charts.JUPYTER_VEGALITE_MIME]
    assert spec["$schema"] == charts.JUPYTER_VEGALITE_SCHEMA
    assert {name: bind["input"] for name, bind in bound_params(spec).items()} == controls
    rows = embedded_rows(spec)
    assert rows and chart_note(spec) == ""  # the whole grid, not thinned
    assert bundle["image/svg+xml"].lstrip().startswith("<svg"), "the fallback for front ends without Vega"
    # JupyterLab 4 bundles Vega-Lite 5.6; vl-convert's oldest is 5.8: what it compiles uses nothing of 6
    vega = vl_convert.vegalite_to_vega(spec, vl_version="5.8")
    assert {s["name"] for s in vega["signals"] if "bind" in s} == set(controls)
    columns, every, steps, has_published = expected_grid(stem)
    metrics = {r["metric"] for r in rows} if "metric" in rows[0] else {None}
    for metric in metrics:
        assert combos(rows, columns, metric) == every, f"a row for every combination ({metric or 'the series'})"
    if steps is not None:
        column, values = steps
        assert step_values(spec, column) == values, "the slider steps through every value of the grid"
    published = [layer for layer in spec["layer"] if layer.get("name") == "published"]
    assert bool(published and spec["datasets"][published[0]["data"]["name"]]) == has_published
    if stem == "07_disk_full":
        from minidb.experiments.f7_disk_full import FREE_SPACE_PCTS

        slider = bound_params(spec)["pick_free_space_pct"]
        assert (slider["min"], slider["max"]) == (min(FREE_SPACE_PCTS), max(FREE_SPACE_PCTS))


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package chromium), which .ci/run installs")
def test_moving_chapter_7s_free_space_slider_in_a_browser_changes_what_is_lost():
    from minidb.experiments import f7_disk_full as f7

    runs = f7.free_space_grid("tiny", cache_dir=False, progress=False, executor=False)
    grid = long_form(runs, ["behaviour", "free_space_pct"], {"acked_changes_lost": "acknowledged changes lost"})
    chart = explorable(grid, x="behaviour", y="value", controls=["metric", "free_space_pct"], mark="point")
    enough = max(f7.FREE_SPACE_PCTS)  # more than the session's writes need: nothing fails
    record = drawn_after(chart, {"free space (%)": enough})
    assert "error" not in record, record
    lost = {when: {d["behaviour"]: d["value"] for d in record[when]} for when in ("before", "after")}
    assert lost["before"]["2018 bug"] == f7.published_changes_lost(), "no space free: the post's loss"
    assert lost["after"] == dict.fromkeys(f7.BEHAVIOURS, 0)
    assert {d["free_space_pct"] for d in record["after"]} == {enough}


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package chromium), which .ci/run installs")
def test_stepping_chapter_6s_iops_slider_in_a_browser_draws_the_runs_on_more_iops(tmp_path):
    from minidb.experiments import f4_cloud_iops as f4

    runs = f4.run("tiny", cache_dir=tmp_path, progress=False, executor=False)
    grid = long_form(runs, ["engine", "volume_type", "iops"], {"tps": "transactions/s"})
    pub = long_form(f4.published(), ["engine", "volume_type", "iops"], {"tps": "transactions/s"})
    chart = explorable(grid, x="engine", y="value", controls=["metric", "volume_type", "iops"], color="engine",
                       published=pub, mark="point", start={"volume_type": "io1"})
    steps = step_values(chart, "iops")
    record = drawn_after(chart, {"IOPS": len(steps)})  # the last step: the most IOPS
    assert "error" not in record, record
    drawn = {when: {(d["engine"], d["volume_type"], d["iops"]): d["value"] for d in record[when]}
             for when in ("before", "after")}
    io1 = runs[runs.volume_type == "io1"].set_index(["engine", "iops"]).tps
    assert set(drawn["before"]) == {(e, "io1", min(steps)) for e in f4.ENGINES}
    assert set(drawn["after"]) == {(e, "io1", max(steps)) for e in f4.ENGINES}
    for engine in f4.ENGINES:  # the marks moved to the runs on more IOPS, which make more transactions
        assert drawn["after"][engine, "io1", max(steps)] == pytest.approx(io1[engine, max(steps)], rel=1e-3)
        assert drawn["after"][engine, "io1", max(steps)] > drawn["before"][engine, "io1", min(steps)]


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package chromium), which .ci/run installs")
def test_a_chart_as_the_built_site_draws_it_answers_its_controls(tmp_path):
    # the site's way: the offline renderer's <div> and script, Vega from the book's static file beside the page
    from browser import drawn_in_page
    from minidb.book import charts

    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / charts.BUNDLE_FILE).write_text(charts.vega_bundle(), encoding="utf-8")
    chart = explorable(grid_with_an_lsm(), "cache_pct", "reads_per_insert", ["change_buffer"], color="engine")
    page = tmp_path / "chapter.html"
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><script src='_static/{charts.BUNDLE_FILE}'>"
                    f"</script></head><body><p>text</p>{charts.offline_html(chart.to_dict())}</body></html>",
                    encoding="utf-8")
    record = drawn_in_page(page, {"change buffer": "True"})
    assert "error" not in record, record
    assert {d["change_buffer"] for d in record["before"]} == {False, ANY}
    assert {d["change_buffer"] for d in record["after"]} == {True, ANY}
    assert not list(tmp_path.glob("_probe_*")), "the probe page is removed"
