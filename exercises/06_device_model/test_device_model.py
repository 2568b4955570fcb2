"""Graded tests of exercise 06, the device model, on its own. Run them with ``pytest exercises/06_device_model``.

The examples are a slow SSD of chapter 6's seed 000 and an EBS volume of seed 003; Hypothesis draws counted IO and
devices of every size and checks the laws the model must obey. The ``device_model`` fixture is your module
(``--student PATH`` grades another file or folder instead).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable

KIB = 1024
MB = 1_000_000
# A cloud volume: 10,000 IOPS, 500 MB/s, IOs of up to 256 KiB, 0.5 ms per request.
VOLUME = {"iops": 10_000, "bandwidth": 500 * MB, "max_io_bytes": 256 * KIB, "read_latency": 5e-4,
          "write_latency": 5e-4, "sync_latency": 5e-4}
# 1,000 page reads of 16 KiB and 100 page writes with 10 syncs.
PAGES = {"reads": 1000, "writes": 100, "syncs": 10, "read_bytes": 1000 * 16 * KIB, "write_bytes": 100 * 16 * KIB}
RESOURCES = {"cpu", "iops", "bandwidth", "latency"}

counts = st.integers(min_value=0, max_value=10**6)
ios = st.fixed_dictionaries({"reads": counts, "writes": counts, "syncs": counts,
                             "read_bytes": st.integers(min_value=0, max_value=10**11),
                             "write_bytes": st.integers(min_value=0, max_value=10**11)})
devices = st.fixed_dictionaries({
    "iops": st.integers(min_value=100, max_value=10**6),
    "bandwidth": st.integers(min_value=10 * MB, max_value=10_000 * MB),
    "max_io_bytes": st.sampled_from([4 * KIB, 16 * KIB, 256 * KIB, 1 << 20]),
    "read_latency": st.floats(min_value=0, max_value=0.01),
    "write_latency": st.floats(min_value=0, max_value=0.01),
    "sync_latency": st.floats(min_value=0, max_value=0.01),
})
cpu = st.floats(min_value=0, max_value=100)
servers = st.tuples(st.integers(min_value=1, max_value=128), st.integers(min_value=1, max_value=256))


def times_of(device_model, cpu_seconds, io, device, cores, clients) -> dict:
    """``resource_times`` with its answer's shape checked."""
    times = device_model.resource_times(cpu_seconds, dict(io), dict(device), cores, clients)
    assert isinstance(times, dict) and set(times) == RESOURCES, (
        f"resource_times must return a dict with the keys {sorted(RESOURCES)}, got {times!r}")
    return times


@pytest.mark.points(2)
def test_io_units_by_example(device_model):
    """Requests count one IO each, unless the bytes in max_io_bytes units are more."""
    assert device_model.io_units(PAGES, 256 * KIB) == 1100, "1,100 requests of 16 KiB are 1,100 IOs"
    big = {"reads": 2, "writes": 0, "syncs": 0, "read_bytes": 2 << 20, "write_bytes": 0}
    assert device_model.io_units(big, 256 * KIB) == 8, "two reads of 1 MiB are 8 IOs of 256 KiB"
    odd = {"reads": 1, "writes": 1, "syncs": 5, "read_bytes": 300 * KIB, "write_bytes": 300 * KIB}
    assert device_model.io_units(odd, 256 * KIB) == 3, "600 KiB are 3 IOs of up to 256 KiB (round up)"
    assert device_model.io_units({"reads": 0, "writes": 0, "syncs": 3, "read_bytes": 0, "write_bytes": 0},
                                 256 * KIB) == 0, "syncs move no data: they are not charged against the IOPS cap"


