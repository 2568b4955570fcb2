"""Background jobs on the device timeline: queueing, shares, and how much they slow the foreground."""

import pytest

from minidb.sim.background_queue import BackgroundQueue


def test_jobs_queue_one_after_another():
    q = BackgroundQueue()
    a = q.submit(now=1.0, device_seconds=2.0)
    b = q.submit(now=1.5, device_seconds=1.0)
    assert (a.start, a.end) == (1.0, 3.0)
    assert (b.start, b.end) == (3.0, 4.0)  # waits for the first
    c = q.submit(now=10.0, device_seconds=1.0)
    assert (c.start, c.end) == (10.0, 11.0)  # the device was idle by then
    assert q.submitted == 3 and q.device_seconds == 4.0


def test_a_half_share_doubles_a_job_and_cpu_can_bound_it():
    q = BackgroundQueue()
    job = q.submit(0.0, device_seconds=1.0, share=0.5)
    assert job.end == 2.0 and job.share == 0.5
    slow = q.submit(2.0, device_seconds=1.0, cpu_seconds=4.0, share=1.0)
    assert slow.end - slow.start == 4.0 and slow.share == pytest.approx(0.25)  # CPU-bound: uses a quarter


def test_a_jobs_cpu_work_runs_beside_the_jobs_before_it_and_only_its_io_queues():
    """RocksDB runs each flush and compaction on a thread of its own: a flush does not wait while a compaction
    merges, only while the device does the compaction's IO."""
    q = BackgroundQueue()
    compaction = q.submit(0.0, device_seconds=1.0, cpu_seconds=10.0)  # IO in [0, 1), merging until 10
    flush = q.submit(0.5, device_seconds=0.5, cpu_seconds=1.0)  # IO after the compaction's, CPU from 0.5
    assert compaction.end == 10.0
    assert (flush.start, flush.end) == (1.0, 1.5)  # ends long before the compaction it was queued behind
    cpu_bound = q.submit(2.0, device_seconds=0.5, cpu_seconds=3.0)
    assert (cpu_bound.start, cpu_bound.end) == (2.0, 5.0)
    late = q.submit(2.2, device_seconds=1.0)  # IO waits for the IO before it, not for that job's CPU
    assert (late.start, late.end) == (2.5, 3.5)
    assert q.busy_until == 3.5 and q.device_seconds == 3.0
    # the foreground shares the device with the jobs' IO only: the compaction's and the flush's take all of it
    # until 1.5, and the device is free from then until 2.0
    assert q.foreground_time(0.5, 0.25) == pytest.approx(1.25)


def test_foreground_gets_the_rest_of_the_device_while_jobs_run():
    q = BackgroundQueue()
    q.submit(0.0, device_seconds=1.0, share=0.5)  # runs [0, 2) on half the device
    assert q.foreground_time(0.0, 0.5) == pytest.approx(1.0)  # half speed
    assert q.foreground_time(0.0, 1.5) == pytest.approx(2.5)  # 1.0 during the job, then 0.5 at full speed
    assert q.foreground_time(2.0, 0.3) == pytest.approx(0.3)  # the job is over


def test_idle_gaps_run_the_foreground_at_full_speed():
    q = BackgroundQueue()
    q.submit(1.0, device_seconds=1.0, share=0.5)  # [1, 3)
    assert q.foreground_time(0.0, 0.5) == pytest.approx(0.5)
    assert q.foreground_time(0.0, 1.5) == pytest.approx(2.0)  # 1.0 before the job, 0.5 at half speed


def test_a_full_share_makes_the_foreground_wait():
    q = BackgroundQueue()
    q.submit(0.0, device_seconds=1.0, share=1.0)
    assert q.foreground_time(0.0, 0.25) == pytest.approx(1.25)
    assert q.foreground_time(0.0, 0.0) == 0.0


@pytest.mark.parametrize("kwargs, message", [
    (dict(device_seconds=-1.0), "time >= 0"),
    (dict(device_seconds=1.0, share=0.2), "share"),
    (dict(device_seconds=1.0, share=1.5), "share"),
])
def test_bad_jobs_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BackgroundQueue().submit(0.0, **kwargs)
    with pytest.raises(ValueError, match="demand"):
        BackgroundQueue().foreground_time(0.0, -1.0)
