"""The bottleneck law: the scarcest resource sets the throughput."""

import math

import pytest

from minidb.sim import Demand, Host, resource_times, throughput
from minidb.sim.bottleneck import in_words
from minidb.sim.device_time import RESOURCES
from minidb.storage import IOCounts, preset

SSD = preset("slow-ssd")  # 10k IOPS, 400 MB/s, 100 us per request


def test_iops_bound():
    per_op = Demand(cpu_seconds=10e-6, io=IOCounts(reads=1, read_bytes=16384))
    x, resource = throughput(per_op, SSD, Host(cores=48, clients=16))
    assert resource == "iops" and x == pytest.approx(10_000)


def test_bandwidth_bound_large_writes():
    per_op = Demand(cpu_seconds=0.0, io=IOCounts(writes=1, write_bytes=200_000))  # one IO unit, 200 KB
    x, resource = throughput(per_op, SSD, Host())
    assert resource == "bandwidth" and x == pytest.approx(400e6 / 200_000)


def test_cpu_bound_when_nothing_touches_the_device():
    per_op = Demand(cpu_seconds=1e-3, io=IOCounts())
    x, resource = throughput(per_op, SSD, Host(cores=8, clients=64))
    assert resource == "cpu" and x == pytest.approx(8 / 1e-3)


def test_few_clients_are_latency_bound():
    per_op = Demand(cpu_seconds=50e-6, io=IOCounts(reads=1, read_bytes=4096))
    times = resource_times(per_op, SSD, Host(cores=48, clients=1))
    assert times["latency"] == pytest.approx(50e-6 + 100e-6 + 4096 / 400e6)
    x, resource = throughput(per_op, SSD, Host(cores=48, clients=1))
    assert resource == "latency" and x == pytest.approx(1 / times["latency"])


def test_throughput_is_linear_in_iops_until_the_bandwidth_cap():
    per_op = Demand(0.0, IOCounts(reads=4, read_bytes=4 * 32768, writes=2, write_bytes=2 * 32768))
    rates = [throughput(per_op, preset("io1", iops=i), Host()) for i in (5000, 10000, 20000, 30000)]
    assert rates[1][0] == pytest.approx(2 * rates[0][0]) and rates[1][1] == "iops"
    cap = 500e6 / (6 * 32768)  # io1's 500 MB/s: past ~15,000 IOPS more IOPS buy nothing
    assert rates[2] == (pytest.approx(cap), "bandwidth") and rates[3] == (pytest.approx(cap), "bandwidth")


def test_no_demand_is_unbounded_and_bad_servers_are_refused():
    assert throughput(Demand(0.0, IOCounts()), SSD, Host())[0] == math.inf
    with pytest.raises(ValueError, match="cores >= 1"):
        Host(cores=0)


def test_every_resource_a_run_can_be_held_by_has_words():
    assert all(in_words(r) != r for r in RESOURCES)  # a claim's reason says what held the run, not its key
    assert in_words("iops") == "the device's IO requests per second" and in_words("other") == "other"
