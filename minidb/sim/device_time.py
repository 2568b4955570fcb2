"""The device-model exercise's plug point: a function of plain values that turns one step's counted work into the
seconds each resource needs, in place of ``bottleneck.resource_times``.

``Simulator(..., times=plugged(module))`` times every step with ``module.resource_times``, whose contract is::

    resource_times(cpu_seconds: float, io: dict, device: dict, cores: int, clients: int) -> dict[str, float]

``io`` holds the step's counted IO (``IO_FIELDS``), ``device`` the device model's envelope (``DEVICE_FIELDS``);
the answer gives the seconds of each of ``RESOURCES``, as ``resource_times`` does. Only plain values cross the plug
point, so a student's module may run in the grader's sandbox. The answer is checked (``check_times``): a wrong model
fails with the module's name and what it returned instead of silently producing a strange timeline.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..storage.iostats import IOCounts
from ..storage.models import DeviceModel
from .bottleneck import Demand, Host

IO_FIELDS = ("reads", "writes", "syncs", "read_bytes", "write_bytes")
DEVICE_FIELDS = ("iops", "bandwidth", "max_io_bytes", "read_latency", "write_latency", "sync_latency")
RESOURCES = ("cpu", "iops", "bandwidth", "latency")


def io_values(counts: IOCounts) -> dict[str, int]:
    """The counted IO as a dict of ``IO_FIELDS``."""
    return {field: getattr(counts, field) for field in IO_FIELDS}


def device_values(model: DeviceModel) -> dict[str, float]:
    """The device model's envelope as a dict of ``DEVICE_FIELDS``."""
    return {field: getattr(model, field) for field in DEVICE_FIELDS}


def check_times(source, times) -> dict[str, float]:
    """``times`` as a dict of the ``RESOURCES``' seconds if it is one (finite, >= 0), else ValueError."""
    if not isinstance(times, dict) or set(times) != set(RESOURCES):
        raise ValueError(f"device model {source!r}: resource_times returned {times!r}; it must be a dict with "
                         f"exactly the keys {', '.join(RESOURCES)}")
    for name in RESOURCES:
        value = times[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
            raise ValueError(f"device model {source!r}: resource_times gave {name}={value!r}; each resource's "
                             f"time must be a finite number of seconds >= 0")
    return {name: float(times[name]) for name in RESOURCES}


def plugged(module) -> Callable[[Demand, DeviceModel, Host], dict[str, float]]:
    """A ``resource_times`` for the Simulator that asks ``module.resource_times`` with plain values."""

    def times(demand: Demand, model: DeviceModel, host: Host) -> dict[str, float]:
        answer = module.resource_times(float(demand.cpu_seconds), io_values(demand.io), device_values(model),
                                       host.cores, host.clients)
        times = check_times(getattr(module, "__name__", module), answer)
        # The server's serial section (minidb.sim.server) is no device's: it is added as resource_times adds it.
        times["latency"] += demand.serial_wait_seconds / host.clients
        times["serial"] = demand.serial_seconds
        return times

    return times
