"""DeviceModel: turns counted IO into time, the way a device with an IOPS cap and a bandwidth cap would.

The engines only *count* IO (``IOStats``); how long that IO takes depends on the device, which is a model:

* ``busy_time(counts)``: seconds the device needs to serve the IO when many clients keep it busy: the larger of
  (IO requests / IOPS cap) and (bytes / bandwidth cap). This is the device's demand in the bottleneck law
  ``X = min over resources of capacity / demand per op``.
* ``latency_time(counts)``: seconds when one client waits for each request in turn (queue depth 1).

Cloud volumes count a large request as several IOs (EBS counts SSD IOs in units of up to 256 KiB), so
``io_units`` charges at least ``bytes / max_io_bytes`` IOs.

Presets (``preset(name, ...)``) describe the devices of the source posts; each constant names its source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .iostats import IOCounts

KIB = 1024
MB = 1_000_000  # vendors and AWS quote bandwidth in decimal megabytes per second


@dataclass(frozen=True)
class DeviceModel:
    """A device's performance envelope (and, for cloud volumes, its price)."""

    name: str  # preset name or a label of your own
    iops: float  # cap on IO requests per second, reads and writes together
    bandwidth: float  # cap on bytes per second, reads and writes together
    read_latency: float  # seconds for one read at queue depth 1
    write_latency: float  # seconds for one write at queue depth 1
    sync_latency: float  # seconds for one sync (flush of the device's write cache)
    max_io_bytes: int = 256 * KIB  # a larger request counts as several IOs against the IOPS cap
    size_gb: float | None = None  # provisioned size, for cloud volumes
    usd_per_year: float | None = None  # yearly price of the volume, for cloud volumes
    source: str = ""  # where the numbers come from

    def __post_init__(self) -> None:
        for field in ("iops", "bandwidth", "max_io_bytes"):
            if getattr(self, field) <= 0:
                raise ValueError(f"device model {self.name!r}: {field} must be > 0, got {getattr(self, field)}")
        for field in ("read_latency", "write_latency", "sync_latency"):
            if getattr(self, field) < 0:
                raise ValueError(f"device model {self.name!r}: {field} must be >= 0, got {getattr(self, field)}")

    def io_units(self, counts: IOCounts) -> float:
        """IOs charged against the IOPS cap: requests, or bytes in ``max_io_bytes`` units if that is more."""
        requests = counts.reads + counts.writes
        return max(requests, math.ceil((counts.read_bytes + counts.write_bytes) / self.max_io_bytes))

    def busy_time(self, counts: IOCounts) -> float:
        """Seconds of device time to serve ``counts`` with the device saturated (throughput-bound)."""
        return max(self.io_units(counts) / self.iops, (counts.read_bytes + counts.write_bytes) / self.bandwidth)

    def latency_time(self, counts: IOCounts) -> float:
        """Seconds one client waits to issue ``counts`` one request at a time (latency-bound)."""
        return (
            counts.reads * self.read_latency
            + counts.writes * self.write_latency
            + counts.syncs * self.sync_latency
            + (counts.read_bytes + counts.write_bytes) / self.bandwidth
        )

    def max_ops_per_sec(self, per_op: IOCounts, ops: int = 1) -> float:
        """The most operations per second this device sustains if ``ops`` operations cause ``per_op`` IO."""
        t = self.busy_time(per_op)
        return math.inf if t == 0 else ops / t


def nvme() -> DeviceModel:
    """The 'fast SSD' server of seed 000: several NVMe NAND devices, more than 100k page reads per second."""
    return DeviceModel(
        name="nvme",
        iops=100_000,  # seed 000: "more than 100k/second provided by the fast SSD server"
        bandwidth=2000 * MB,  # not in the seeds: the order of a 2016 datacenter NVMe SSD's datasheet (2-3 GB/s)
        read_latency=100e-6,  # not in the seeds: typical NAND flash read at queue depth 1
        write_latency=20e-6,  # not in the seeds: writes land in the device's power-safe cache
        sync_latency=20e-6,  # same: a flush of a power-safe cache is cheap
        source="seed 000 (fast SSD, >100k page reads/s); bandwidth and latencies from typical NVMe datasheets",
    )


