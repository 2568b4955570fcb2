"""The real-engines experiment at tiny: four engines loaded, side by side, and the claims that must hold there."""

from __future__ import annotations

import pytest

from minidb.experiments import real_engines as real
from minidb.experiments.claims import failing

pytestmark = pytest.mark.xdist_group("real-engines")  # its module fixtures run once, on one worker


@pytest.fixture(scope="module")
def runs():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return real.run("tiny", progress=False)


def test_every_engine_shape_and_cache_is_run(runs):
    assert len(runs) == len(real.points(real.ROWS["tiny"]))
    assert set(runs.engine) == set(real.PAIRS) | set(real.PAIRS.values())
    assert set(runs.cache) == set(real.CACHES)


def test_claims_that_must_hold_at_tiny_hold(runs):
    claims = real.claims(runs)
    assert failing(claims, "tiny") == []
    assert len(claims) == 7


def test_side_by_side_pairs_each_of_ours_with_its_real_engine(runs):
    wa = real.side_by_side(runs, "write_amp")
    assert len(wa) == len(runs) // 2
    assert (wa.ratio == wa.ours_value / wa.real_value).all()


def test_the_lsms_log_the_same_bytes(runs):
    # both write each batch once to their WAL, with a few bytes of record framing each
    lsm = real.side_by_side(runs, "wkb_per_row_log")
    lsm = lsm[lsm.ours == "minidb-lsm"]
    assert ((lsm.ratio > 0.9) & (lsm.ratio < 1.1)).all()


def test_a_cache_that_holds_everything_reads_nothing_in_our_btree(runs):
    ours = runs[(runs.engine == "minidb-btree") & (runs.cache == "in-memory")]
    assert (ours.reads_per_row == 0).all()


def test_too_few_rows_are_refused():
    with pytest.raises(ValueError, match="rows must be >= 1000"):
        real.run("tiny", rows=10, cache_dir=False, progress=False)


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="unknown engine 'oracle'"):
        real.run_point("oracle", "4k", "5%", 1000)
