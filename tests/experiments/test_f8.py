"""Finding F8 at the tiny scale: transaction memory by size, the limits at N and N+1, commit in the middle's price."""

import pytest

from minidb.experiments import claims as claims_mod
from minidb.experiments import f8_big_transactions as f8

from results_csv import assert_written_whole


@pytest.fixture(scope="module")
def tiny():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f8.run("tiny", progress=False, executor=False)


def test_one_row_per_point_with_the_columns(tiny):
    assert list(tiny.columns) == [*f8.COLUMNS, "option"]
    assert len(tiny) == len(f8.points("tiny"))
    assert list(tiny.part.unique()) == list(f8.PARTS)


def test_the_claims_that_must_hold_at_tiny_hold(tiny):
    assert claims_mod.failing(f8.claims(tiny), "tiny") == []


def test_the_lsm_holds_its_whole_batch_and_the_btree_one_change(tiny):
    mem = tiny[tiny.part == "memory"]
    lsm, btree = mem[mem.engine == "lsm"], mem[mem.engine == "btree"]
    assert (lsm.held_before_commit_bytes == lsm.rows * f8.ROW_BYTES).all()  # every row's change, buffered
    assert (btree.held_before_commit_bytes == 0).all()
    assert (btree.peak_bytes < 2 * f8.ROW_BYTES).all()  # one change and its undo record
    # What the B+tree does not keep in memory it writes to its log: each change's undo rides with its redo.
    assert (btree.log_bytes_per_row.values > lsm.log_bytes_per_row.values).all()


def test_the_limit_errors_name_their_knob_and_what_to_do(tiny):
    lim = tiny[(tiny.part == "limits") & (tiny.error != "")]
    assert set(zip(lim.engine, lim.option)) == {("lsm", "max_rows"), ("btree", "max_rows"), ("lsm", "max_bytes")}
    for _, row in lim.iterrows():
        assert f"({row.option}" in row.error and "commit_in_the_middle" in row.error
    assert lim[lim.option == "max_rows"].error.str.contains("rocksdb_max_row_locks").all()


def test_a_crash_keeps_whole_chunks_only(tiny):
    crash = tiny[tiny.part == "crash"]
    size = f8.SIZES["tiny"]
    chunked = crash[crash.commit_in_the_middle.notna()]
    assert (chunked.rows_after_reopen == (size.crash_after // size.chunk) * size.chunk).all()
    assert (crash[crash.commit_in_the_middle.isna()].rows_after_reopen == 0).all()


def test_same_seed_same_numbers(tiny):
    again = f8.memory_point("btree", f8.SIZES["tiny"].rows[0])
    row = tiny[(tiny.part == "memory") & (tiny.engine == "btree")].iloc[0]
    assert again["peak_bytes"] == row.peak_bytes and again["log_bytes_per_row"] == row.log_bytes_per_row


def test_published_names_the_options():
    assert {"rocksdb_max_row_locks", "rocksdb_commit_in_the_middle"} <= set(f8.published().option.dropna())


def test_an_unknown_limit_option_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown limit option 'max_locks': use max_rows or max_bytes"):
        f8.limit_point("lsm", "max_locks", 10, 11)


def test_the_experiment_command_writes_every_row_to_one_csv(tiny, tmp_path):
    assert_written_whole(tiny, tmp_path / "f8.csv")
