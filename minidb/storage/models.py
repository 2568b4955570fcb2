"""DeviceModel: turns counted IO into time, the way a device with an IOPS cap and a bandwidth cap would.

The engines only *count* IO (``IOStats``); how long that IO takes depends on the device, which is a model:

* ``busy_time(counts)``: seconds the device needs to serve the IO when many clients keep it busy: the larger of
  its time on requests (``iops_time``: reads over the read IOPS cap plus writes over the write IOPS cap) and its
  time on bytes (``bandwidth_time``: bytes read over the read bandwidth plus bytes written over the write
  bandwidth). A device serves reads and writes in the same time, so their times add. This is the device's demand
  in the bottleneck law ``X = min over resources of capacity / demand per op``. Most presets give one cap for both
  directions; a datasheet that gives reads and writes apart (``sm863``) sets ``write_iops`` and
  ``write_bandwidth`` too.
* ``latency_time(counts)``: seconds when one client waits for each request in turn (queue depth 1).

Cloud volumes count a large request as several IOs (EBS counts SSD IOs in units of up to 256 KiB), so
``io_units`` charges at least ``bytes / max_io_bytes`` IOs.

Presets (``preset(name, ...)``) describe the devices of the source posts. Their IOPS and bandwidth caps and prices
are the posts' numbers, loaded from data/ where they are checked against the posts; what the posts do not give
(latencies, EBS's IO unit) is a constant here that names its own source. Where a post names its device (seed 001's
Samsung SM863), the preset is that device's data sheet.
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
    iops: float  # cap on IO requests per second: reads, and writes too unless write_iops is given
    bandwidth: float  # cap on bytes per second: read, and written too unless write_bandwidth is given
    read_latency: float  # seconds for one read at queue depth 1
    write_latency: float  # seconds for one write at queue depth 1
    sync_latency: float  # seconds for one sync (flush of the device's write cache)
    max_io_bytes: int = 256 * KIB  # a larger request counts as several IOs against the IOPS cap
    size_gb: float | None = None  # provisioned size, for cloud volumes
    usd_per_year: float | None = None  # yearly price of the volume, for cloud volumes
    source: str = ""  # where the numbers come from
    write_iops: float | None = None  # cap on write requests per second (None: the same cap as reads, ``iops``)
    write_bandwidth: float | None = None  # cap on bytes written per second (None: ``bandwidth``)

    def __post_init__(self) -> None:
        for field in ("iops", "bandwidth", "max_io_bytes"):
            if getattr(self, field) <= 0:
                raise ValueError(f"device model {self.name!r}: {field} must be > 0, got {getattr(self, field)}")
        for field in ("write_iops", "write_bandwidth"):
            value = getattr(self, field)
            if value is not None and not value > 0:
                raise ValueError(f"device model {self.name!r}: {field} must be > 0 (or None), got {value}")
        for field in ("read_latency", "write_latency", "sync_latency"):
            if getattr(self, field) < 0:
                raise ValueError(f"device model {self.name!r}: {field} must be >= 0, got {getattr(self, field)}")

    def io_units(self, counts: IOCounts) -> float:
        """IOs charged against the IOPS cap: requests, or bytes in ``max_io_bytes`` units if that is more."""
        return self._units(counts.reads, counts.read_bytes) + self._units(counts.writes, counts.write_bytes)

    def _units(self, requests: int, nbytes: int) -> int:
        return max(requests, math.ceil(nbytes / self.max_io_bytes))

    def iops_time(self, counts: IOCounts) -> float:
        """Seconds the device spends on ``counts``' requests: read IOs over the read cap, write IOs over the write
        cap."""
        return (self._units(counts.reads, counts.read_bytes) / self.iops
                + self._units(counts.writes, counts.write_bytes) / (self.write_iops or self.iops))

    def bandwidth_time(self, counts: IOCounts) -> float:
        """Seconds the device spends moving ``counts``' bytes: read over the read bandwidth, written over the write
        bandwidth."""
        return counts.read_bytes / self.bandwidth + counts.write_bytes / (self.write_bandwidth or self.bandwidth)

    def busy_time(self, counts: IOCounts) -> float:
        """Seconds of device time to serve ``counts`` with the device saturated (throughput-bound)."""
        return max(self.iops_time(counts), self.bandwidth_time(counts))

    def latency_time(self, counts: IOCounts) -> float:
        """Seconds one client waits to issue ``counts`` one request at a time (latency-bound)."""
        return (
            counts.reads * self.read_latency
            + counts.writes * self.write_latency
            + counts.syncs * self.sync_latency
            + self.bandwidth_time(counts)
        )

    def max_ops_per_sec(self, per_op: IOCounts, ops: int = 1) -> float:
        """The most operations per second this device sustains if ``ops`` operations cause ``per_op`` IO."""
        t = self.busy_time(per_op)
        return math.inf if t == 0 else ops / t


def _published(name: str):
    """The published table ``name`` (data/published/NAME.csv), checked against its seed by the test suite."""
    from .. import data

    return data.load(name)


def _ssd(storage: str):
    """Seed 000's figures for the ``slow-ssd`` or ``fast-ssd`` server (data/published/insert_benchmark_devices.csv)."""
    return _published("insert_benchmark_devices").set_index("storage").loc[storage]


