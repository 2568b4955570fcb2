"""A students' copy of this checkout (``minidb release``), installed and built as its ``make lab`` would, once per test
session.

Installing a copy for real downloads every dependency and compiles every extension: minutes. The copy made here
follows the same path with what this checkout already has:

* **install** (``make install``): a venv in the copy's ``.venv``, which sees this checkout's packages (a ``.pth``
  file naming their folder) in place of the downloads, and the copy's own package installed into it, editable
  (with this checkout's pip, which every environment the suite runs in has; the Makefile's uv installs the same);
* **build** (``make build``, run for real): the copy's Makefile compiles what the release changed, the engine
  modules it holds as C only (``csrc/``). Every other extension's source is the checkout's, so the checkout's
  build outputs (Cython's C and the compiled objects, timestamps kept) are copied in first and found up to date.

JupyterLab itself is replaced by a script that records its arguments (``JUPYTER_LOG``) and returns: ``make lab``
runs everything up to the server.

The copy is built once per session and shared by the pytest-xdist workers (a lock file in the session's shared
temporary folder): tests read it, and those that write do so only where no other test looks.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from minidb.grading.exercise import default_root
from minidb.grading.release import answer_modules, build_release

ROOT = default_root().parent  # this checkout
JUPYTER_LOG = "jupyter-lab-args.txt"  # in the copy's .venv/bin: how `jupyter` was started (arguments, PATH)
READY = ".students-copy-ready"  # written in the copy once it is built: the files the release wrote, one a line


def shared_copy(shared_tmp: Path) -> Path:
    """The session's students' copy, built by the first worker that asks (see the module docstring)."""
    copy = shared_tmp / "students-copy" / "course"
    copy.parent.mkdir(parents=True, exist_ok=True)
    with open(copy.parent / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other workers wait here until it is built
        if not (copy / READY).exists():
            if copy.exists():
                shutil.rmtree(copy)  # a build that failed half-way in this session
            released = build(copy)
            (copy / READY).write_text("".join(f"{path}\n" for path in released))
    return copy


def released_files(copy: Path) -> list[Path]:
    """The files of the copy that the release wrote (not the venv, nor what the build made)."""
    return [copy / line for line in (copy / READY).read_text().splitlines()]


def build(copy: Path) -> list[str]:
    """Release this checkout into ``copy`` (a new folder), install it and build it (see the module docstring); the
    files the release wrote."""
    released = build_release(ROOT, copy)
    install(copy)
    seed_build(copy)
    make(copy, "build")
    return [str(path) for path in released]


def install(copy: Path) -> None:
    """``make install`` with this checkout's packages: the venv, the dependencies, the copy's package (editable)."""
    venv.create(copy / ".venv", with_pip=False, symlinks=True)
    python = copy / ".venv" / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # Named to sort after the editable install's own .pth, which must find the copy's finder module first.
    (Path(site) / "zz-checkout-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "-e", str(copy)], env=dict(os.environ, MINIDB_EXTENSIONS="0"),
                   capture_output=True, check=True)
    bin_ = copy / ".venv" / "bin"
    # The dependencies' commands the README uses, as pip would have written them: pytest, and JupyterLab's
    # stand-in.
    (bin_ / "pytest").write_text(f"#!{python}\nimport sys\nfrom pytest import console_main\n"
                                 "sys.exit(console_main())\n")
    (bin_ / "jupyter").write_text(f'#!/bin/sh\necho "$@" > "$(dirname "$0")/{JUPYTER_LOG}"\n'
                                  f'echo "PATH=$PATH" >> "$(dirname "$0")/{JUPYTER_LOG}"\n')
    for script in ("pytest", "jupyter"):
        (bin_ / script).chmod(0o755)
    (copy / ".venv" / ".installed").touch()


def seed_build(copy: Path) -> None:
    """Copy this checkout's build outputs for the extensions whose source the copy shares, timestamps kept."""
    hidden = {str(Path(module).with_suffix("")) for module in answer_modules(ROOT)}
    for pyx in copy.glob("minidb/**/*.pyx"):
        generated = ROOT / pyx.relative_to(copy).with_suffix(".c")
        if generated.exists():
            shutil.copy2(generated, pyx.with_suffix(".c"))
    for built in (ROOT / "build").glob("*/minidb/**/*"):
        module = Path(*built.relative_to(ROOT / "build").parts[1:])  # minidb/lsm/bloom.cpython-311-...so
        if built.is_file() and str(module.parent / module.name.split(".")[0]) not in hidden:
            target = copy / built.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built, target)


def student_env() -> dict[str, str]:
    """The environment of a student's terminal: this one without this checkout's venv, nor the make (``make
    test``) or the pytest-xdist worker this test runs under."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "MAKEFLAGS", "MFLAGS", "MAKELEVEL") and not k.startswith(
               ("PYTEST_", "MINIDB_"))}
    ours = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != ours)
    return env


def make(copy: Path, *targets: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``make TARGETS`` in the copy (or in ``cwd`` inside it); CalledProcessError with its output if it fails."""
    run = subprocess.run(["make", *targets], cwd=cwd or copy, capture_output=True, text=True, env=student_env())
    if run.returncode != 0:
        raise subprocess.CalledProcessError(run.returncode, run.args, run.stdout, run.stderr)
    return run
