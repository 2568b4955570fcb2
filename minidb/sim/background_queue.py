"""Background work sharing the device with the foreground.

Flushes, compactions and page cleaning are *background jobs*: the engine computes them at once (it is single-threaded
and deterministic) but their IO takes device time, during which the foreground keeps running. This module keeps the
timeline of those jobs on the one modelled device:

* jobs' IO runs one job after another, first come first served (several RocksDB threads share one device, so
  running their IO in turn finishes the last one at the same time as running it side by side would);
* a job's CPU work runs on a core of its own from the moment the job is submitted, beside the other jobs': RocksDB
  runs each flush and compaction on a thread of its own (``max_background_jobs`` of them), so a flush does not wait
  while a compaction merges. A job ends when its IO and its CPU work are both done;
* a job's IO gets a *share* of the device, fixed when it starts: what the foreground leaves idle, but at least half,
  which is what processor sharing between two busy classes of work gives each;
* while a job runs, the foreground gets the rest of the device, so a foreground step that needs ``D`` seconds of
  device time takes longer than ``D`` when it overlaps background jobs (``foreground_time``).

Fixing each job's share when it starts gives every job a definite end time the moment the engine asks for it
(``Clock.job_duration``), and the device is never booked beyond its capacity.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_SHARE = 0.5  # processor sharing between two busy classes (foreground, background) gives each half the device


@dataclass(frozen=True)
class Job:
    """One background job on the device timeline."""

    start: float  # simulated second its IO starts (after the IO of the jobs queued before it)
    end: float  # simulated second its IO and its CPU work are both done
    device_seconds: float  # device time its IO needs with the whole device to itself
    cpu_seconds: float  # CPU time its work needs on one core
    share: float  # fraction of the device it occupies from start to end (device_seconds / duration)


class BackgroundQueue:
    """The background jobs of one device, in the order they run; see the module docstring."""

    def __init__(self) -> None:
        self.jobs: list[Job] = []  # the IO of jobs, as spans of the device, not ended before the last time asked about
        self.busy_until = 0.0  # simulated second the last queued job's IO ends
        self.submitted = 0  # jobs submitted so far
        self.device_seconds = 0.0  # device time of every job submitted so far

    def submit(self, now: float, device_seconds: float, cpu_seconds: float = 0.0, share: float = 1.0) -> Job:
        """Queue a job at time ``now`` whose IO may use ``share`` of the device; returns it with its start and end."""
        if device_seconds < 0 or cpu_seconds < 0:
            raise ValueError(f"a job needs time >= 0, got device {device_seconds}, cpu {cpu_seconds}")
        if not MIN_SHARE <= share <= 1.0:
            raise ValueError(f"a background job's device share must be in [{MIN_SHARE}, 1], got {share}")
        start = max(now, self.busy_until)
        io_end = start + device_seconds / share
        if io_end > start:
            self.jobs.append(Job(start, io_end, device_seconds, 0.0, share))
        self.busy_until = io_end
        end = max(io_end, now + cpu_seconds)  # the CPU work started at ``now``, on its own core
        job = Job(start, end, device_seconds, cpu_seconds, device_seconds / (end - start) if end > start else 0.0)
        self.submitted += 1
        self.device_seconds += device_seconds
        return job

    def foreground_time(self, start: float, demand: float) -> float:
        """Seconds from ``start`` until the foreground has had ``demand`` seconds of device time, given that each
        running job keeps its share; jobs that ended before ``start`` are forgotten."""
        if demand < 0:
            raise ValueError(f"device demand must be >= 0, got {demand}")
        self.jobs = [j for j in self.jobs if j.end > start]
        t, remaining = start, demand
        for job in self.jobs:
            if remaining <= 0:
                break
            if job.start > t:  # the device is free of background work until the job starts
                gap = job.start - t
                if remaining <= gap:
                    return t + remaining - start
                remaining -= gap
                t = job.start
            rate = 1.0 - job.share  # the foreground's part of the device while this job runs
            if rate > 0 and rate * (job.end - t) >= remaining:
                return t + remaining / rate - start
            remaining -= rate * (job.end - t)
            t = job.end
        return t + max(remaining, 0.0) - start
