"""Finding F2 at the tiny scale: bytes written per Linkbench transaction by page size, doublewrite and engine."""

import math

import pandas as pd
import pytest

from minidb import engines
from minidb.experiments import claims
from minidb.experiments import f2_write_efficiency as f2

from results_csv import assert_written_whole


@pytest.fixture(scope="module")
def tiny():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f2.run("tiny", progress=False)


def row(frame, engine, kb, doublewrite):
    rows = frame[(frame.engine == engine) & (frame.page_size_kb == kb)
                 & frame.doublewrite.apply(lambda d: d is doublewrite)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_one_row_per_configuration_with_the_columns_in_order(tiny):
    assert list(tiny.columns) == list(f2.COLUMNS)
    assert len(tiny) == len(f2.POINTS)
    assert tiny.cache_bytes.nunique() == 1  # every engine and page size gets the same cache
    btree = tiny[tiny.engine == "btree"]
    assert (btree.cache_bytes < 0.1 * btree.db_bytes).all()  # IO-bound, as the seed's 50 GB for 1.6 TB


def test_btree_writes_more_per_transaction_with_larger_pages(tiny):
    wkb = [row(tiny, "btree", kb, True).wkb_per_txn for kb in (4, 8, 16)]
    assert wkb[0] < wkb[1] < wkb[2]
    assert wkb[2] > 2.5 * wkb[0]  # seed 002: 19.70 / 6.13 = 3.2


def test_doublewrite_doubles_the_page_writes(tiny):
    on, off = row(tiny, "btree", 16, True), row(tiny, "btree", 16, False)
    assert on.doublewrite_wkb_per_txn == pytest.approx(on.page_wkb_per_txn)
    assert off.doublewrite_wkb_per_txn == 0
    assert on.wkb_per_txn == pytest.approx(2 * off.page_wkb_per_txn + on.log_wkb_per_txn, rel=0.05)


def test_the_lsm_writes_least(tiny):
    lsm = row(tiny, "lsm", 16, None)
    assert lsm.wkb_per_txn < min(tiny[tiny.engine == "btree"].wkb_per_txn) / 3  # seed 002: 1.25 vs >= 6.13


def test_every_published_kb_per_transaction_has_its_claim(tiny):
    # Seed 002's table gives each engine's KB written per transaction: a claim sets ours beside each of them.
    found = {c.claim: c for c in f2.claims(tiny)}
    pub = f2.published().set_index(["engine", "page_size_kb"]).wkb_per_txn
    on = tiny[tiny.doublewrite.isin([True, None])].set_index(["engine", "page_size_kb"]).wkb_per_txn
    for kb in (4, 8, 16):
        claim = found[f"With {kb} KiB pages the B+tree writes KB per transaction as InnoDB did (within 2x)"]
        assert (claim.published, claim.ours) == (pub["InnoDB", kb], on["btree", kb])
    claim = found["The LSM writes KB per transaction as MyRocks did (within 2x)"]
    assert (claim.published, claim.ours) == (pub["MyRocks", 16], on["lsm", 16])
    assert claim.must_hold == ("small", "large") and claim.reason  # tiny's LSM is too shallow: it says why


def test_the_posts_rates_have_claims_whose_reasons_count_what_holds_our_runs(tiny):
    found = {c.claim.split(":")[0]: c for c in f2.claims(tiny)}
    pub = f2.published().set_index(["engine", "page_size_kb"]).tps
    pages, lsm = found["Smaller pages are faster"], found["The LSM is faster than the B+tree with 16 KiB pages"]
    assert pages.published == pub["InnoDB", 4] / pub["InnoDB", 16]  # seed 002: 24,845 against 21,414
    assert lsm.published == pub["MyRocks", 16] / pub["InnoDB", 16]
    on = tiny[tiny.doublewrite.isin([True, None])].set_index(["engine", "page_size_kb"])
    assert f"{on.reads_per_txn['btree', 4]:.2f} page reads" in pages.reason
    assert f"the LSM makes {on.reads_per_txn['lsm', 16]:.2f} reads" in lsm.reason


def test_published_has_the_seed_table_in_the_same_columns():
    pub = f2.published()
    assert set(pub.columns) <= set(f2.COLUMNS)
    assert {engines.kind_of(name) for name in pub.engine} == set(engines.NAMES)
    innodb = pub[pub.engine == "InnoDB"].set_index("page_size_kb").wkb_per_txn
    assert innodb[16] / innodb[4] > 2.5


def test_same_seed_same_numbers(tiny):
    again = f2.run("tiny", cache_dir=False, progress=False)
    assert again.equals(tiny) and f2.levels_of(again).equals(f2.levels_of(tiny))


def test_an_unknown_engine_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown engine 'heap'"):
        f2.run_point("heap", 16384, None, nodes=100, requests=10)


def test_every_claim_that_must_hold_at_tiny_holds_and_the_others_say_why(tiny):
    found = f2.claims(tiny)
    assert claims.failing(found, "tiny") == []
    assert all(c.reason for c in found if not c.holds)  # a claim shown as not reproduced gives its reason


def levels(*rows):
    """A levels frame (``f2.LEVEL_COLUMNS``) from (level, size, moved, rewritten, written) tuples, in KB."""
    return pd.DataFrame([("lsm", *r) for r in rows], columns=list(f2.LEVEL_COLUMNS))


def test_the_lsm_keeps_its_level_flows_and_the_btree_has_none(tiny):
    flows = f2.levels_of(tiny)
    assert list(flows.columns) == list(f2.LEVEL_COLUMNS) and set(flows.engine) == {"lsm"}
    assert flows.level.iloc[0] == "L0" and flows.moved_kb.iloc[0] == 0  # L0 receives flushes, nothing moved
    deeper = flows.iloc[1:]
    assert (deeper.written_kb <= deeper.moved_kb + deeper.rewritten_kb + 1e-9).all()  # a merge drops, never adds


def test_the_model_charges_each_level_moved_into_half_of_one_plus_its_fanout():
    # L1 is 4x L0 and received all 100 KB flushed: 1 + 1 x (1 + 4) / 2; L2 is empty and L3, 10x L1 (the nearest
    # non-empty level above), received half of them: + 0.5 x (1 + 10) / 2
    shape = levels(("L0", 10, 0, 0, 100), ("L1", 40, 100, 150, 250), ("L2", 0, 0, 0, 0), ("L3", 400, 50, 300, 350))
    assert f2.model_lsm_write_amp(shape) == pytest.approx(1 + 2.5 + 0.5 * 5.5)
    assert f2.counted_lsm_write_amp(shape) == pytest.approx(700 / 100)
    per_level = f2.level_model(shape)
    assert list(per_level.level) == ["L1", "L3"] and list(per_level.fanout) == [4, 10]
    assert list(per_level.written) == [2.5, 3.5] and list(per_level.model) == [2.5, 2.75]


def test_an_empty_l0_leaves_the_base_levels_fanout_unknown_not_infinite():
    shape = levels(("L0", 0, 0, 0, 100), ("L6", 30, 100, 0, 100))
    assert f2.level_model(shape).fanout.isna().all() and math.isnan(f2.model_lsm_write_amp(shape))


def test_a_level_nothing_was_moved_into_adds_nothing_to_the_model():
    assert f2.model_lsm_write_amp(levels(("L0", 10, 0, 0, 100), ("L6", 30, 0, 0, 0))) == 1.0


def test_the_model_claim_needs_the_level_flows(tiny):
    with_flows = f2.claims(tiny)
    bare = tiny.copy()
    bare.attrs = {}
    assert len(f2.claims(bare)) == len(with_flows) - 1
    model = with_flows[-1]
    assert "level sizes" in model.claim and model.band == f2.MODEL_BAND
    flows = f2.levels_of(tiny)
    assert model.ours == pytest.approx(f2.model_lsm_write_amp(flows) / f2.counted_lsm_write_amp(flows), nan_ok=True)


def test_the_experiment_command_writes_every_row_to_one_csv(tiny, tmp_path):
    assert_written_whole(tiny, tmp_path / "f2.csv")
