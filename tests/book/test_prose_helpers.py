"""``minidb.book.prose``: sentences whose figures come from the run, and the verdict table a chapter shows."""

import pytest

from minidb.book import prose
from minidb.experiments.claims import Claim, at_least, equals


def test_say_prints_bare_numbers_as_the_verdict_does_and_keeps_explicit_formats():
    text = prose.say("{a} rows, {b} TPS, {c:.1%} kept, {d} engine", a=20000, b=1234.5678, c=0.0312, d="btree").data
    assert text == "20,000 rows, 1,235 TPS, 3.1% kept, btree engine"
    assert prose.say("{x}", x=0.12345).data == "0.123"


def test_say_names_a_missing_figure():
    with pytest.raises(KeyError, match="ours"):
        prose.say("{ours} KB", theirs=1)


@pytest.mark.parametrize("ours, other, words", [
    (1.05, 1.0, "about the same as"), (0.95, 1.0, "about the same as"), (1.2, 1.0, "more than"),
    (0.8, 1.0, "less than"),
])
def test_compare_words_the_relation_within_the_tolerance(ours, other, words):
    assert prose.compare(ours, other) == words
    assert prose.compare(1.2, 1.0, same=0.25) == "about the same as"


def test_verdict_has_one_row_per_claim_and_says_why_a_claim_does_not_hold():
    holds = Claim.check("reads <b>nothing</b>", published=0, ours=0.0, band=equals(0), tolerance=0)
    fails = Claim.check("keeps its rate", published=1.12, ours=0.5, band=at_least(0.75), must_hold=(),
                        reason="IOPS-bound, not CPU-bound")
    html = prose.verdict([holds, fails]).data
    assert html.startswith(f'<table class="{prose.TABLE_CLASS}">')
    assert html.count("<tr>") == 3  # the head and two claims
    assert "reads &lt;b&gt;nothing&lt;/b&gt;" in html  # claims are text, escaped
    assert "<td>yes</td>" in html and "<b>no</b>: IOPS-bound, not CPU-bound" in html
    assert '<td class="minidb-number">1.12</td><td class="minidb-number">0.5</td><td>&gt;= 0.75</td>' in html
    # every column has a width of its own: the table wraps to the column, "holds" stays in view (minidb.css)
    assert html.count("<col ") == 5 and '<col class="minidb-holds">' in html


def test_before_after_sets_a_chapters_figures_beside_the_record_of_an_earlier_commit(tmp_path):
    import json

    record = {"scale": "tiny", "commit": prose.BEFORE,
              "rows": [{"finding": "f1", "claim": "keeps its rate: old words", "published": 1.12, "ours": 0.5}]}
    (tmp_path / f"magnitudes-{prose.BEFORE}-tiny.json").write_text(json.dumps(record))
    found = [Claim.check("keeps its rate: new words", published=1.12, ours=1.0, band=at_least(0.75)),
             Claim.check("a new claim", published=2, ours=2, band=at_least(0))]
    table = prose.before_after("f1", found, "tiny", records=tmp_path)
    assert table.claim.tolist() == ["keeps its rate", "a new claim"]
    assert table.before.iloc[0] == 0.5 and table.now.iloc[0] == 1.0 and table.before.isna().iloc[1]
    assert list(prose.before_after("f1", found, "large", records=tmp_path).columns) == ["claim", "published", "ours",
                                                                                        "ratio"]


def test_outside_lists_each_claim_beyond_1_25x_with_its_reason():
    found = [Claim.check("close", published=2, ours=2.2, band=at_least(0)),
             Claim.check("far", published=2, ours=3, band=at_least(0), reason="the device differs"),
             Claim.check("words", published="some", ours=3, band=at_least(0))]
    text = prose.outside(found).data
    assert text == "* *far*: ours 3, 1.50 times the post's (2). The device differs."
    assert "Every published figure" in prose.outside(found[:1]).data
