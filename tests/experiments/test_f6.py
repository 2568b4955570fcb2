"""Finding F6 at the tiny scale: the insert benchmark's per-interval series under three LSM configurations."""

import numpy as np
import pytest

from minidb.experiments import claims as claims_mod
from minidb.experiments import f6_stalls as f6

from results_csv import assert_written_whole


@pytest.fixture(scope="module")
def tiny():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f6.run("tiny", progress=False, executor=False)


def test_one_row_per_configuration_and_a_series_for_each(tiny):
    assert list(tiny.columns) == list(f6.SUMMARY)
    assert tiny.config.tolist() == list(f6.CONFIGS)
    series = tiny.attrs["series"]
    assert list(series.columns) == list(f6.SERIES)
    assert set(series.state) <= {"normal", "slowed", "stopped", "partial"}
    for _, row in tiny.iterrows():
        s = series[series.config == row.config]
        whole = s[s.state != "partial"]
        assert len(whole) == row.intervals
        assert row.slowed_intervals + row.stopped_intervals <= row.intervals
        # every row inserted shows up in some interval
        assert (s.ops_per_sec * row.interval_seconds).sum() == pytest.approx(row.rows, rel=0.02)


def test_the_claims_that_must_hold_at_tiny_hold(tiny):
    assert claims_mod.failing(f6.claims(tiny), "tiny") == []


def test_stalls_are_counted_by_cause(tiny):
    for _, row in tiny.iterrows():
        assert row.writes_stopped == row.writes_stopped_memtable + row.writes_stopped_level0
        assert row.stalled_seconds <= row.seconds


def test_classify_at_the_boundaries():
    # four fine intervals per interval of 1 s: rates 4 (x5), 1.9 (slowed: < half of the median 4), 2 (not slowed)
    ops = np.array([1, 1, 1, 1] * 5 + [0.5, 0.5, 0.45, 0.45] + [0.5] * 4, dtype=float)
    stalled = np.zeros(len(ops))
    out = f6.classify(ops, stalled, 4, 0.25)
    assert out.state.tolist() == ["normal"] * 5 + ["slowed", "normal"]
    stalled[:2] = 0.125  # 0.25 s of the first interval: not yet half of it
    stalled[4:8] = 0.125  # 0.5 s of the second: half of it, stopped
    assert f6.classify(ops, stalled, 4, 0.25).state.tolist()[:2] == ["normal", "stopped"]


def test_a_last_short_interval_is_partial_and_left_out():
    out = f6.classify(np.ones(10), np.zeros(10), 4, 0.25)
    assert out.state.tolist() == ["normal", "normal", "partial"]
    assert out.ops_per_sec.tolist() == pytest.approx([4.0, 4.0, 4.0])


def test_published_is_the_seed_table_by_client_count():
    pub = f6.published()
    assert sorted(pub.clients.unique()) == [1, 2, 4, 8, 12, 16]
    assert f6.published_rate("leveled") == 134998 and f6.published_rate("universal") == 252207


def test_an_unknown_configuration_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown configuration 'tiered'"):
        f6.run_point("tiered", 100, 1e-4)


# -- the explorable grid: the L0 slowdown trigger and the compaction style --------------------------------------------
@pytest.fixture(scope="module")
def trigger_series():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f6.trigger_grid("tiny", progress=False, executor=False)


def test_the_trigger_grid_has_a_series_per_style_and_trigger(trigger_series):
    runs = trigger_series.groupby(["compaction", "slowdown_trigger"])
    assert sorted(runs.groups) == [(c, t) for c in f6.COMPACTIONS for t in f6.TRIGGERS]
    assert list(trigger_series.columns) == ["compaction", "slowdown_trigger", *f6.SERIES[1:]]
    widths = {round(float(s.start.diff().dropna().iloc[0]), 12) for _, s in runs}
    assert len(widths) == 1, "one interval width for every run"
    assert runs.interval.size().max() <= f6.INTERVALS + 1


def test_the_lowest_trigger_slows_writes_and_a_trigger_l0_never_reaches_changes_nothing(trigger_series):
    rates = trigger_series.groupby(["compaction", "slowdown_trigger"]).ops_per_sec
    for c in f6.COMPACTIONS:
        # at the compaction trigger itself every flush can slow writes: the run takes longer
        assert rates.size()[c, min(f6.TRIGGERS)] > rates.size()[c, max(f6.TRIGGERS)]
        # tiny's rows never hold 16 files in L0: 16 and 20 run the same
        assert rates.get_group((c, 16)).tolist() == rates.get_group((c, 20)).tolist()


def test_the_experiment_command_writes_every_row_to_one_csv(tiny, tmp_path):
    assert_written_whole(tiny, tmp_path / "f6.csv")