@pytest.mark.points(2)
@repeatable
@given(io=ios, max_io_bytes=st.integers(min_value=1, max_value=1 << 20))
def test_io_units_is_requests_or_bytes(device_model, io, max_io_bytes):
    """io_units is at least the requests, at least the bytes / max_io_bytes, and the smallest such whole number."""
    units = device_model.io_units(dict(io), max_io_bytes)
    moved = io["read_bytes"] + io["write_bytes"]
    assert units == max(io["reads"] + io["writes"], -(-moved // max_io_bytes)), (
        f"io_units({io}, {max_io_bytes}) = {units!r}")


@pytest.mark.points(3)
def test_resource_times_by_example(device_model):
    """1,100 page IOs, 17.6 MB and 0.2 CPU seconds on a 10,000 IOPS volume, 8 cores, 4 clients."""
    times = times_of(device_model, 0.2, PAGES, VOLUME, 8, 4)
    moved = 1100 * 16 * KIB
    expected = {"cpu": 0.2 / 8, "iops": 1100 / 10_000, "bandwidth": moved / (500 * MB),
                "latency": (0.2 + 1110 * 5e-4 + moved / (500 * MB)) / 4}
    for name, seconds in expected.items():
        assert times[name] == pytest.approx(seconds, rel=1e-9), (
            f"resource_times: {name} takes {times[name]!r} s, expected {seconds:.6g} s; all: {times}")


@pytest.mark.points(2)
def test_throughput_names_the_bottleneck(device_model):
    """The scarcest resource sets the throughput: IOPS, then bandwidth, then CPU, then the clients' latency."""
    ops_per_sec, bottleneck = device_model.throughput(1000, 0.2, PAGES, VOLUME, 8, 16)
    assert bottleneck == "iops" and ops_per_sec == pytest.approx(1000 / 0.11), (
        f"1,100 IOs at 10,000 IOPS take 0.11 s: 1000 ops / 0.11 s, limited by iops; got {ops_per_sec!r}, "
        f"{bottleneck!r}")
    scans = {"reads": 100, "writes": 0, "syncs": 0, "read_bytes": 100 << 20, "write_bytes": 0}  # 1 MiB each
    assert device_model.throughput(100, 0.0, scans, {**VOLUME, "max_io_bytes": 1 << 30}, 8, 16)[1] == "bandwidth"
    assert device_model.throughput(1000, 50.0, PAGES, VOLUME, 8, 16)[1] == "cpu"
    assert device_model.throughput(1000, 0.2, PAGES, VOLUME, 8, 1)[1] == "latency", (
        "one client waits for every request in turn: the latency bound")
    nothing = {"reads": 0, "writes": 0, "syncs": 0, "read_bytes": 0, "write_bytes": 0}
    assert device_model.throughput(10, 0.0, nothing, VOLUME, 8, 16)[0] == math.inf


@pytest.mark.points(3)
@repeatable
@given(cpu_seconds=cpu, io=ios, device=devices, server=servers)
def test_more_capacity_is_never_slower(device_model, cpu_seconds, io, device, server):
    """Doubling a resource's capacity halves its time and never lowers the throughput; the bottleneck's time is
    the largest of the four."""
    cores, clients = server
    base = times_of(device_model, cpu_seconds, io, device, cores, clients)
    assume(max(base.values()) > 0)  # work that takes no time has no bottleneck
    faster = times_of(device_model, cpu_seconds, io, {**device, "iops": 2 * device["iops"]}, cores, clients)
    assert faster["iops"] == pytest.approx(base["iops"] / 2), f"twice the IOPS: {base} -> {faster}"
    wider = times_of(device_model, cpu_seconds, io, {**device, "bandwidth": 2 * device["bandwidth"]}, cores, clients)
    assert wider["bandwidth"] == pytest.approx(base["bandwidth"] / 2), f"twice the bandwidth: {base} -> {wider}"
    ops_per_sec, bottleneck = device_model.throughput(1, cpu_seconds, dict(io), dict(device), cores, clients)
    assert bottleneck in RESOURCES and ops_per_sec == pytest.approx(1 / max(base.values())), (
        f"throughput must be 1 / the longest time ({base}), got {ops_per_sec!r} ({bottleneck!r})")
    more_clients = device_model.throughput(1, cpu_seconds, dict(io), dict(device), cores, 2 * clients)[0]
    assert more_clients >= ops_per_sec * (1 - 1e-9), "more clients can never lower the throughput"
