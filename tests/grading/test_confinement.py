"""Where the sandbox cannot be confined (not root, or no namespaces), grading refuses in one line unless told
``--unsafe-no-sandbox``; copies refuse links; what a sandbox user leaves in shared folders is removed.

The refusals are checked here with the machine's answer replaced (``isolation.confinement``), so they run the same
as root, as CI does, and as a plain user; ``test_hostile.py`` checks the walls themselves, under root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from minidb.cli import main
from minidb.grading import autograde, bulk, plugin
from minidb.grading.activation import plugin_args
from minidb.grading.isolation import Confinement, confinement, view_paths
from minidb.grading.limits import remove_files
from minidb.grading.safecopy import UnsafeSubmission, copy_submission

from .hostile import GOOD, MAX_POINTS, write_exercise

pytest_plugins = ["pytester"]
NOT_ROOT = Confinement(False, False, "not running as root, so a sandbox cannot have a user id of its own")
NO_NAMESPACES = Confinement(True, False, "the kernel refused the sandbox's namespaces (unshare: Operation not "
                                         "permitted)")


@pytest.fixture(params=[NOT_ROOT, NO_NAMESPACES], ids=["not-root", "no-namespaces"])
def unconfined(request, monkeypatch):
    for module in (bulk, plugin, autograde):
        monkeypatch.setattr(module, "confinement", lambda: request.param)
    return request.param


def test_minidb_grade_refuses_in_one_line_unless_unsafe(unconfined, tmp_path, capsys):
    folder = write_exercise(tmp_path)
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "alice.py").write_text(GOOD)
    args = ["grade", str(tmp_path / "subs"), "--exercise", str(folder), "--out", str(tmp_path / "grades.csv"),
            "--no-progress"]
    assert main(args) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and unconfined.why_not in error and "--unsafe-no-sandbox" in error, error
    assert not (tmp_path / "grades.csv").exists()
    if unconfined.own_uid and os.geteuid() != 0:
        return  # the unsafe run below would still have a uid of its own only as root
    assert main([*args, "--unsafe-no-sandbox"]) == 0
    assert f"alice,alice,,,,0,2,3,5,{MAX_POINTS},{MAX_POINTS},{MAX_POINTS},," in (tmp_path / "grades.csv").read_text()


def test_pytest_sandbox_refuses_unless_unsafe(unconfined, pytester):
    folder = write_exercise(pytester.path)
    (pytester.path / "alice.py").write_text(GOOD)
    args = [str(folder), *plugin_args(), "--sandbox", "--student", str(pytester.path / "alice.py"), "-p",
            "no:cacheprovider"]
    result = pytester.runpytest_inprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--sandbox: cannot confine the students' code here: {unconfined.why_not}" in result.stderr.str()


def test_the_autograder_refuses_only_without_root(unconfined, tmp_path, capsys):
    folder = write_exercise(tmp_path)
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "demo.py").write_text(GOOD)
    argv = ["--exercise", str(folder), "--submission", str(tmp_path / "submission"), "--results",
            str(tmp_path / "results.json")]
    if not unconfined.own_uid:
        assert autograde.main(argv) == 2
        assert "refusing to grade" in capsys.readouterr().err
        assert not (tmp_path / "results.json").exists()


def test_a_link_or_a_fifo_is_refused_with_its_name(tmp_path):
    (tmp_path / "sub" / "pkg").mkdir(parents=True)
    (tmp_path / "sub" / "demo.py").write_text(GOOD)
    (tmp_path / "sub" / "pkg" / "notes.txt").symlink_to("/etc/hostname")
    with pytest.raises(UnsafeSubmission, match=r"^pkg/notes.txt is a symbolic link \(to /etc/hostname\)"):
        copy_submission(tmp_path / "sub", tmp_path / "copy")
    (tmp_path / "sub" / "pkg" / "notes.txt").unlink()
    os.mkfifo(tmp_path / "sub" / "pkg" / "pipe")
    with pytest.raises(UnsafeSubmission, match="pkg/pipe is not a regular file"):
        copy_submission(tmp_path / "sub", tmp_path / "copy2")
    (tmp_path / "sub" / "pkg" / "pipe").unlink()
    assert copy_submission(tmp_path / "sub", tmp_path / "copy3") == len(GOOD)
    assert (tmp_path / "copy3" / "demo.py").read_text() == GOOD


@pytest.mark.skipif(os.geteuid() != 0, reason="files of another uid need root")
def test_files_a_sandbox_user_left_in_shared_folders_are_removed():
    uid = 1_400_000_321
    shared = Path(tempfile.mkdtemp(prefix="minidb-shared-", dir="/tmp"))  # a folder the uid can reach
    (shared / "inner").mkdir(parents=True)
    shared.chmod(0o1777)
    (shared / "inner").chmod(0o1777)
    code = ("import os, sys\nfor d in sys.argv[1:]:\n    open(os.path.join(d, 'left'), 'w').write('x')\n"
            "os.makedirs(os.path.join(sys.argv[1], 'dir', 'deep'))\n")
    subprocess.run([shutil.which("python3", path="/usr/bin:/bin"), "-c", code, str(shared), str(shared / "inner")],
                   user=uid, group=uid, extra_groups=[], check=True)
    (shared / "mine").write_text("the grader's own")
    try:
        removed = remove_files(uid, (str(shared),))
        assert sorted(removed) == sorted(str(shared / n) for n in ("left", "dir", "inner/left"))
        assert sorted(p.name for p in shared.rglob("*")) == ["inner", "mine"]
    finally:
        shutil.rmtree(shared)


def test_a_jail_sees_the_python_and_the_engine_only():
    paths = view_paths()
    assert sys.base_prefix in paths or any(sys.base_prefix.startswith(p + "/") for p in paths)
    assert not [p for p in paths if p.endswith(("exercises", "solutions")) or p in ("/", "/home", "/work", "/tmp")]
    if os.geteuid() == 0:
        assert confinement().own_uid
