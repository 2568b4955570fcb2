"""While a sandbox runs, the grading process and the sandbox keep to one CPU (the bulk grader's choice, or the one
it is on); when it stops, however it stops, the grader gets its CPUs back (minidb/grading/one_cpu.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from minidb.grading import bulk, one_cpu
from minidb.grading.exercise import default_root, find_exercise
from minidb.grading.grader import Grade, GradedTests, run_pytest
from minidb.grading.sandbox import Sandbox
from minidb.grading.submissions import Submission
from minidb.grading.timelimit import GradingTimeout, time_limit

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                                reason="needs CPU affinity and two CPUs")

BLOOM = find_exercise(default_root(), "01")
CPUS_IN_CHILD = "import os; print(sorted(os.sched_getaffinity(0)))"


def test_current_cpu_is_one_this_process_may_run_on():
    assert one_cpu.current_cpu() in os.sched_getaffinity(0)


def test_a_process_kept_to_its_cpu_starts_children_on_that_cpu_and_gets_its_cpus_back():
    before = os.sched_getaffinity(0)
    taken = one_cpu.keep_to_one_cpu()
    try:
        assert taken == before
        kept = os.sched_getaffinity(0)
        assert len(kept) == 1 and kept < before
        child = subprocess.run([sys.executable, "-c", CPUS_IN_CHILD], capture_output=True, text=True, check=True)
        assert child.stdout.strip() == str(sorted(kept))
    finally:
        one_cpu.restore(taken)
    assert os.sched_getaffinity(0) == before


def test_the_bulk_graders_cpu_is_kept_to_if_allowed_and_ignored_if_not(monkeypatch):
    before = os.sched_getaffinity(0)
    last = max(before)
    for named, kept in [(str(last), {last}), ("9999", None), ("two", None)]:
        monkeypatch.setenv(one_cpu.CPU_ENV, named)
        taken = one_cpu.keep_to_one_cpu()
        try:
            assert len(os.sched_getaffinity(0)) == 1
            if kept is not None:
                assert os.sched_getaffinity(0) == kept
        finally:
            one_cpu.restore(taken)
        assert os.sched_getaffinity(0) == before


def test_jobs_are_spread_over_the_cpus_in_turn():
    cpus = sorted(os.sched_getaffinity(0))
    spread = one_cpu.spread(2 * len(cpus) + 1)
    assert spread[:len(cpus)] == cpus and spread[len(cpus):2 * len(cpus)] == cpus and spread[-1] == cpus[0]


def test_restoring_nothing_or_a_set_no_longer_allowed_changes_nothing():
    before = os.sched_getaffinity(0)
    one_cpu.restore(None)
    one_cpu.restore({10_000})  # no such CPU: the kernel refuses, the grader goes on
    assert os.sched_getaffinity(0) == before


def test_a_grading_run_is_told_its_cpu_and_not_one_inherited(tmp_path, monkeypatch):
    monkeypatch.setenv(one_cpu.CPU_ENV, "7")
    show = [sys.executable, "-c", f"import os; print('cpu', os.environ.get({one_cpu.CPU_ENV!r}))"]
    assert run_pytest(show, tmp_path, 60, cpu=1) == (0, "cpu 1\n")
    assert run_pytest(show, tmp_path, 60) == (0, "cpu None\n")


@pytest.fixture
def sandbox_of(tmp_path):
    """Makes a Sandbox of a module ``name`` with source ``text``; stops them all at the end, when the grader must
    have its CPUs back."""
    before = os.sched_getaffinity(0)
    made = []

    def make(name: str, text: str) -> Sandbox:
        source = tmp_path / f"{name}.py"
        source.write_text(text)
        made.append(Sandbox(name, source))
        return made[-1]

    yield make
    for sandbox in made:
        sandbox.stop()
    assert os.sched_getaffinity(0) == before


def test_a_sandbox_shares_the_graders_one_cpu_until_it_stops(sandbox_of):
    before = os.sched_getaffinity(0)
    sandbox = sandbox_of("where", "import os\n\ndef cpus():\n    return sorted(os.sched_getaffinity(0))\n")
    module = sandbox.root()
    kept = os.sched_getaffinity(0)
    assert len(kept) == 1
    assert module.cpus() == sorted(kept)
    sandbox.stop()
    assert os.sched_getaffinity(0) == before
    assert sandbox.root().cpus() == sorted(os.sched_getaffinity(0))  # a restart keeps to one CPU again


def test_an_import_past_its_time_limit_stops_the_sandbox_and_gives_the_cpus_back(sandbox_of):
    before = os.sched_getaffinity(0)
    sandbox = sandbox_of("spin", "while True:\n    pass\n")
    with pytest.raises(GradingTimeout):
        with time_limit(1, "the import ran past its time limit"):
            sandbox.root()
    assert sandbox.proc is None, "the spinning import was left running"
    assert os.sched_getaffinity(0) == before


def test_the_bulk_graders_jobs_each_grade_on_a_cpu_of_their_own(tmp_path, monkeypatch):
    jobs = len(os.sched_getaffinity(0))
    running, seen = set(), []
    lock = threading.Lock()

    def grade_on(exercise, submission, tests, *args, cpu=None, **kwargs):
        with lock:
            assert cpu not in running, "two jobs at once on one CPU"
            running.add(cpu)
            seen.append(cpu)
        time.sleep(0.05)  # long enough for the jobs to overlap
        with lock:
            running.discard(cpu)
        return Grade(submission.student, {"t": 1.0}, 1.0, 1.0)

    monkeypatch.setattr(bulk, "graded_tests", lambda *args, **kwargs: GradedTests({"t": 1.0}))
    monkeypatch.setattr(bulk, "grade_submission", grade_on)
    monkeypatch.setattr(bulk, "require_private_hidden_tests", lambda folder: None)
    submissions = [Submission(f"s{i}", (tmp_path / f"s{i}.py",)) for i in range(4 * jobs)]
    frame = bulk.grade_all(BLOOM, submissions, jobs=jobs, progress=False, unsafe=True)
    assert len(frame) == len(submissions)
    assert sorted(set(seen)) == sorted(one_cpu.spread(jobs))
