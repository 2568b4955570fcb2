"""The server model's validation table at the tiny scale: what it predicts of runs it was not fitted to."""

import pytest

from minidb import engines
from minidb.experiments import calibration, claims
from minidb.experiments import server_model as sm

pytestmark = pytest.mark.xdist_group("server-model")  # its module fixtures run once, on one worker


@pytest.fixture(scope="module")
def tiny():
    # through the session's sweep cache, shared with the chapters (tests/conftest.py)
    return sm.run("tiny", progress=False)


def test_the_calibration_is_fitted_once_on_seed_001_and_its_parameters_are_positive():
    table = calibration.fit()
    assert {engines.kind_of(name) for name in table.engine} == set(engines.NAMES)
    assert (table.server_cpu_ms_per_txn > 0).all()
    assert (table.published_cpu_ms_per_txn > table.engine_cpu_ms_per_txn).all()
    attrs = table.attrs
    assert attrs["statement_seconds"] == pytest.approx(calibration.STATEMENT_TO_ROW * attrs["row_seconds"])
    # the fit reproduces the CPU per transaction it was fitted to, on the run it was fitted on
    units = (attrs["statement_seconds"] * table.statements_per_txn.mean()
             + attrs["row_seconds"] * table.rows_per_txn.mean())
    assert units * 1000 == pytest.approx(attrs["server_cpu_ms_per_txn"])
    # the parameters every workload defaults to are the fit's result (refit them when a change moves it by 0.1%)
    server = calibration.calibrated_server(binlog=True)
    assert (server.row_seconds, server.statement_seconds) == pytest.approx((attrs["row_seconds"],
                                                                            attrs["statement_seconds"]), rel=1e-3)


def test_a_runs_clients_are_the_share_of_threads_seed_001_kept_busy():
    # vmstat's user + system CPU at 100 GB: MyRocks 61 + 11 = 72% of the 56 hardware threads, InnoDB 55 + 12
    assert calibration.busy_share() == pytest.approx(0.72, abs=0.005)
    assert calibration.clients(56) == 40 and calibration.clients(36) == 26 and calibration.clients(1) == 1


def test_the_calibration_runs_come_from_the_sweep_cache_in_a_new_process(tmp_path, monkeypatch):
    """A process that refits (a test worker, chapter 2b) reads the engines' runs from the cache instead of rerunning
    them, and gets the same parameters."""
    monkeypatch.setenv("MINIDB_CACHE", str(tmp_path))
    calibration.fit.cache_clear()
    first = calibration.fit().attrs
    assert len(list((tmp_path / "server-calibration").glob("*.pkl"))) == len(engines.NAMES)
    calibration.fit.cache_clear()
    monkeypatch.setattr(calibration, "tpcc", lambda *a, **k: pytest.fail("the cached run was rerun"))
    assert calibration.fit().attrs == first


def test_the_validation_claims_that_must_hold_at_tiny_hold(tiny):
    assert claims.failing(sm.claims(tiny), "tiny") == []


def test_every_target_of_the_issue_is_in_the_table_and_a_missed_one_says_why(tiny):
    table = sm.claims(tiny)
    assert len(table) == 2 + 1 + 1 + 2 * 2 * 3  # F1 x2, F3, F4, clients: 2 compactions x 2 binlog x (1, 2, 16)
    assert all(c.reason for c in table if not c.holds)


def test_the_client_count_table_runs_every_point_and_throughput_grows_with_clients(tiny):
    table = tiny["clients"]
    assert len(table) == (1 + len(sm.COMPACTIONS)) * 2 * len(sm.CLIENTS)
    for _, runs in table.groupby(["engine", "compaction", "binlog"], dropna=False):
        rates = runs.sort_values("clients").ops_per_sec.to_numpy()
        assert (rates[1:] > rates[:-1]).all()  # below the cores and the serial point, more clients do more
    on, off = table[table.binlog], table[~table.binlog]
    assert (on.binlog_kb_per_op > 0).all() and (off.binlog_kb_per_op == 0).all()
    assert on.serial_seconds_per_op.mean() > off.serial_seconds_per_op.mean()  # the binlog's flush is serial


def test_the_published_table_is_seed_000s():
    pub = sm.published()
    assert set(pub.clients) >= set(sm.CLIENTS)
    assert sm.PUBLISHED_BTREE in set(pub.engine)


def test_the_server_slows_the_in_memory_inserts_the_engines_alone_ran_too_fast(tiny):
    rates = tiny["before_after"].set_index(["engine", "server"]).ops_per_sec
    for engine in ("btree", "lsm"):
        # the server's CPU per row, fitted on sysbench-tpcc's 75 rows a transaction, is a large part of an insert's
        # time: without it each engine runs half again as fast or more, at several times the post's rates
        assert rates[engine, False] > 1.5 * rates[engine, True]


def test_each_engines_serial_write_path_is_charged_and_bounds_its_rate(tiny):
    table = tiny["clients"]
    for _, run in table.iterrows():
        assert 0 < run.engine_serial_seconds_per_op <= run.serial_seconds_per_op
        assert run.ops_per_sec <= 1 / run.serial_seconds_per_op * (1 + 1e-9)  # X <= 1 / S, whatever the clients
    serial = table.groupby("engine").engine_serial_seconds_per_op.mean()
    assert serial["lsm"] > serial["btree"]  # RocksDB's leader inserts into the memtable; InnoDB only copies redo


def test_the_engines_serial_write_path_does_not_change_one_clients_rate(tiny):
    # at one client the serial section is part of the response time, already counted as CPU: no queueing
    one = tiny["clients"][tiny["clients"].clients == 1]
    for _, run in one.iterrows():
        assert run.bottleneck == "latency"