def _ebs_limits(volume_type: str):
    """The IOPS and MB/s caps of an EBS volume type (data/published/cloud_volume_limits.csv, from seed 003)."""
    return _published("cloud_volume_limits").set_index("volume_type").loc[volume_type]


def most_moved_mb(storage: str) -> float:
    """The most MB/s any run of seed 000 moved on ``storage`` (``slow-ssd`` or ``fast-ssd``): iostat's read plus
    write MB/s, the largest over the post's engines and workloads (insert_benchmark_by_storage.csv)."""
    runs = _published("insert_benchmark_by_storage")
    runs = runs[runs.storage == storage]
    return float((runs.read_mb_per_sec + runs.write_mb_per_sec).max())


def nvme() -> DeviceModel:
    """The 'fast SSD' server of seed 000: several NVMe NAND devices. Its IOPS cap is the page-read rate the post
    gives it (insert_benchmark_devices.csv); its bandwidth, which the post does not give, is the most its runs moved
    on it (``most_moved_mb``: InnoDB-5.7 in memory wrote 1,163 MB/s). That figure is a lower bound of the device's
    bandwidth; taking it as the cap is this model's assumption. It rests on the post: InnoDB's in-memory rate "is
    limited by the rate at which the redo log is written", and on the slow SSD InnoDB-5.7 inserted at 0.46 of the
    rate and moved 0.46 of the MB/s, as a run held by its device would."""
    return DeviceModel(
        name="nvme",
        iops=int(_ssd("fast-ssd").page_reads_per_sec),  # seed 000 says "more than" this: the cap is a lower bound
        bandwidth=int(most_moved_mb("fast-ssd")) * MB,
        read_latency=100e-6,  # not in the seeds: typical NAND flash read at queue depth 1
        write_latency=20e-6,  # not in the seeds: writes land in the device's power-safe cache
        sync_latency=20e-6,  # same: a flush of a power-safe cache is cheap
        source="seed 000 (fast SSD: page reads/s, and the most MB/s its runs moved); latencies from typical NVMe "
               "datasheets",
    )


def slow_ssd() -> DeviceModel:
    """The 'slow SSD' server of seed 000: the page-read rate and the bandwidth at which the post says it saturates
    (insert_benchmark_devices.csv); both are the post's estimates ("about", "assuming ... around")."""
    ssd = _ssd("slow-ssd")
    iops = int(ssd.page_reads_per_sec)
    return DeviceModel(
        name="slow-ssd",
        iops=iops,
        bandwidth=int(ssd.max_mb_per_sec) * MB,
        read_latency=1 / iops,  # at queue depth 1 a request takes about the inverse of the IOPS cap
        write_latency=1 / iops,  # same reasoning as reads
        sync_latency=1 / iops,  # same reasoning as reads
        source="seed 000 (slow SSD: page reads/s and MB/s)",
    )


def sm863() -> DeviceModel:
    """Seed 001's SSD: "Storage: SAMSUNG SM863 1.9TB Enterprise SSD", a SATA 6 Gb/s drive, from Samsung's SM863
    data sheet for the 1.92 TB model (MZ7KM1T9HAJM): sequential read 520 MB/s and write 485 MB/s (128 KB
    requests), random read 97,000 and write 29,000 IOPS (4 KB requests, 32 outstanding).

    Reads and writes have caps of their own: a SATA SSD writes at under a third of the rate it reads at random, so
    a B+tree that writes back as many pages as it reads finds the device's time going mostly to the writes.
    """
    return DeviceModel(
        name="sm863",
        iops=97_000,  # data sheet: random read, 4 KB, QD32
        write_iops=29_000,  # data sheet: random write, 4 KB, QD32
        bandwidth=520 * MB,  # data sheet: sequential read
        write_bandwidth=485 * MB,  # data sheet: sequential write
        read_latency=100e-6,  # not in the data sheet: typical NAND flash read at queue depth 1, as nvme's
        write_latency=20e-6,  # not in the data sheet: the drive has power-loss protection, so writes land in its
        sync_latency=20e-6,  # cache, and flushing that cache is cheap (as nvme's)
        source="Samsung SM863 data sheet, 1.92 TB (seed 001's SSD): sequential and 4 KB random, read and write",
    )


