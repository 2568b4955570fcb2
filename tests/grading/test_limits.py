"""The sweeps that end whatever a sandbox started: by its uid (root), or by its environment marker."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time

import pytest

from minidb.grading.grader import run_pytest
from minidb.grading.limits import MARKER, RUN_ENV, Limits, kill_marked, kill_user, sandbox_user
from minidb.grading.sandbox import sandbox_python


def _daemon(**popen) -> int:
    """The pid of a process that left our session and sleeps (a grandchild, as a daemon is)."""
    code = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    print(os.getpid(), flush=True)\n" \
           "    os.close(1)\n    os.close(2)\n    time.sleep(60)\nos._exit(0)\n"
    python = sandbox_python(as_other_user="user" in popen)
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, **popen).stdout
    return int(out.split()[0])


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def _wait_dead(pid: int) -> bool:
    for _ in range(50):
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_kill_marked_ends_a_daemon_carrying_the_marker():
    pid = _daemon(env=dict(os.environ, **{MARKER: "abc123"}))
    bystander = _daemon(env=dict(os.environ, **{MARKER: "other"}))
    try:
        kill_marked("abc123")
        assert _wait_dead(pid)
        assert _alive(bystander), "a process with another marker was killed"
    finally:
        kill_marked("other")


def test_a_grading_run_killed_at_its_limit_takes_its_sandboxes_daemons_with_it(tmp_path):
    """A run killed at its wall-clock limit never stops its sandboxes, which left its session; the grader sweeps
    every process whose marker starts with the run's id, whatever its uid."""
    pidfile = tmp_path / "daemon.pid"
    code = ("import os, subprocess, sys, time\n"
            f"env = dict(os.environ, {MARKER}=os.environ.get('{RUN_ENV}', '') + 'f00d')\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], env=env,"
            " start_new_session=True)\n"
            f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
            "time.sleep(60)\n")
    exit_code, _ = run_pytest([sys.executable, "-c", code], tmp_path, timeout=3)
    assert exit_code is None, "the run was killed at its limit"
    assert _wait_dead(int(pidfile.read_text()))


@pytest.mark.skipif(os.geteuid() != 0, reason="running as another uid needs root")
def test_kill_user_ends_every_process_of_the_uid():
    uid = 1_400_000_123
    pid = _daemon(user=uid, group=uid, extra_groups=[], cwd="/")
    kill_user(uid)
    assert _wait_dead(pid)


def test_limits_apply_in_the_child():
    code = "import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0], resource.getrlimit(resource.RLIMIT_FSIZE)[0])"
    limits = Limits(memory_bytes=512 << 20, file_bytes=1 << 20)
    out = subprocess.run([sys.executable, "-c", code], preexec_fn=limits.apply, capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == [str(512 << 20), str(1 << 20)]


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid of its own needs root")
def test_a_process_with_a_uid_of_its_own_cannot_fork_past_the_cap():
    # preexec_fn runs after the switch to the sandbox's uid: the cap must not depend on asking whether we are root
    uid = sandbox_user() + 7
    code = ("import os\nn = 0\nfor _ in range(200):\n    try:\n        pid = os.fork()\n    except OSError:\n"
            "        break\n    if pid == 0:\n        import time; time.sleep(5); os._exit(0)\n    n += 1\nprint(n)")
    limits = Limits(processes=8)
    try:
        out = subprocess.run([sandbox_python(True), "-c", code],
                             preexec_fn=functools.partial(limits.apply, own_uid=True), user=uid, group=uid, extra_groups=[], cwd="/", capture_output=True, text=True,
                             timeout=60).stdout
    finally:
        kill_user(uid)
    assert int(out) < 8  # the process itself counts: fewer than 8 children
def test_a_repeated_alarm_during_a_slow_cleanup_does_not_replace_the_timeout(tmp_path, monkeypatch):
    # On a loaded machine stopping a sandbox can outlast the time limit's repeat interval: the repeat must not
    # raise a second GradingTimeout from inside the grader's cleanup (a traceback through minidb/grading).
    from minidb.grading.sandbox import Sandbox
    from minidb.grading.timelimit import REPEAT, GradingTimeout, time_limit

    source = tmp_path / "spin.py"
    source.write_text("def spin():\n    while True:\n        pass\n")
    sandbox = Sandbox("spin", source)
    slow_stop = sandbox._stop

    def stop_slowly():
        time.sleep(3 * REPEAT)
        slow_stop()

    monkeypatch.setattr(sandbox, "_stop", stop_slowly)
    module = sandbox.root()
    try:
        with pytest.raises(GradingTimeout) as caught:
            with time_limit(1, "spin ran past its time limit"):
                module.spin()
        assert caught.value.__context__ is None, "a repeat alarm replaced the first timeout"
        assert all("_no_alarm" not in str(entry) and entry.name != "stop_slowly" for entry in caught.traceback)
    finally:
        monkeypatch.undo()
        sandbox.stop()
