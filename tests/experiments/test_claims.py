"""The claims-as-code helpers: bands, the verdict table, and which failures a test must report."""

import math

import pytest

from minidb.experiments.claims import (COLUMNS, Band, Claim, at_least, at_most, between, equals, failing, verdict,
                                       within, within_factor)


@pytest.mark.parametrize("band, inside, outside", [
    (at_least(2.5), [2.5, 3.0], [2.4999]),
    (at_most(0.15), [0.15, -1.0], [0.1501]),
    (between(1, 2), [1, 1.5, 2], [0.99, 2.01]),
    (within(10, 0.25), [7.5, 12.5], [7.49, 12.51]),
    (within_factor(6, 2), [3, 12], [2.99, 12.01]),
    (equals(0), [0], [1, -1]),
])
def test_band_edges_are_inclusive(band, inside, outside):
    assert all(band.contains(v) for v in inside)
    assert not any(band.contains(v) for v in outside)


def test_nan_is_never_in_a_band():
    assert not at_least(0).contains(math.nan)


def test_bands_print_as_a_reader_writes_them():
    assert at_least(2.5).text == ">= 2.5"
    assert at_most(0.15).text == "<= 0.15"
    assert between(0.75, 1.25).text == "0.75 .. 1.25"


def test_empty_or_unbounded_bands_are_refused():
    with pytest.raises(ValueError, match="at least one bound"):
        Band()
    with pytest.raises(ValueError, match="empty band"):
        between(2, 1)


def test_holds_is_computed_not_given():
    assert Claim.check("x", published=1, ours=3, band=at_least(2)).holds
    assert not Claim.check("x", published=1, ours=1, band=at_least(2)).holds


def test_unknown_scale_is_refused():
    with pytest.raises(ValueError, match="unknown scale"):
        Claim.check("x", published=None, ours=1, band=at_least(0), must_hold=("huge",))


def test_verdict_shows_the_reason_only_where_a_claim_fails():
    claims = [Claim.check("up", published=3.21, ours=3.48, band=at_least(2.5), reason="never shown"),
              Claim.check("flat", published="+-9%", ours=1.7, band=within(1, 0.25), reason="IOPS-bound")]
    table = verdict(claims)
    assert list(table.columns) == list(COLUMNS)
    assert table.holds.tolist() == [True, False]
    assert table.reason.tolist() == ["", "IOPS-bound"]
    assert table.published.tolist() == ["3.21", "+-9%"]


def test_failing_lists_only_claims_required_at_that_scale():
    needed = Claim.check("a", published=None, ours=0, band=at_least(1), must_hold=("tiny",))
    optional = Claim.check("b", published=None, ours=0, band=at_least(1), must_hold=("small",))
    assert failing([needed, optional], "tiny") == [needed]
    assert failing([needed, optional], "small") == [optional]
