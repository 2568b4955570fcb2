"""The clock engines use: stalls, and background jobs submitted through job_duration and job_span."""

import pytest

from minidb.sim import Clock, CostModel
from minidb.storage import IOCounts, preset

SSD = preset("slow-ssd")  # 10k IOPS, 400 MB/s
TEN_MB_WRITE = IOCounts(writes=40, write_bytes=10_000_000)  # bandwidth-bound: 0.025 s on the slow SSD


def test_wait_until_records_each_stall():
    clock = Clock()
    clock.advance(1.0)
    clock.wait_until(0.5)  # already passed: no stall
    clock.wait_until(3.0)
    assert clock.now == 3.0 and clock.stalls == 1 and clock.stalled == 2.0
    assert clock.stall_log == [(1.0, 3.0)]
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-1)


def test_without_a_model_jobs_take_no_time_but_are_recorded():
    clock = Clock()
    assert clock.job_duration(TEN_MB_WRITE, {"key_compares": 5}) == 0.0
    assert clock.declared_io == TEN_MB_WRITE and clock.declared_work["key_compares"] == 5


def test_an_idle_device_serves_a_job_at_full_speed():
    clock = Clock(SSD)
    assert clock.job_duration(TEN_MB_WRITE) == pytest.approx(SSD.busy_time(TEN_MB_WRITE))


def test_jobs_queue_behind_each_other():
    clock = Clock(SSD)
    first = clock.job_duration(TEN_MB_WRITE)
    second = clock.job_duration(TEN_MB_WRITE)
    assert second == pytest.approx(2 * first)


def test_a_jobs_span_starts_where_the_job_before_it_ends():
    clock = Clock(SSD)
    clock.advance(5.0)
    first = clock.job_span(TEN_MB_WRITE)
    second = clock.job_span(TEN_MB_WRITE)
    assert first[0] == 5.0 and second[0] == first[1] and second[1] - second[0] == pytest.approx(first[1] - first[0])
    assert Clock().job_span(TEN_MB_WRITE) == (0.0, 0.0)  # without a model: now, and done at once


def test_a_busy_foreground_leaves_a_job_half_the_device():
    clock = Clock(SSD)
    clock.advance(1.0)
    clock.record_foreground(device_seconds=1.0, alone_seconds=1.0, actual_seconds=1.0)
    assert clock.job_duration(TEN_MB_WRITE) == pytest.approx(2 * SSD.busy_time(TEN_MB_WRITE))
    assert clock.foreground_utilization == 1.0


def test_a_light_foreground_leaves_a_job_what_it_does_not_use():
    clock = Clock(SSD)
    clock.advance(1.0)
    clock.record_foreground(device_seconds=0.2, alone_seconds=1.0, actual_seconds=1.0)
    assert clock.job_duration(TEN_MB_WRITE) == pytest.approx(SSD.busy_time(TEN_MB_WRITE) / 0.8)


def test_stalls_and_slowdowns_count_as_idle_foreground():
    clock = Clock(SSD)
    clock.advance(0.5)
    clock.record_foreground(device_seconds=0.5, alone_seconds=0.5, actual_seconds=0.5)
    clock.wait_until(2.0)  # stalled 1.5 s: the foreground used the device a quarter of the time
    assert clock.job_duration(TEN_MB_WRITE) == pytest.approx(SSD.busy_time(TEN_MB_WRITE) / 0.75)


def test_time_lost_to_background_sharing_is_not_taken_for_idleness():
    clock = Clock(SSD)
    clock.advance(2.0)  # a step that needed 1 s of device alone took 2 s because a job held half the device
    clock.record_foreground(device_seconds=1.0, alone_seconds=1.0, actual_seconds=2.0)
    assert clock.job_duration(TEN_MB_WRITE) == pytest.approx(2 * SSD.busy_time(TEN_MB_WRITE))


def test_job_cpu_work_bounds_its_duration():
    clock = Clock(SSD, CostModel(key_compares=1e-3))
    assert clock.job_duration(TEN_MB_WRITE, {"key_compares": 1000}) == pytest.approx(1.0 + 10_000_000 * (
        CostModel().costs["crc32_bytes"] + CostModel().costs["copy_bytes"]))
