"""Reference solution of exercise 06: a device model and the bottleneck law, in plain Python.

Each resource's time is the work it is asked for over its capacity; the scarcest resource's time is the time the
work takes. Read it after trying the exercise yourself.
"""

from __future__ import annotations

import math


def io_units(io: dict, max_io_bytes: int) -> int:
    """IOs charged against the IOPS cap: the requests, or the bytes in ``max_io_bytes`` units if that is more."""
    if max_io_bytes <= 0:
        raise ValueError(f"max_io_bytes must be > 0, got {max_io_bytes}")
    requests = io["reads"] + io["writes"]
    return max(requests, math.ceil((io["read_bytes"] + io["write_bytes"]) / max_io_bytes))


def resource_times(cpu_seconds: float, io: dict, device: dict, cores: int, clients: int) -> dict:
    """Seconds each resource needs for the work: cpu, iops, bandwidth and latency (see the stub)."""
    if cores < 1 or clients < 1:
        raise ValueError(f"cores and clients must be >= 1, got {cores} and {clients}")
    moved = io["read_bytes"] + io["write_bytes"]
    transfer = moved / device["bandwidth"]
    # One client's wait: every request at its latency, every byte at the bandwidth; clients overlap their waits.
    waiting = (io["reads"] * device["read_latency"] + io["writes"] * device["write_latency"]
               + io["syncs"] * device["sync_latency"] + transfer)
    return {
        "cpu": cpu_seconds / cores,
        "iops": io_units(io, device["max_io_bytes"]) / device["iops"],
        "bandwidth": transfer,
        "latency": (cpu_seconds + waiting) / clients,
    }


def throughput(ops: int, cpu_seconds: float, io: dict, device: dict, cores: int, clients: int) -> tuple:
    """Operations per second when ``ops`` operations need this work, and the resource that limits them."""
    times = resource_times(cpu_seconds, io, device, cores, clients)
    bottleneck = max(times, key=times.get)
    seconds = times[bottleneck]
    return (math.inf if seconds == 0 else ops / seconds), bottleneck
