"""The simulator: a step's duration from its counted IO and work, with background work sharing the device."""

import pytest

from minidb.sim import Clock, CostModel, Host, Simulator
from minidb.storage import SimDevice, preset

SSD = preset("slow-ssd")  # 10k IOPS, 400 MB/s, 100 us per request
PAGE = 16384


def setup(clients=16, cores=48, work=None):
    device = SimDevice()
    clock = Clock(SSD, CostModel())
    sim = Simulator(device, clock, Host(cores=cores, clients=clients), work=work)
    f = device.open("data", kind="data", create=True)
    f.write(0, b"x" * PAGE * 100)
    return device, clock, sim, f


def test_a_step_of_foreground_reads_takes_its_device_time():
    device, clock, sim, f = setup()
    sim.begin()
    for i in range(100):
        f.read(i * PAGE, PAGE)
    step = sim.end(ops=100)
    io_cpu = 100 * PAGE * (CostModel().costs["crc32_bytes"] + CostModel().costs["copy_bytes"])
    assert step.bottleneck == "iops"
    assert step.end - step.start == pytest.approx(100 / 10_000)
    assert step.cpu_seconds == pytest.approx(io_cpu)
    assert clock.now == pytest.approx(0.01)
    assert clock.utilization() == pytest.approx(1.0)  # what the next background job will see


def test_one_client_is_latency_bound():
    device, clock, sim, f = setup(clients=1)
    sim.begin()
    for i in range(10):
        f.read(i * PAGE, PAGE)
    step = sim.end(ops=10)
    assert step.bottleneck == "latency"
    assert step.end - step.start == pytest.approx(10 * 100e-6 + 10 * PAGE / 400e6 + step.cpu_seconds)


def test_counted_work_is_charged_as_cpu():
    counts = {"key_compares": 0}
    device, clock, sim, f = setup(cores=1, work=lambda: dict(counts))
    sim.begin()
    counts["key_compares"] = 1_000_000
    step = sim.end(ops=1)
    assert step.bottleneck == "cpu"
    assert step.cpu_seconds == pytest.approx(1_000_000 * CostModel().costs["key_compares"])


def test_undeclared_background_io_becomes_a_job_that_slows_the_next_steps():
    device, clock, sim, f = setup()
    sim.begin()
    with device.stats.cause("compaction"):
        for i in range(100):
            f.write(i * PAGE, b"y" * PAGE)
    first = sim.end(ops=1)
    assert first.device_seconds == 0 and clock.background.submitted == 1
    job = clock.background.jobs[0]
    assert job.end - job.start == pytest.approx(100 / 10_000)  # the foreground was idle: the job got all of it
    sim.begin()
    f.read(0, PAGE)
    second = sim.end(ops=1)
    assert second.end - second.start == pytest.approx(1 / 10_000 + (job.end - second.start))  # waited for it


def test_declared_background_io_is_not_queued_twice():
    device, clock, sim, f = setup()
    sim.begin()
    before = device.stats.snapshot()
    with device.stats.cause("flush"):
        f.write(0, b"z" * PAGE)
    clock.job_duration((device.stats - before).total())
    sim.end(ops=1)
    assert clock.background.submitted == 1


def test_stalls_inside_a_step_come_before_its_work():
    device, clock, sim, f = setup()
    sim.begin()
    clock.wait_until(2.0)
    f.read(0, PAGE)
    step = sim.end(ops=1)
    assert step.stalled == 2.0 and step.start == 2.0 and step.end == pytest.approx(2.0001)


def test_misuse_is_refused():
    device, clock, sim, f = setup()
    with pytest.raises(ValueError, match="no step is open"):
        sim.end(1)
    sim.begin()
    with pytest.raises(ValueError, match="already open"):
        sim.begin()
    with pytest.raises(ValueError, match="device model"):
        Simulator(device, Clock(), Host())
