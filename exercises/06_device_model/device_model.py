"""Exercise 06: turn counted IO into time, under a device's IOPS and bandwidth caps. Fill in every
NotImplementedError.

The book's engines only *count* what they do: IO requests and bytes (``IOStats``), CPU work. How long that takes
is a model of the server they would run on: so many cores, so many clients, and a device with an IOPS cap, a
bandwidth cap and a latency per request. You write that model, as plain functions of plain values:

* ``io`` is the counted IO of some work, a dict with the ints ``reads``, ``writes``, ``syncs``, ``read_bytes`` and
  ``write_bytes``;
* ``device`` is the device's envelope, a dict with ``iops`` (IO requests per second, reads and writes together),
  ``bandwidth`` (bytes per second, reads and writes together), ``max_io_bytes`` (the largest request the device
  counts as one IO), ``read_latency``, ``write_latency`` and ``sync_latency`` (seconds for one such request when a
  client waits for each in turn).

The notebook ``device_model.md`` derives every rule; ``pytest exercises/06_device_model`` grades your model, on its
own, then on the IO the book's engines count in the cloud experiment of chapter 6, and inside the simulator that
times every workload of the book: ``minidb.sim.Simulator(..., times=minidb.sim.device_time.plugged(device_model))``.
"""

from __future__ import annotations


def io_units(io: dict, max_io_bytes: int) -> int:
    """The IOs the work is charged against the IOPS cap: its requests (reads and writes; a sync moves no data and
    is not charged), or, if that is more, its bytes counted in units of ``max_io_bytes`` rounded up (a 1 MiB read
    is four IOs of 256 KiB on a cloud volume).

    Raise ValueError if ``max_io_bytes`` is not > 0.
    """
    raise NotImplementedError("io_units: see the notebook, section 'What an IO is'")


def resource_times(cpu_seconds: float, io: dict, device: dict, cores: int, clients: int) -> dict:
    """Seconds each resource needs to serve the work, a dict with exactly these four keys:

    * ``cpu``: ``cpu_seconds`` spread over the ``cores``;
    * ``iops``: the work's ``io_units`` over the device's IOPS cap;
    * ``bandwidth``: the bytes read and written over the bandwidth cap;
    * ``latency``: what one client waits for the work (its CPU seconds, each read, write and sync at its latency,
      and its bytes at the bandwidth), over the ``clients`` that wait at the same time.

    Raise ValueError if ``cores`` or ``clients`` is below 1.
    """
    raise NotImplementedError("resource_times: see the notebook, section 'Four resources'")


def throughput(ops: int, cpu_seconds: float, io: dict, device: dict, cores: int, clients: int) -> tuple:
    """``(ops_per_sec, bottleneck)``: the operations per second the server sustains when ``ops`` operations need
    this work, and the name of the resource that limits it (the one of ``resource_times`` that takes longest).
    Work that takes no time at all gives ``math.inf`` operations per second.
    """
    raise NotImplementedError("throughput: see the notebook, section 'The bottleneck law'")
