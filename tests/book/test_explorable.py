"""Explorable charts: the grid is embedded whole (or thinned, and said so), each control is a bound parameter, the
published points stay, and in a browser with the network off moving a control changes what is drawn."""

from __future__ import annotations

import pandas as pd
import pytest

from browser import CHROMIUM, drawn_after
from minidb.book.explorable import (MAX_EMBED_BYTES, bound_params, chart_note, embedded_rows, explorable,
                                     long_form)


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


def test_uneven_numbers_get_a_dropdown_of_their_values():
    g = grid()
    g = g[g.cache_pct.isin([5, 10, 20, 50, 100])]
    binds = bound_params(explorable(g, "engine", "reads_per_insert", ["cache_pct"]))
    assert binds["pick_cache_pct"]["input"] == "select"
    assert binds["pick_cache_pct"]["options"] == [5, 10, 20, 50, 100]


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
    assert "values of cache (%)" in str(spec["title"]["subtitle"])
