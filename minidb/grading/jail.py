"""The sandbox's walls: run one command as a user of its own, in a filesystem view of its own, with no network.

``sandbox.py`` starts this file as root, as a script (``python -I -S jail.py SPEC``), when the kernel allows
namespaces (``isolation.py`` probes that once per process). SPEC is a JSON object; the steps below run in order,
and only then is the student's code started, by ``execve`` of ``SPEC["argv"]``:

1. ``unshare`` a mount, a network and an IPC namespace. The new network namespace has only a loopback interface,
   down: no connection leaves the process, not even to the grader's own machine. The IPC namespace keeps two
   students graded at once from sharing System V memory.
2. Make every mount private (nothing done here propagates back), and mount a ``tmpfs`` of ``SPEC["tmpfs"]`` (its
   size and number of files capped) on ``SPEC["root"]``: the sandbox's whole filesystem. Files the student's code
   writes (to its home or ``/tmp``) live there and vanish with the namespace, when its last process ends.
3. Into it: ``SPEC["readonly"]`` (the system's libraries, the Python that runs the sandbox, the engine's package),
   each bound read-only at its own path, no set-uid programs; the device nodes a program needs (``/dev/null``...);
   a copy of the submission as ``/home/student`` and of the request server as ``/sandbox/sandbox_server.py``. No
   ``/proc``: the grader's command lines and environment stay out of sight.
4. ``chroot`` into it, drop to the user ``SPEC["uid"]`` (no groups, no capabilities, ``no_new_privs``), set the
   resource limits ``SPEC["rlimits"]``, and run the command.

It needs nothing but the standard library (``ctypes`` for the two system calls Python 3.11 lacks), so it starts
without the grader's packages. A step that fails ends it with ``EXIT_FAILED`` and one line on stderr, which the
grader reports (before any student code ran).
"""

import ctypes
import json
import os
import resource
import shutil
import sys

EXIT_FAILED = 121  # the exit code of a jail that could not be built
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET = 0x00020000, 0x08000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS = 38
DEVICES = ("null", "zero", "random", "urandom")  # the character devices a Python program may open
HOME = "/home/student"  # where the submission's copy sits, and the sandbox's working folder
SERVER = "/sandbox/sandbox_server.py"  # where the request server's copy sits

_libc = ctypes.CDLL(None, use_errno=True)


def _call(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source, target, fstype=None, flags=0, data=None):
    """mount(2); OSError naming the target on failure."""
    encode = (lambda s: None if s is None else os.fsencode(s))
    _call(_libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)),
          f"mount {target}")


def bind(source, target, flags):
    """Bind ``source`` (a folder or a file) at ``target`` inside the new root, then remount it with ``flags``."""
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    mount(source, target, None, MS_BIND | MS_REC)
    mount(None, target, None, MS_BIND | MS_REMOUNT | flags)


def build(spec):
    """Steps 1 to 3: the namespaces and the sandbox's filesystem under ``spec["root"]``."""
    _call(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = spec["root"]
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, spec["tmpfs"] + ",mode=0755")
    for path in spec["readonly"]:
        target = root + path
        if os.path.islink(path):  # /bin -> usr/bin on a merged /usr: the same link, resolved inside
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(os.readlink(path), target)
        elif os.path.exists(path):
            bind(path, target, MS_RDONLY | MS_NOSUID | MS_NODEV)
    for device in DEVICES:
        bind(f"/dev/{device}", f"{root}/dev/{device}", MS_NOSUID)
    os.makedirs(root + "/tmp", exist_ok=True)  # a Python installed under /tmp is bound in it already
    os.chmod(root + "/tmp", 0o1777)
    os.makedirs(root + os.path.dirname(SERVER))
    shutil.copyfile(spec["server"], root + SERVER)
    shutil.copytree(spec["home"], root + HOME, symlinks=True)
    for folder, dirs, files in os.walk(root + HOME):
        for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
            os.lchown(name, spec["uid"], spec["uid"])


def enter(spec):
    """Step 4: into the new root, as the sandbox's user, within its limits."""
    os.chroot(spec["root"])
    os.chdir(HOME)
    os.setgroups([])
    os.setgid(spec["uid"])
    os.setuid(spec["uid"])
    _call(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(no_new_privs)")
    for limit, value in spec["rlimits"]:
        resource.setrlimit(limit, (value, value))


def main():
    spec = json.loads(sys.argv[1])
    try:
        build(spec)
        enter(spec)
    except OSError as e:
        print(f"minidb sandbox: could not build the sandbox: {e}", file=sys.stderr, flush=True)
        os._exit(EXIT_FAILED)
    os.execve(spec["argv"][0], spec["argv"], spec["env"])


if __name__ == "__main__":
    main()
