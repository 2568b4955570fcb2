"""How well this machine can confine a submission's code, found out once per process.

A confined sandbox (``sandbox.py``) needs two things from the system:

* **root**, so that each sandbox runs as a user id of its own (``limits.sandbox_user``): it cannot signal the grader
  or read the grader's private files, its process cap counts only its own processes, and everything it started
  can be killed by uid;
* **namespaces** (``jail.py``): a mount namespace in which it sees only its own files, the Python that runs it and
  the engine, and a network namespace with no way out. Containers often forbid them (Docker's default seccomp
  profile refuses ``unshare`` without ``CAP_SYS_ADMIN``); ``probe`` builds one throw-away jail to find out.

``minidb grade`` and ``pytest --sandbox`` refuse to grade with less, in one line saying what is missing, unless
given ``--unsafe-no-sandbox``; then a sandbox is still a process of its own with limits (and a uid of its own if we
are root), but it sees what that user may see and reaches the network. The Gradescope autograder grades one
submission in a container made for it alone, so there root is enough (``autograde.py``).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import jail
from .limits import Limits, sandbox_user

UNSAFE_FLAG = "--unsafe-no-sandbox"
PROBE_TIMEOUT = 60  # seconds for the throw-away jail to start Python and end (a loaded machine is slow)
SYSTEM_PATHS = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc/ld.so.cache",
                "/etc/localtime")  # what any dynamically linked Python needs, bound read-only in a jail
JAIL_FILES = "size=64m,nr_inodes=4096"  # a jail's tmpfs: its submission's copy and all it writes, capped
ENGINE = Path(__file__).resolve().parents[1]  # the minidb package, which a submission may import


@dataclass(frozen=True)
class Confinement:
    """What a sandbox started by this process gets."""

    own_uid: bool  # a user id of its own (we are root)
    namespaces: bool  # its own mount and network namespaces (jail.py)
    why_not: str = ""  # what is missing, for the refusal

    @property
    def full(self) -> bool:
        """Both walls: the grader may run untrusted code."""
        return self.own_uid and self.namespaces

    def refusal(self) -> str:
        """The one-line reason to refuse grading here (only meaningful when not ``full``)."""
        return (f"cannot confine the students' code here: {self.why_not}; grade as root in a container "
                f"that allows namespaces (see exercises/README.md, 'Grading untrusted code'), or give "
                f"{UNSAFE_FLAG} to run it with fewer walls")


def _links_to(path: str) -> list[str]:
    """``path`` and every symbolic link it goes through on the way to its file (a venv's python -> python3 -> ...)."""
    chain = [path]
    while os.path.islink(chain[-1]) and len(chain) < 40:
        chain.append(os.path.normpath(os.path.join(os.path.dirname(chain[-1]), os.readlink(chain[-1]))))
    return chain


def view_paths() -> list[str]:
    """What a jail binds read-only: the system's libraries, the Python running us (its prefixes, and the links its
    executable goes through) and the engine; none inside another."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    wanted = [*SYSTEM_PATHS, *prefixes, *_links_to(sys.executable), str(ENGINE)]
    kept: list[str] = []
    for path in sorted(set(wanted), key=len):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept if not os.path.islink(k)):
            kept.append(path)
    return sorted(kept)


def jail_command(workdir: Path, home: Path, server: Path, uid: int, limits: Limits, argv: list[str],
                 env: dict[str, str]) -> list[str]:
    """The command that runs ``argv`` jailed (``jail.py``): as ``uid``, seeing ``home`` (copied to its home
    folder), ``server`` (copied beside it) and ``view_paths()``; ``workdir`` is a private folder it may mount on."""
    root = workdir / "root"
    root.mkdir(exist_ok=True)
    spec = {"root": str(root), "home": str(home), "server": str(server), "uid": uid, "tmpfs": JAIL_FILES,
            "readonly": view_paths(), "rlimits": limits.rlimits(own_uid=True), "argv": argv, "env": env}
    return [sys.executable, "-I", "-S", jail.__file__, json.dumps(spec)]


def _probe_namespaces(uid: int) -> str:
    """Build one jail that starts Python and exits: "" if it worked, else why not."""
    workdir = Path(tempfile.mkdtemp(prefix="minidb-probe-"))
    try:
        (workdir / "home").mkdir()
        command = jail_command(workdir, workdir / "home", Path(jail.__file__), uid, Limits(),
                               [sys.executable, "-I", "-c", "pass"], {"PATH": "/usr/bin:/bin"})
        try:
            run = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                 timeout=PROBE_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"a test sandbox did not start within {PROBE_TIMEOUT} s"
        if run.returncode == 0:
            return ""
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        detail = lines[-1].removeprefix("minidb sandbox: could not build the sandbox: ") if lines else \
            f"exit code {run.returncode}"
        return f"the kernel refused the sandbox's namespaces ({detail})"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@functools.cache
def confinement() -> Confinement:
    """What sandboxes get here (probed once per process)."""
    uid = sandbox_user()
    if uid is None:
        return Confinement(False, False, "not running as root, so a sandbox cannot have a user id of its own")
    why = _probe_namespaces(uid)
    return Confinement(True, not why, why)
