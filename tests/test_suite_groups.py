"""The suite's own scheduling: under ``make test`` (pytest-xdist, ``--dist loadgroup``) the tests of one
``xdist_group`` run on one worker, so a module fixture that builds the site, a course or a release runs once. A
pytest that breaks the grouping fails nothing else, only doubles the suite's time: this test catches it."""

import subprocess
import sys
import textwrap


def test_an_xdist_group_runs_on_one_worker(tmp_path):
    log = tmp_path / "workers.log"
    tests = textwrap.dedent(f"""
        import os
        import pytest

        pytestmark = pytest.mark.xdist_group("shared")

        @pytest.mark.parametrize("i", range(8))
        def test_grouped(i):
            with open({str(log)!r}, "a") as f:
                f.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
    """)
    for name in ("test_one.py", "test_two.py"):
        (tmp_path / name).write_text(tests)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup", "-p",
                          "no:cacheprovider", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    workers = log.read_text().split()
    assert len(workers) == 16 and len(set(workers)) == 1, f"one group ran on workers {sorted(set(workers))}"
