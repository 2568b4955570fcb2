"""DeviceModel: time for counted IO, the presets of the source posts, and their prices from data/."""

import math

import pytest

from minidb import data
from minidb.storage import IOCounts, custom, preset


def test_busy_time_is_the_tighter_of_iops_and_bandwidth():
    ssd = preset("slow-ssd")  # 10k IOPS, 400 MB/s
    small_reads = IOCounts(reads=1000, read_bytes=1000 * 4096)
    assert ssd.busy_time(small_reads) == pytest.approx(1000 / 10_000)  # IOPS-bound
    big_writes = IOCounts(writes=10, write_bytes=10 * 200 * 1024 * 1024 // 100)
    assert ssd.busy_time(big_writes) == pytest.approx(big_writes.write_bytes / 400e6)  # bandwidth-bound


def test_large_requests_count_as_several_ios():
    vol = preset("io1", iops=1000)
    one_mib_write = IOCounts(writes=1, write_bytes=1024 * 1024)
    assert vol.io_units(one_mib_write) == 4  # 256 KiB units


def test_latency_time_adds_per_request_latency():
    ssd = preset("slow-ssd")
    c = IOCounts(reads=2, read_bytes=0, writes=1, write_bytes=0, syncs=1)
    assert ssd.latency_time(c) == pytest.approx(4 * 100e-6)


def test_max_ops_per_sec_is_the_bottleneck_law_for_the_device():
    vol = preset("gp2", size_gb=1000)  # 3000 IOPS
    per_insert = IOCounts(reads=1, read_bytes=16384, writes=2, write_bytes=32768)
    assert vol.max_ops_per_sec(per_insert) == pytest.approx(1000.0)
    assert vol.max_ops_per_sec(IOCounts()) == math.inf


@pytest.mark.parametrize("size_gb, iops", [(10, 100), (500, 1500), (1000, 3000), (3334, 10000), (5000, 10000)])
def test_gp2_iops_grow_with_size_up_to_10000(size_gb, iops):
    assert preset("gp2", size_gb=size_gb).iops == iops
    assert preset("gp2", size_gb=size_gb).bandwidth == 160e6


def test_caps_are_the_published_rows():
    """The presets' IOPS and bandwidth caps are the rows of data/, not numbers of their own."""
    ssds = data.load("insert_benchmark_devices").set_index("storage")
    assert preset("nvme").iops == ssds.page_reads_per_sec["fast-ssd"] == 100_000
    # The post gives no bandwidth for its fast SSD: the model's is the most a run of the post moved on it.
    fast = data.load("insert_benchmark_by_storage").query("storage == 'fast-ssd'")
    assert preset("nvme").bandwidth == (fast.read_mb_per_sec + fast.write_mb_per_sec).max() * 1e6 == 1163e6
    slow = preset("slow-ssd")
    assert slow.iops == ssds.page_reads_per_sec["slow-ssd"] == 10_000
    assert slow.bandwidth == ssds.max_mb_per_sec["slow-ssd"] * 1e6 == 400e6
    limits = data.load("cloud_volume_limits").set_index("volume_type")
    assert preset("gp2").bandwidth == limits.max_mb_per_sec["gp2"] * 1e6 == 160e6
    assert preset("gp2", size_gb=1e6).iops == limits.max_iops["gp2"] == 10_000
    assert preset("io1", iops=limits.max_iops["io1"]).bandwidth == limits.max_mb_per_sec["io1"] * 1e6 == 500e6
    with pytest.raises(ValueError, match=r"io1 IOPS must be in \(0, 30000\]"):
        preset("io1", iops=limits.max_iops["io1"] + 1)
    for row in data.load("gp2_iops_by_size").itertuples():  # the cap's row included
        assert preset("gp2", size_gb=row.size_gb).iops == row.iops


def test_whole_gb_volumes_get_whole_iops():
    """gp2's IOPS per GB is a whole number, so an int size gives an int cap, as tables of presets print it."""
    assert isinstance(preset("gp2", size_gb=500).iops, int) and isinstance(preset("nvme").iops, int)


def test_prices_reproduce_the_published_cost_table():
    table = data.load("cloud_cost_per_year")
    for row in table[table.volume_type == "io1"].itertuples():
        assert preset("io1", iops=row.iops, size_gb=row.size_gb).usd_per_year == pytest.approx(row.total_usd_per_year)
    gp2_row = table[table.volume_type == "gp2"].iloc[0]
    assert preset("gp2", size_gb=gp2_row.size_gb).usd_per_year == pytest.approx(gp2_row.total_usd_per_year)


def test_io1_is_capped_at_30000_iops_and_500_mb_per_s():
    assert preset("io1", iops=30_000).bandwidth == 500e6
    with pytest.raises(ValueError, match="io1 IOPS must be in"):
        preset("io1", iops=40_000)


def test_bad_presets_and_parameters():
    with pytest.raises(ValueError, match="unknown device preset 'floppy'; known presets: nvme, slow-ssd, sm863, gp2, "
                                         "io1"):
        preset("floppy")
    with pytest.raises(ValueError, match="bad parameters"):
        preset("nvme", size_gb=3)
    with pytest.raises(ValueError, match="gp2 size must be > 0"):
        preset("gp2", size_gb=0)
    with pytest.raises(ValueError, match="iops must be > 0"):
        custom(preset("nvme"), iops=0)
    with pytest.raises(ValueError, match="write_iops must be > 0"):
        custom(preset("nvme"), write_iops=0)


def test_every_preset_names_its_source():
    for name in ("nvme", "slow-ssd", "gp2", "io1"):
        assert "seed" in preset(name).source
    assert "data sheet" in preset("sm863").source and "seed 001" in preset("sm863").source


def test_reads_and_writes_share_the_device_time_at_their_own_caps():
    """The SM863's data sheet: 97,000 random reads and 29,000 random writes per second, 520 and 485 MB/s."""
    ssd = preset("sm863")
    reads, writes = IOCounts(reads=97_000, read_bytes=97_000 * 4096), IOCounts(writes=29_000, write_bytes=29_000 * 4096)
    assert ssd.iops_time(reads) == pytest.approx(1.0) and ssd.iops_time(writes) == pytest.approx(1.0)
    assert ssd.busy_time(reads + writes) == pytest.approx(2.0)  # half a second's reads and writes each fill it
    stream = IOCounts(reads=40, read_bytes=520_000_000, writes=40, write_bytes=485_000_000)
    assert ssd.bandwidth_time(stream) == pytest.approx(2.0) and ssd.busy_time(stream) == pytest.approx(2.0)
    one_cap = preset("slow-ssd")  # no write caps: writes count against the one cap, as before
    assert one_cap.busy_time(reads + writes) == pytest.approx((97_000 + 29_000) / 10_000)