def _gp2_iops_per_gb(max_iops: int) -> int:
    """gp2's IOPS per provisioned GB: the ratio of seed 004's volumes below the cap (gp2_iops_by_size.csv).

    Every such volume gets the same whole number of IOPS per GB; the largest volume of the list is at the cap, so
    its ratio is the cap's, not the slope's.
    """
    sizes = _published("gp2_iops_by_size")
    uncapped = sizes[sizes.iops < max_iops]
    (per_gb,) = set(uncapped.iops / uncapped.size_gb)  # one ratio, or the table contradicts itself
    return int(per_gb)


def gp2(size_gb: float = 3400) -> DeviceModel:
    """An AWS gp2 volume of ``size_gb``: IOPS in proportion to its size, between AWS's floor and gp2's cap, a
    bandwidth cap, and a price per GB.

    The IOPS per GB come from seed 004's volumes (gp2_iops_by_size.csv), the caps from seed 003
    (cloud_volume_limits.csv) and the price from seed 003's cost table (cloud_cost_per_year.csv).
    """
    if size_gb <= 0:
        raise ValueError(f"gp2 size must be > 0 GB, got {size_gb}")
    limits = _ebs_limits("gp2")
    max_iops = int(limits.max_iops)
    table = _published("cloud_cost_per_year")
    row = table[table.volume_type == "gp2"].iloc[0]
    usd_per_gb_year = row.total_usd_per_year / row.size_gb  # the cost table's one gp2 volume, priced per GB
    return DeviceModel(
        name="gp2",
        # The floor is not in the seeds: AWS EBS docs give every gp2 volume at least 100 IOPS, however small.
        iops=min(max_iops, max(100, _gp2_iops_per_gb(max_iops) * size_gb)),
        bandwidth=int(limits.max_mb_per_sec) * MB,  # seed 003 (a comment) and 004 cap one gp2 volume's throughput
        read_latency=500e-6,  # not in the seeds: EBS documents single-digit milliseconds at most; 0.5 ms typical
        write_latency=500e-6,
        sync_latency=500e-6,
        max_io_bytes=256 * KIB,  # AWS EBS docs: SSD volumes count IOs in units of up to 256 KiB
        size_gb=size_gb,
        usd_per_year=float(usd_per_gb_year * size_gb),
        source="seeds 003/004 (IOPS per GB, IOPS and MB/s caps, yearly price); floor and latency from AWS EBS docs",
    )


def io1(iops: float = 10_000, size_gb: float = 1000) -> DeviceModel:
    """An AWS io1 volume with ``iops`` bought (up to io1's cap), a bandwidth cap, priced per GB and per IOPS.

    The caps come from seed 003 (cloud_volume_limits.csv), the prices from its cost table (cloud_cost_per_year.csv).
    """
    limits = _ebs_limits("io1")
    max_iops = int(limits.max_iops)
    if not 0 < iops <= max_iops:
        raise ValueError(f"io1 IOPS must be in (0, {max_iops}], got {iops}")
    if size_gb <= 0:
        raise ValueError(f"io1 size must be > 0 GB, got {size_gb}")
    table = _published("cloud_cost_per_year")
    rows = table[table.volume_type == "io1"]
    usd_per_gb_year = (rows.resource_usd_per_year / rows.size_gb).mean()  # the volume's price, the same in every row
    usd_per_iops_year = (rows.io_usd_per_year / rows.iops).mean()  # the IOPS bought, priced in proportion
    return DeviceModel(
        name="io1",
        iops=iops,
        bandwidth=int(limits.max_mb_per_sec) * MB,  # seed 003 (a reader's comment): EBS caps io1's throughput
        read_latency=500e-6,  # not in the seeds: as gp2
        write_latency=500e-6,
        sync_latency=500e-6,
        max_io_bytes=256 * KIB,  # AWS EBS docs, as gp2
        size_gb=size_gb,
        usd_per_year=float(usd_per_gb_year * size_gb + usd_per_iops_year * iops),
        source="seeds 003/004 (IOPS cap, MB/s cap, yearly price per GB and per IOPS)",
    )


PRESETS = {"nvme": nvme, "slow-ssd": slow_ssd, "sm863": sm863, "gp2": gp2, "io1": io1}


def preset(name: str, **params) -> DeviceModel:
    """The device model called ``name`` (``nvme``, ``slow-ssd``, ``sm863``, ``gp2``, ``io1``) with its
    parameters."""
    if name not in PRESETS:
        raise ValueError(f"unknown device preset {name!r}; known presets: {', '.join(PRESETS)}")
    try:
        return PRESETS[name](**params)
    except TypeError as exc:
        raise ValueError(f"bad parameters {params} for device preset {name!r}: {exc}") from None


def custom(base: DeviceModel, **changes) -> DeviceModel:
    """A copy of ``base`` with some fields changed, e.g. ``custom(slow_ssd(), iops=20_000, name='mine')``."""
    return replace(base, **changes)
