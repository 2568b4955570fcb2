"""While a sandbox runs, the grading process and the sandbox keep to one CPU; when it stops, the grader gets its
CPUs back (minidb/grading/one_cpu.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from minidb.grading import one_cpu
from minidb.grading.sandbox import Sandbox

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                                reason="needs CPU affinity and two CPUs")


def test_current_cpu_is_one_this_process_may_run_on():
    assert one_cpu.current_cpu() in os.sched_getaffinity(0)


def test_a_process_kept_to_its_cpu_starts_children_on_that_cpu_and_gets_its_cpus_back():
    before = os.sched_getaffinity(0)
    taken = one_cpu.keep_to_current_cpu()
    try:
        assert taken == before
        kept = os.sched_getaffinity(0)
        assert len(kept) == 1 and kept < before
        child = subprocess.run([sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                               capture_output=True, text=True, check=True).stdout
        assert child.strip() == str(sorted(kept))
    finally:
        one_cpu.restore(taken)
    assert os.sched_getaffinity(0) == before


def test_restoring_nothing_changes_nothing():
    before = os.sched_getaffinity(0)
    one_cpu.restore(None)
    assert os.sched_getaffinity(0) == before


def test_a_sandbox_shares_the_graders_one_cpu_until_it_stops(tmp_path):
    source = tmp_path / "where.py"
    source.write_text("import os\n\ndef cpus():\n    return sorted(os.sched_getaffinity(0))\n")
    before = os.sched_getaffinity(0)
    sandbox = Sandbox("where", source)
    try:
        module = sandbox.root()
        kept = os.sched_getaffinity(0)
        assert len(kept) == 1
        assert module.cpus() == sorted(kept)
        sandbox.stop()
        assert os.sched_getaffinity(0) == before
        assert module is not None and sandbox.root().cpus() == sorted(os.sched_getaffinity(0))  # a restart
    finally:
        sandbox.stop()
    assert os.sched_getaffinity(0) == before
