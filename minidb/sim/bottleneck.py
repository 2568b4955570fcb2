"""The bottleneck law: how many operations per second a server sustains with many clients.

Each operation needs some of every resource: CPU seconds on the server's cores, IO requests against the device's
IOPS cap, bytes against its bandwidth cap. A resource with capacity ``C`` (per second) that each operation needs
``D`` of can serve at most ``C / D`` operations per second, so throughput is bounded by the scarcest resource::

    X = min over resources of capacity / demand per op          (cores, device IOPS, device bandwidth)

With ``N`` clients that each wait for their operation to finish before sending the next, a further bound applies:
at most ``N`` operations are in flight, each taking at least its unqueued response time ``R`` (its CPU time plus
its IO at the device's per-request latency), so ``X <= N / R`` (Little's law). Few clients leave capacity idle;
many clients saturate the scarcest resource. A serial section of ``S`` seconds per operation (a mutex every commit
passes, one at a time) bounds it whatever the clients and cores: ``X <= 1 / S``, a resource of capacity one. This is
the operational analysis of Denning and Buzen (1978), as in Lazowska et al., *Quantitative System Performance*,
chapter 5.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..storage.iostats import IOCounts
from ..storage.models import DeviceModel


@dataclass(frozen=True)
class Host:
    """The machine the modelled database server runs on, and its load: cores, and concurrent clients.

    (The costs of the server's own software, its SQL layer and binlog, are ``minidb.sim.server.ServerModel``.)"""

    cores: int = 48  # CPU cores (seed 000: "48 cores with HT enabled")
    clients: int = 16  # concurrent client connections (seed 000: 16 clients)

    def __post_init__(self) -> None:
        if self.cores < 1 or self.clients < 1:
            raise ValueError(f"a host needs cores >= 1 and clients >= 1, got {self.cores}, {self.clients}")


@dataclass(frozen=True)
class Demand:
    """What some work (one operation, or a batch of them) needs from each resource."""

    cpu_seconds: float  # CPU time, on any one core
    io: IOCounts  # device requests and bytes (syncs add latency, not device occupancy)
    serial_seconds: float = 0.0  # time in the server's serial section (minidb.sim.server): one at a time
    serial_cpu_seconds: float = 0.0  # the part of serial_seconds that is also in cpu_seconds (the engine's log path)

    @property
    def serial_wait_seconds(self) -> float:
        """Serial time a response waits beyond its CPU: the serial section minus the CPU already counted in it."""
        return self.serial_seconds - self.serial_cpu_seconds


def resource_times(demand: Demand, model: DeviceModel, host: Host) -> dict[str, float]:
    """Seconds each resource needs to serve ``demand``: the work divided by the resource's capacity.

    ``cpu``: CPU seconds over the cores; ``iops``: IO units over the IOPS caps (``DeviceModel.iops_time``);
    ``bandwidth``: bytes over the bandwidth caps (``DeviceModel.bandwidth_time``); ``latency``: the unqueued response time (CPU, IO at per-request latency and the serial section)
    over the clients; ``serial``: the serial section, which no number of clients or cores divides. The largest is
    the bottleneck, and the time the work takes.
    """
    io = demand.io
    return {
        "cpu": demand.cpu_seconds / host.cores,
        "iops": model.iops_time(io),
        "bandwidth": model.bandwidth_time(io),
        # the serial section added apart, as device_time.plugged adds it to a device model's answer
        "latency": ((demand.cpu_seconds + model.latency_time(io)) / host.clients
                    + demand.serial_wait_seconds / host.clients),
        "serial": demand.serial_seconds,
    }


def throughput(per_op: Demand, model: DeviceModel, host: Host) -> tuple[float, str]:
    """Operations per second the server on ``host`` sustains when each needs ``per_op``, and the resource that limits
    it."""
    times = resource_times(per_op, model, host)
    bottleneck = max(times, key=times.get)
    t = times[bottleneck]
    return (math.inf if t == 0 else 1.0 / t), bottleneck


# Each resource ``throughput`` may name as a run's bottleneck, as a sentence about the run says it.
IN_WORDS = {"cpu": "the server's CPU", "iops": "the device's IO requests per second",
            "bandwidth": "the device's bandwidth", "latency": "its clients' response time"}


def in_words(bottleneck: str) -> str:
    """What held a run whose bottleneck is ``bottleneck``, in words (the name itself if it is not a resource)."""
    return IN_WORDS.get(bottleneck, bottleneck)
