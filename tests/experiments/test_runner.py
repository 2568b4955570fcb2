"""The sweep runner: grid order, caching by parameters and version, parallel and in-process runs agree."""

from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

from minidb.experiments import runner, sweep

CALLS = []


def square(x, y=0):
    CALLS.append((x, y))
    return {"value": x * x + y}


def series(n):
    return pd.DataFrame({"t": range(n), "ops": [10 * n] * n})


def test_grid_is_the_cartesian_product_in_order(tmp_path):
    df = sweep(square, {"x": [1, 2, 3], "y": [0, 10]}, cache_dir=False, executor=False, progress=False)
    assert list(df.columns) == ["x", "y", "value"]
    assert df.value.tolist() == [1, 11, 4, 14, 9, 19]


def test_points_returning_frames_are_concatenated(tmp_path):
    df = sweep(series, [{"n": 2}, {"n": 3}], cache_dir=False, executor=False, progress=False)
    assert df.n.tolist() == [2, 2, 3, 3, 3]
    assert df.ops.tolist() == [20, 20, 30, 30, 30]


def test_cache_reruns_only_new_points(tmp_path):
    CALLS.clear()
    sweep(square, {"x": [1, 2]}, cache_dir=tmp_path, executor=False, progress=False)
    again = sweep(square, {"x": [1, 2, 5]}, cache_dir=tmp_path, executor=False, progress=False)
    assert CALLS == [(1, 0), (2, 0), (5, 0)]
    assert again.value.tolist() == [1, 4, 25]


def test_cache_key_changes_with_version_and_parameters(monkeypatch):
    key = runner.point_key("s", square, {"x": 1})
    assert key != runner.point_key("s", square, {"x": 2})
    assert key != runner.point_key("t", square, {"x": 1})
    monkeypatch.setattr(runner, "__version__", "99.0")
    assert key != runner.point_key("s", square, {"x": 1})


def test_cache_key_changes_with_the_source(monkeypatch):
    key = runner.point_key("s", square, {"x": 1})
    monkeypatch.setattr(runner, "source_fingerprint", lambda: "edited")
    assert key != runner.point_key("s", square, {"x": 1})


def test_processes_threads_and_inline_agree(tmp_path):
    grid = {"x": [3, 1, 2], "y": [1, 2]}
    inline = sweep(square, grid, cache_dir=False, executor=False, progress=False)
    procs = sweep(square, grid, cache_dir=False, progress=False)
    with ThreadPoolExecutor(2) as pool:
        threads = sweep(square, grid, cache_dir=False, executor=pool, progress=False)
    pd.testing.assert_frame_equal(inline, procs)
    pd.testing.assert_frame_equal(inline, threads)


def test_bad_grids_are_refused():
    with pytest.raises(ValueError, match="needs a non-empty list"):
        sweep(square, {"x": []}, cache_dir=False)
    with pytest.raises(ValueError, match="dict of value lists or a list of dicts"):
        sweep(square, "x=1", cache_dir=False)
    with pytest.raises(ValueError, match="already has a column"):
        sweep(lambda value: {"value": value}, {"value": [1]}, cache_dir=False, executor=False)
