"""Finding F7 at the tiny scale: seed 004's session on each disk-full behaviour, and the capacity sweep."""

import pytest

from minidb.experiments import claims as cl
from minidb.experiments import f7_disk_full as f7

from results_csv import assert_written_whole

pytestmark = pytest.mark.xdist_group("f7")  # its module fixtures run once, on one worker


@pytest.fixture(scope="module")
def tiny():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f7.run("tiny", progress=False, executor=False)


def session(tiny, behaviour):
    s = tiny.attrs["session"]
    return s[s.behaviour == behaviour].sort_values("step")


def told(rows, statement):
    return list(rows[rows.statement == statement].client_told)


def counts(rows, table):
    return list(rows[rows.statement == f"select count(*) from {table}"].count_star)


def test_the_claims_that_must_hold_at_tiny_hold(tiny):
    assert cl.failing(f7.claims(tiny), "tiny") == []


def test_one_row_per_behaviour_with_the_columns_in_order(tiny):
    assert list(tiny.columns) == list(f7.COLUMNS)
    assert list(tiny.behaviour) == list(f7.BEHAVIOURS)
    assert (tiny.points > 0).all()


def test_only_the_2018_behaviour_loses_acknowledged_rows_anywhere_in_the_sweep(tiny):
    lost = tiny.set_index("behaviour").acked_rows_lost
    assert lost["2018 bug"] > 0
    assert (lost.drop("2018 bug") == 0).all()
    points = tiny.attrs["points"]
    assert (points[points.behaviour != "2018 bug"].acked_rows_lost == 0).all()


def test_the_fixed_behaviours_tell_the_client(tiny):
    errors = tiny.set_index("behaviour").client_errors
    assert (errors.drop("2018 bug") > 0).all()


def test_the_2018_session_acknowledges_and_loses_like_the_post(tiny):
    rows = session(tiny, "2018 bug")
    n = f7.SIZES["tiny"].session_rows
    assert told(rows, "insert into sbtest1 set k=1") == ["Query OK, 1 row affected"]
    assert told(rows, "delete from sbtest2 where id<100") == ["Query OK, 99 rows affected"]
    assert set(counts(rows, "sbtest1")) == {n} and set(counts(rows, "sbtest2")) == {n}  # the post's count(*)
    assert rows.acked_changes_lost.iloc[0] == 100
    assert all(t.startswith("ERROR 1105") for t in told(rows, "CREATE INDEX k_4 ON sbtest4(k)"))


def test_the_abort_session_stops_then_restarts_with_nothing_lost(tiny):
    rows = session(tiny, "abort on WAL error")
    assert told(rows, "insert into sbtest1 set k=1") == ["ERROR 2013: lost connection (the server aborted)"]
    assert "(mysqld restarts after the abort)" in set(rows.statement)
    assert rows.acked_changes_lost.iloc[0] == 0


def test_the_btree_session_says_table_full_and_loses_nothing(tiny):
    rows = session(tiny, "InnoDB-like")
    n = f7.SIZES["tiny"].session_rows
    assert told(rows, "CREATE INDEX k_1 ON sbtest1(k)") == ["ERROR 1114: the table is full"]
    assert counts(rows, "sbtest1")[-1] == n + 1 and counts(rows, "sbtest2")[-1] == n - 99
    assert rows.acked_changes_lost.iloc[0] == 0


def test_published_gives_the_posts_tables():
    p = f7.published()
    assert set(p) == {"setup", "session", "restart"}
    assert f7.published_changes_lost() == 100
    assert set(p["session"].count_star.dropna()) == {1_000_000}


def test_an_unknown_behaviour_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown behaviour 'x'"):
        f7.open_engine("x", None)


# -- the free-space grid: the session with more or less space free after the load ------------------------------------
@pytest.fixture(scope="module")
def free_grid():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return f7.free_space_grid("tiny", progress=False, executor=False)


def test_the_free_space_grid_has_every_behaviour_at_every_setting(free_grid):
    assert len(free_grid) == len(f7.BEHAVIOURS) * len(f7.FREE_SPACE_PCTS)
    for _, rows in free_grid.groupby("behaviour"):
        assert list(rows.free_space_pct) == list(f7.FREE_SPACE_PCTS)
        assert rows.free_bytes.is_monotonic_increasing and rows.free_bytes.iloc[0] == 0


def test_only_the_2018_behaviour_loses_changes_at_any_free_space(free_grid):
    lost = free_grid.groupby("behaviour").acked_changes_lost.max()
    assert lost["2018 bug"] == f7.published_changes_lost()
    assert (lost.drop("2018 bug") == 0).all()


def test_the_2018_behaviour_can_lose_changes_without_refusing_a_statement(free_grid):
    bug = free_grid[free_grid.behaviour == "2018 bug"]
    silent = bug[(bug.acked_changes_lost > 0) & (bug.statements_refused == 0)]
    assert len(silent) and silent.flush_failed.all(), "the flush's error went to the log only"


def test_with_nothing_free_every_behaviour_is_refused_and_builds_no_index(free_grid):
    none_free = free_grid[free_grid.free_space_pct == 0]
    assert (none_free.statements_refused > 0).all() and (none_free.indexes_built == 0).all()


@pytest.mark.parametrize("behaviour", list(f7.BEHAVIOURS))
def test_the_space_the_session_needs_is_exactly_enough(behaviour):
    rows = f7.SIZES["tiny"].session_rows
    need = f7.space_the_session_needs(behaviour, rows)

    def failures(free):
        s = f7.session(behaviour, rows, free=free)
        before = s.iloc[:s.index[s.statement == "(resize the partition)"][0]]
        return int(before.client_told.str.startswith(("ERROR", "error log")).sum())

    assert failures(need) == 0
    assert failures(need - 1) > 0


def test_negative_free_space_is_refused():
    with pytest.raises(ValueError, match="free must be >= 0"):
        f7.session("InnoDB-like", 10, free=-1)


def test_the_experiment_command_writes_every_row_to_one_csv(tiny, tmp_path):
    assert_written_whole(tiny, tmp_path / "f7.csv")
