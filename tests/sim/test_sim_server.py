"""The server model: SQL-layer CPU, the binlog's group commit counted as IO, and the serial section's cap."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from minidb import engines
from minidb.sim import Clock, CostModel, Host, Simulator
from minidb.sim.server import (BINLOG_FILE, COMMIT_EVENTS_BYTES, ROWS_EVENT_BYTES, ROWS_EVENT_HEADER, Binlog,
                               ServerModel, binlog_bytes)
from minidb.storage import SimDevice, preset
from minidb.workloads import DataSetup, RunSetup, insert_benchmark, sysbench

SSD = preset("slow-ssd")


def binlog(group_commit_max=0, sync_binlog=1):
    device = SimDevice()
    return device, Binlog(device, ServerModel(binlog=True, sync_binlog=sync_binlog, group_commit_max=group_commit_max))


@pytest.mark.parametrize("clients", [1, 2, 16])
def test_a_group_of_one_commit_per_client_shares_one_write_and_one_sync(clients):
    device, log = binlog()
    for _ in range(clients - 1):  # N - 1 commits: the group is still open, nothing written
        log.commit(clients, 100)
    assert device.stats.total(kind="binlog").writes == 0
    log.commit(clients, 100)  # the N-th commit closes the group: one write, one sync
    io = device.stats.total(kind="binlog", cause="binlog")
    assert (io.writes, io.syncs, log.groups) == (1, 1, 1)
    assert io.write_bytes == clients * binlog_bytes(1, 100) == log.size
    log.commit(clients, 100)  # N + 1: a second group opens
    log.flush()
    assert device.stats.total(kind="binlog").syncs == 2


@pytest.mark.parametrize("clients", [1, 2, 16])
def test_the_flush_stage_flushes_the_engines_log_once_per_group_before_the_binlog(clients):
    device = SimDevice()
    calls = []
    log = Binlog(device, ServerModel(binlog=True, sync_binlog=1),
                 lambda: calls.append(device.stats.total(kind="binlog").writes))
    for _ in range(clients - 1):  # N - 1 commits: no group is flushed yet
        log.commit(clients, 100)
    assert calls == []
    log.commit(clients, 100)  # the N-th: the engine's log first, then the group's one binlog write
    assert calls == [0] and device.stats.total(kind="binlog").writes == 1
    log.flush()  # no commit waits: nothing to flush
    assert calls == [0]


@pytest.mark.parametrize("engine,kind", [("lsm", "wal"), ("btree", "redo")])
def test_with_the_binlog_an_engine_that_syncs_every_commit_syncs_once_per_group(engine, kind):
    data = DataSetup(engine, seed=3, engine_options=engines.get(engine).preset("sync-on-commit"))
    runs = {binlog: sysbench(RunSetup(data, clients=4, server_model=ServerModel(binlog=binlog)), 2000, 100)
            for binlog in (False, True)}
    groups = runs[True].io.total(kind="binlog", cause="binlog").writes
    synced_off, synced_on = (runs[b].io.total(kind=kind).syncs for b in (False, True))
    assert groups >= 5 and synced_off >= 3 * groups  # without the binlog: a sync per writing commit
    assert synced_on <= synced_off / 2  # with it: once per group of 4 commits (and where the engine needs one)


def test_group_commit_max_caps_the_group_and_sync_binlog_syncs_every_nth_group():
    device, log = binlog(group_commit_max=4, sync_binlog=3)
    for _ in range(4 * 6):
        log.commit(16, 10)
    io = device.stats.total(kind="binlog")
    assert (log.groups, io.writes, io.syncs) == (6, 6, 2)
    device, log = binlog(sync_binlog=0)
    for _ in range(32):
        log.commit(16, 10)
    assert device.stats.total(kind="binlog").syncs == 0  # sync_binlog=0: the OS writes it back


def test_binlog_bytes_count_each_commits_events_and_a_rows_event_per_8_kib():
    assert binlog_bytes(1, 100) == COMMIT_EVENTS_BYTES + ROWS_EVENT_HEADER + 100
    assert binlog_bytes(1, ROWS_EVENT_BYTES) == binlog_bytes(1, 0) + ROWS_EVENT_BYTES
    assert binlog_bytes(1, ROWS_EVENT_BYTES + 1) == binlog_bytes(1, 0) + ROWS_EVENT_HEADER + ROWS_EVENT_BYTES + 1
    with pytest.raises(ValueError, match="commits >= 0"):
        binlog_bytes(-1, 0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 20_000), max_size=60), st.integers(1, 8), st.integers(0, 5))
def test_every_committed_byte_reaches_the_binlog_once_and_groups_never_exceed_the_clients(sizes, clients, sync):
    device, log = binlog(sync_binlog=sync)
    for n in sizes:
        log.commit(clients, n)
    log.flush()
    io = device.stats.total(kind="binlog")
    assert io.write_bytes == sum(binlog_bytes(1, n) for n in sizes) == log.size
    assert log.groups == -(-len(sizes) // clients)  # full groups of one commit per client, then the rest
    assert io.syncs == (log.groups // sync if sync else 0)


@pytest.mark.parametrize("bad", [dict(row_seconds=-1.0), dict(sync_binlog=-1), dict(sync_binlog=True),
                                 dict(group_commit_max=1.5)])
def test_bad_server_options_are_refused_by_name(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        ServerModel(**bad)


def timed_step(server_model, clients, statements=0, rows=0, commits=0, cores=48):
    device = SimDevice()
    sim = Simulator(device, Clock(SSD, CostModel()), Host(cores=cores, clients=clients), server_model=server_model)
    sim.begin()
    return sim.end(ops=commits or 1, statements=statements, rows=rows, commits=commits)


def test_the_sql_layer_charges_statements_and_rows_as_cpu():
    model = ServerModel(statement_seconds=10e-6, row_seconds=2e-6)
    step = timed_step(model, clients=1, statements=3, rows=100)
    assert step.server_cpu_seconds == pytest.approx(3 * 10e-6 + 100 * 2e-6) == step.cpu_seconds
    assert step.end - step.start == pytest.approx(step.cpu_seconds)  # one client: its response time
    assert timed_step(ServerModel.none(), clients=1, statements=3, rows=100).cpu_seconds == 0


def test_throughput_stops_scaling_with_clients_past_the_serial_point():
    # 100 us of CPU per commit, 10 us of it serial: X <= clients / 110 us, and X <= 1 / 10 us whatever the clients
    model = ServerModel(row_seconds=100e-6, commit_serial_seconds=10e-6)
    rate = {n: 1000 / (timed_step(model, n, rows=1000, commits=1000).end) for n in (1, 2, 4, 8, 11, 12, 16, 32)}
    assert rate[2] == pytest.approx(2 * rate[1])
    assert rate[8] == pytest.approx(8 * rate[1])
    assert rate[11] == pytest.approx(1 / 10e-6)  # the serial point: 11 clients / 110 us = 1 / 10 us
    assert rate[12] == rate[16] == rate[32] == pytest.approx(1 / 10e-6)
    assert timed_step(model, 16, rows=1000, commits=1000).bottleneck == "serial"
    assert timed_step(model, 4, rows=1000, commits=1000).bottleneck == "latency"


def test_binlog_syncs_are_serial_time():
    device = SimDevice()
    model = ServerModel(binlog=True, sync_binlog=1, commit_serial_seconds=0.0)
    log = Binlog(device, model)
    sim = Simulator(device, Clock(SSD, CostModel()), Host(cores=48, clients=4), server_model=model)
    sim.begin()
    for _ in range(8):
        log.commit(4, 0)
    step = sim.end(ops=8, commits=8)
    binlog_io = device.stats.total(kind="binlog")
    assert binlog_io.syncs == 2  # two groups of four
    assert step.serial_seconds >= 2 * SSD.sync_latency


def test_a_workload_with_the_binlog_counts_its_writes_and_leaves_them_out_of_the_database_size():
    storage = SimDevice()
    data = DataSetup("lsm", seed=3)
    off = insert_benchmark(RunSetup(data, server_model=ServerModel.none()), 2000)
    on = insert_benchmark(RunSetup(data, storage=storage, server_model=ServerModel(binlog=True, sync_binlog=1)), 2000)
    assert off.io.total(kind="binlog").write_bytes == 0 and off.summary["binlog_kb_per_op"] == 0
    written = on.io.total(kind="binlog", cause="binlog")
    assert written.write_bytes > 0 and written.syncs == written.writes  # sync_binlog=1: every group synced
    assert on.summary["binlog_kb_per_op"] == pytest.approx(written.write_bytes / 1024 / 2000)
    assert on.summary["wkb_per_op"] > off.summary["wkb_per_op"]  # iostat sees the binlog, as the posts' did
    assert on.summary["db_bytes"] == off.summary["db_bytes"]  # the binlog is not the database
    assert on.summary["serial_seconds_per_op"] > 0 and BINLOG_FILE in storage.list()


class BinlogMachine(RuleBasedStateMachine):
    """The binlog against a model: a list of open-group sizes and the bytes of every closed group."""

    def __init__(self):
        super().__init__()
        self.device = SimDevice()
        self.clients, self.sync = 4, 2
        self.log = Binlog(self.device, ServerModel(binlog=True, sync_binlog=self.sync))
        self.pending, self.closed = [], []  # model: bytes of the open group's commits; bytes of each closed group

    @rule(row_bytes=st.integers(0, 20_000))
    def commit(self, row_bytes):
        self.log.commit(self.clients, row_bytes)
        self.pending.append(binlog_bytes(1, row_bytes))
        if len(self.pending) == self.clients:
            self.closed.append(sum(self.pending))
            self.pending = []

    @rule()
    def flush(self):
        self.log.flush()
        if self.pending:
            self.closed.append(sum(self.pending))
            self.pending = []

    @invariant()
    def written_groups_match_the_model(self):
        io = self.device.stats.total(kind="binlog", cause="binlog")
        assert (io.writes, io.write_bytes, self.log.size) == (len(self.closed), sum(self.closed), sum(self.closed))
        assert io.syncs == len(self.closed) // self.sync == self.log.syncs
        assert len(self.pending) < self.clients


TestBinlogMachine = BinlogMachine.TestCase
TestBinlogMachine.settings = settings(max_examples=30, stateful_step_count=40, deadline=None)


def engine_step(clients, server_model=None, compares=10_000, serial_share=0.25):
    """A step whose engine did ``compares`` key comparisons, ``serial_share`` of them in its serial write path."""
    counts = {"work": 0, "serial": 0}
    sim = Simulator(SimDevice(), Clock(SSD, CostModel()), Host(cores=48, clients=clients),
                    server_model=server_model or ServerModel(commit_serial_seconds=0.0),
                    work=lambda: {"key_compares": counts["work"]}, serial_work=lambda: {"key_compares": counts["serial"]})
    sim.begin()
    counts["work"], counts["serial"] = compares, int(compares * serial_share)
    return sim.end(ops=1000, commits=1000)


def test_one_client_pays_the_engines_serial_work_once_in_its_response_time():
    step = engine_step(clients=1)
    cpu = 10_000 * CostModel().costs["key_compares"]
    assert step.cpu_seconds == pytest.approx(cpu)
    assert step.engine_serial_seconds == step.serial_seconds == pytest.approx(cpu / 4)
    assert step.end - step.start == pytest.approx(cpu)  # no queueing, and the serial part not counted twice
    assert step.bottleneck == "latency"


def test_clients_past_one_over_the_serial_share_are_held_by_the_engines_serial_write_path():
    # a quarter of the work serial: 4 clients just saturate it (4 / R == 1 / S), 3 do not, 5 and 16 wait for it
    duration = {n: engine_step(clients=n).end for n in (3, 4, 5, 16)}
    serial = engine_step(clients=1).serial_seconds
    assert duration[3] == pytest.approx(4 * serial / 3)
    assert duration[4] == pytest.approx(serial)
    assert duration[5] == duration[16] == pytest.approx(serial)
    assert engine_step(clients=16).bottleneck == "serial"


def test_the_engine_alone_model_charges_no_serial_write_path():
    step = engine_step(clients=16, server_model=ServerModel.none())
    assert step.serial_seconds == step.engine_serial_seconds == 0
    assert step.end - step.start == pytest.approx(step.cpu_seconds / 16)


@pytest.mark.parametrize("engine", ["btree", "lsm"])
def test_each_engine_counts_its_serial_write_path_as_part_of_its_work(engine):
    setup = RunSetup(DataSetup(engine, seed=3), clients=16, server_model=ServerModel(commit_serial_seconds=0.0))
    r = insert_benchmark(setup, 2000)
    s = r.summary
    assert 0 < s["engine_serial_seconds_per_op"] == pytest.approx(s["serial_seconds_per_op"])
    assert s["engine_serial_seconds_per_op"] < s["cpu_seconds_per_op"]