def slow_ssd() -> DeviceModel:
    """The 'slow SSD' server of seed 000: about 10k page reads per second, saturating around 400 MB/s."""
    return DeviceModel(
        name="slow-ssd",
        iops=10_000,  # seed 000: "The slower SSD provides about 10k page reads second"
        bandwidth=400 * MB,  # seed 000: "Assuming the slow SSD saturates around 400 MB/s of IO"
        read_latency=100e-6,  # 1 / 10k IOPS: at queue depth 1 a request takes about the inverse of the IOPS cap
        write_latency=100e-6,  # same reasoning as reads
        sync_latency=100e-6,  # same reasoning as reads
        source="seed 000 (slow SSD: ~10k page reads/s, ~400 MB/s)",
    )


def _cost_table():
    from .. import data

    return data.load("cloud_cost_per_year")


def gp2(size_gb: float = 3400) -> DeviceModel:
    """An AWS gp2 volume of ``size_gb``: 3 IOPS per GB (at least 100, at most 10,000), 160 MB/s, priced per GB."""
    if size_gb <= 0:
        raise ValueError(f"gp2 size must be > 0 GB, got {size_gb}")
    table = _cost_table()
    row = table[table.volume_type == "gp2"].iloc[0]
    usd_per_gb_year = row.total_usd_per_year / row.size_gb  # seed 003 cost table: 3.4TB gp2 for $4800/year
    return DeviceModel(
        name="gp2",
        iops=min(10_000, max(100, 3 * size_gb)),  # seed 004: 500GB -> 1500 iops, 3334GB -> 10000 (the maximum)
        bandwidth=160 * MB,  # seed 003 (comments) and 004: "Amazon cap the single gp2 volume throughput to 160MB/sec"
        read_latency=500e-6,  # not in the seeds: EBS documents single-digit milliseconds at most; 0.5 ms typical
        write_latency=500e-6,
        sync_latency=500e-6,
        max_io_bytes=256 * KIB,  # AWS EBS docs: SSD volumes count IOs in units of up to 256 KiB
        size_gb=size_gb,
        usd_per_year=float(usd_per_gb_year * size_gb),
        source="seeds 003/004 (IOPS per GB, 10k max, 160 MB/s, yearly price); latency from AWS EBS docs",
    )


def io1(iops: float = 10_000, size_gb: float = 1000) -> DeviceModel:
    """An AWS io1 volume with ``iops`` bought (at most 30,000) and 500 MB/s, priced per GB and per IOPS."""
    if not 0 < iops <= 30_000:
        raise ValueError(f"io1 IOPS must be in (0, 30000], got {iops}")
    if size_gb <= 0:
        raise ValueError(f"io1 size must be > 0 GB, got {size_gb}")
    table = _cost_table()
    rows = table[table.volume_type == "io1"]
    usd_per_gb_year = (rows.resource_usd_per_year / rows.size_gb).mean()  # seed 003: 1TB io1 for $1500/year
    usd_per_iops_year = (rows.io_usd_per_year / rows.iops).mean()  # seed 003: $3900/year per 5000 IOPS
    return DeviceModel(
        name="io1",
        iops=iops,  # seed 004: "for io1 volumes we can 'buy' throughput up to 30000 iops"
        bandwidth=500 * MB,  # seed 003 (comments): "the throughput is capped for EBS (io1 500mb/s, gp2 160mb/s)"
        read_latency=500e-6,  # not in the seeds: as gp2
        write_latency=500e-6,
        sync_latency=500e-6,
        max_io_bytes=256 * KIB,  # AWS EBS docs, as gp2
        size_gb=size_gb,
        usd_per_year=float(usd_per_gb_year * size_gb + usd_per_iops_year * iops),
        source="seeds 003/004 (IOPS up to 30k, 500 MB/s, yearly price per GB and per IOPS)",
    )


PRESETS = {"nvme": nvme, "slow-ssd": slow_ssd, "gp2": gp2, "io1": io1}


def preset(name: str, **params) -> DeviceModel:
    """The device model called ``name`` (``nvme``, ``slow-ssd``, ``gp2``, ``io1``) with its parameters."""
    if name not in PRESETS:
        raise ValueError(f"unknown device preset {name!r}; known presets: {', '.join(PRESETS)}")
    try:
        return PRESETS[name](**params)
    except TypeError as exc:
        raise ValueError(f"bad parameters {params} for device preset {name!r}: {exc}") from None


def custom(base: DeviceModel, **changes) -> DeviceModel:
    """A copy of ``base`` with some fields changed, e.g. ``custom(slow_ssd(), iops=20_000, name='mine')``."""
    return replace(base, **changes)
