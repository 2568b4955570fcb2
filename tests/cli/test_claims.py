"""``minidb claims``: each finding's verdict printed; ``--check`` fails on a required claim that does not hold."""

import sys

import pytest

from minidb import experiments
from minidb.cli import main
from minidb.experiments.claims import Claim, at_least

FAKE = '''
import pandas as pd
from minidb.experiments.claims import Claim, at_least

def run(scale=None, progress=True):
    """A stand-in finding whose one figure is 2 at tiny and 0 elsewhere."""
    return pd.DataFrame({"value": [2.0 if scale == "tiny" else 0.0]})

def claims(results):
    return [Claim.check("the value is at least 1", published=3, ours=results.value[0], band=at_least(1),
                        must_hold=("tiny",), reason="only tiny runs make it")]
'''


@pytest.fixture
def fake_finding(tmp_path, monkeypatch):
    """An experiment module f98_fake_claims with one claim, installed in minidb.experiments for one test."""
    (tmp_path / "f98_fake_claims.py").write_text(FAKE)
    (tmp_path / "f99_no_claims.py").write_text("def run(scale=None, progress=True):\n    return None\n")
    monkeypatch.setattr(experiments, "__path__", [*experiments.__path__, str(tmp_path)])
    yield
    for name in ("f98_fake_claims", "f99_no_claims"):
        sys.modules.pop(f"minidb.experiments.{name}", None)


def test_the_verdict_is_printed_and_check_passes_when_required_claims_hold(fake_finding, capsys):
    assert main(["claims", "f98", "--scale", "tiny", "--check"]) == 0
    out = capsys.readouterr().out
    assert "f98_fake_claims at scale tiny: 1 of 1 claims hold" in out and "the value is at least 1" in out


def test_a_claim_not_required_at_the_scale_is_shown_with_its_reason_and_does_not_fail(fake_finding, capsys):
    assert main(["claims", "f98", "--scale", "small", "--check"]) == 0
    out = capsys.readouterr().out
    assert "0 of 1 claims hold" in out and "only tiny runs make it" in out


def test_check_fails_on_a_required_claim_that_does_not_hold(fake_finding, capsys, monkeypatch):
    import pandas as pd

    import minidb.experiments.f98_fake_claims as fake

    monkeypatch.setattr(fake, "run", lambda scale=None, progress=True: pd.DataFrame({"value": [0.0]}))
    assert main(["claims", "f98", "--scale", "tiny", "--check"]) == 1
    assert main(["claims", "f98", "--scale", "tiny"]) == 0  # without --check it only prints
    assert "1 claim(s) that must hold at tiny do not" in capsys.readouterr().out


def test_a_finding_without_claims_is_named_and_an_unknown_one_is_an_error(fake_finding, capsys):
    assert main(["claims", "f99", "--scale", "tiny"]) == 0
    assert "f99_no_claims: no claims() yet" in capsys.readouterr().out
    assert main(["claims", "f0", "--scale", "tiny"]) == 2
    assert "unknown experiment 'f0'" in capsys.readouterr().err


def test_magnitudes_print_each_published_figure_beside_ours(fake_finding, capsys):
    assert main(["claims", "f98", "--scale", "tiny", "--magnitudes"]) == 0
    out = capsys.readouterr().out
    assert "Published figures beside ours at scale tiny: 1 of 1 published figures within 2x, 0 within 1.25x" in out
    line = next(row for row in out.splitlines() if row.strip().startswith("f98 "))
    assert line.split()[-4:] == ["2", "0.67", "True", "False"]  # ours 2 of 3: within 2x, not within 1.25x


def test_magnitudes_can_be_kept_as_a_record_and_shown_beside_a_later_run(fake_finding, tmp_path, capsys):
    from minidb.experiments import magnitudes

    path = tmp_path / "record.json"
    assert main(["claims", "f98", "--scale", "tiny", "--save", str(path), "--commit", "abc1234"]) == 0
    record = magnitudes.load_record(path)
    assert record["commit"] == "abc1234" and record["scale"] == "tiny"
    assert record["rows"] == [{"finding": "f98", "claim": "the value is at least 1", "published": 3.0, "ours": 2.0}]
    later = magnitudes.table({"f98": [Claim.check("the value is at least 1: now measured so", published=3, ours=3,
                                                  band=at_least(1))]})
    both = magnitudes.before_after(later, record)
    assert both.iloc[0].to_dict() == {"claim": "the value is at least 1", "published": 3.0, "before": 2.0, "now": 3.0,
                                      "before / published": 2 / 3, "now / published": 1.0}
