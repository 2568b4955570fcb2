"""Finding F9 at the tiny scale: read cost at many stopping points of a read-write phase."""

import pandas as pd
import pytest

from minidb.experiments import claims as claims_mod
from minidb.experiments import f9_read_cost as f9

from results_csv import assert_written_whole


@pytest.fixture(scope="module")
def tiny():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f9.run("tiny", progress=False, executor=False)


def test_one_row_per_pass_and_stop(tiny):
    assert list(tiny.columns) == list(f9.COLUMNS)
    assert len(tiny) == len(f9.PASSES) * f9.STOPS
    for name in f9.PASSES:
        p = tiny[tiny["pass"] == name]
        assert p.stop.tolist() == list(range(1, f9.STOPS + 1))
        assert p.events.is_monotonic_increasing and p.events.iloc[-1] == f9.SIZES["tiny"][1]


def test_the_claims_that_must_hold_at_tiny_hold(tiny):
    assert claims_mod.failing(f9.claims(tiny), "tiny") == []


def test_settled_reads_find_no_memtable_and_no_l0(tiny):
    settled = tiny[tiny["pass"] == f9.SETTLED]
    assert (settled.l0_files == 0).all() and (settled.memtable_entries == 0).all()
    assert (settled.immutable_memtables == 0).all()


def test_the_lsm_counts_a_bloom_probe_per_file_probed(tiny):
    lsm = tiny[tiny.engine == "lsm"]
    assert (lsm.bloom_probes_per_get == lsm.tables_probed_per_get).all()  # every SST here has a filter
    assert (lsm.bloom_false_positives_per_get <= lsm.bloom_probes_per_get).all()
    btree = tiny[tiny.engine == "btree"]
    assert (btree.tables_probed_per_get == 0).all() and (btree.blocks_visited_per_get >= 1).all()


def test_spread_is_highest_minus_lowest(tiny):
    s = f9.spread(tiny).set_index("pass")
    lsm = tiny[tiny["pass"] == f9.LSM].tables_probed_per_get
    assert s.loc[f9.LSM, "spread"] == pytest.approx(lsm.max() - lsm.min())


def test_same_seed_same_numbers(tiny):
    again = f9.run_pass(f9.LSM, *f9.SIZES["tiny"])
    mine = tiny[tiny["pass"] == f9.LSM].drop(columns=["pass"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(again[mine.columns], mine, check_dtype=False)  # the sweep's concat adds NaNs


def test_published_names_issue_427():
    assert f9.published().rocksdb_issue.tolist() == ["issue 427"]


def test_bad_pass_and_stops_are_clear_errors():
    with pytest.raises(ValueError, match="unknown pass 'hash'"):
        f9.run_pass("hash", 100, 10, 10)
    with pytest.raises(ValueError, match="stops must be between 1 and rw_events"):
        f9.run_pass(f9.LSM, 100, 10, 10, stops=11)


def test_the_experiment_command_writes_every_row_to_one_csv(tiny, tmp_path):
    assert_written_whole(tiny, tmp_path / "f9.csv")
