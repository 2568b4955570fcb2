"""Untrusted grading: the student's code runs in a sandbox process, the tests and the verdicts stay out of its reach.

With ``pytest --sandbox`` (what ``minidb grade`` and the Gradescope autograder use) the fixture hands the tests a
``Remote``: a stand-in for the student's module whose every use (an attribute, a call, ``len``...) is a request to
a separate process, ``sandbox_server.py``, that imported the student's module and answers with plain values.

Why a submission cannot raise its own score this way (the argument the hostile tests in tests/grading check):

1. **No student code runs in the process that judges.** The tests, pytest, the gradebook and the results file live
   in the grading process; the student's code lives in the sandbox. Patching pytest or the gradebook, ``atexit``
   hooks, ``os._exit``, writing a results file: all of it happens in the sandbox's process, which reports nothing
   but answers to the requests the tests make. If it dies, the request that was waiting fails, that test fails,
   and the next request starts a fresh sandbox.
2. **Answers are data, never code.** Messages are ``marshal``-ed plain values (``sandbox_server.py``), which reading
   cannot turn into code, capped in size. Anything not plain stays in the sandbox as a handle, and a handle is
   never equal to a plain value: an object whose ``__eq__`` always says True (the classic trick) compares by
   identity here, because equality is computed in the grading process on plain copies only.
3. **The sandbox cannot reach the grader.** When the grader is root, the sandbox runs under a user id of its own
   (``limits.py``): it cannot signal the grading process or the bulk grader above it, nor write to the results,
   and every process it starts is killed by uid when the sandbox ends, ``setsid``-ed daemons included. Where the
   kernel allows namespaces (``isolation.py`` finds out), it also runs in a jail (``jail.py``): its own mount and
   network namespaces, in which it sees only its copy of the submission, the Python that runs it and the engine,
   has no network, and writes only to a small memory file system that vanishes with it. It also runs in its own
   session, with caps on memory, CPU time, processes and output (spooled to an unlinked file, its size capped).
   Without the jail, the sandbox's user is one of "other users", able to read any file readable by others along
   its whole path, the instructor's original exercise included, which a default umask leaves open. So before
   anything is graded as root, ``require_private_hidden_tests`` checks every hidden test file
   (``test_*_hidden.py``) of the exercise (``minidb grade``, ``pytest --sandbox``, the Gradescope autograder) and
   refuses, naming the files and the ``chmod o-r`` to run, if another user could read one: the grader never
   changes the permissions of an instructor's tree. Only on Gradescope, whose container the autograder owns, do
   ``setup.sh`` and ``run_autograder`` remove that access themselves (``chmod -R go-rwx`` on the source folder).
   The submission is copied in without following links (``safecopy.py``), and what its user left in shared
   folders is removed when it ends.
4. **Scores come from the tests' own markers, read by the grader** (the stub's run lists the graded tests and
   their points), and the bulk grader clamps every score to that maximum.

Without root, or without namespaces, point 3 weakens (the sandbox could read what its user can read, reach the
network, and without root signal the grader): ``pytest --sandbox`` and ``minidb grade`` then refuse unless given
``--unsafe-no-sandbox``. Grade untrusted work as root in a container that allows namespaces.
"""

from __future__ import annotations

import builtins
import functools
import marshal
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from . import sandbox_server as wire
from . import jail, one_cpu
from .exercise import HIDDEN_TESTS
from .isolation import confinement, jail_command
from .limits import MARKER, RUN_ENV, Limits, kill_marked, kill_user, remove_files, sandbox_user
from .safecopy import UnsafeSubmission, copy_submission
from .student import FRAMES_SHOWN, NOT_THE_STUDENTS, YOUR_CODE, SubmissionError
from .timelimit import GradingTimeout

MAX_REPLY = 64 << 20  # bytes: a reply past this ends the sandbox (a submission returning a huge value)
OUTPUT_TAIL = 2000  # bytes of the sandbox's own output kept to explain a crash
MAX_SOURCE = 1 << 20  # bytes: a student's file larger than this is not read for a looping line
STACK_WAIT = 1.0  # seconds the grader waits for a timed-out sandbox to print where it was
STACK_READ = 64 << 10  # bytes of that output read: a stack is short, a flood of output is the student's
FAULT_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)')  # faulthandler's lines
_METHOD_TYPES = ("method", "function", "builtin_function_or_method", "method-wrapper")


PYTHON_ENV = "MINIDB_SANDBOX_PYTHON"  # the interpreter sandboxes run, if not this one


def sandbox_python(as_other_user: bool) -> str:
    """The Python that runs sandboxes: ``$MINIDB_SANDBOX_PYTHON``, else ours if a sandbox's own user may run it
    (a Python under a private home folder is out of its reach), else the system's ``python3``."""
    chosen = os.environ.get(PYTHON_ENV)
    if chosen:
        return chosen
    if not as_other_user or _open_to_others(Path(sys.executable)):
        return sys.executable
    system = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    if system is None:
        raise RuntimeError(f"no Python a sandbox user may run: set {PYTHON_ENV}")
    return system


class ExposedHiddenTests(ValueError):
    """Hidden test files that any user, the sandbox's included, may read: grading them as root is refused."""


def readable_by_others(path: Path) -> bool:
    """Whether a user with no relation to the file's owner may read ``path``: the file readable by others and
    every folder above it searchable by others (symbolic links resolved)."""
    target = path.resolve()
    return bool(os.stat(target).st_mode & 0o004) and all(os.stat(p).st_mode & 0o001 for p in target.parents)


def exposed_hidden_tests(folder: Path) -> list[Path]:
    """The hidden test files under ``folder`` that other users may read."""
    return [p for p in sorted(Path(folder).rglob(HIDDEN_TESTS)) if p.is_file() and readable_by_others(p)]


def require_private_hidden_tests(folder: Path) -> None:
    """Refuse (ExposedHiddenTests, naming the files and the chmod to run) to grade the exercise in ``folder`` as
    root while a sandbox's user could read one of its hidden tests. Without root the sandbox has the grader's own
    uid and reads what the grader reads: there is nothing to check (see the module's docstring)."""
    if sandbox_user() is None:
        return
    exposed = exposed_hidden_tests(folder)
    if exposed:
        files = " ".join(shlex.quote(str(p)) for p in exposed)
        raise ExposedHiddenTests(
            f"hidden tests readable by any user, so a submission's sandbox could read them: {files}; "
            f"make them private with `chmod o-r {files}` and grade again (the grader does not change your files)"
        )


def _open_to_others(path: Path) -> bool:
    """Whether a user with no relation to the file's owner may run ``path`` (every folder above it searchable)."""
    target = path.resolve()
    return all(os.stat(p).st_mode & 0o001 for p in [target, *target.parents])


@contextmanager
def _no_alarm(drop: bool = False) -> Iterator[None]:
    """Hold SIGALRM (the per-test time limit) back while the body runs; a pending one fires after it, unless
    ``drop`` (the time limit has fired already: a repeat of it would only bury that error under a new one)."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        if drop and signal.SIGALRM in signal.sigpending():
            signal.sigtimedwait({signal.SIGALRM}, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


class SubmissionCrashed(Exception):
    """The student's code ended its own process (``os._exit``, a signal, a limit) while a test was using it."""


class RemoteError(Exception):
    """An exception of the student's own class (or one the grader does not know) raised in the sandbox."""


class Sandbox:
    """One student's module in its own process, restarted on demand after it dies."""

    def __init__(self, module: str, source: Path, limits: Limits = Limits()) -> None:
        self.module = module  # the module name the student's code is imported as
        self.source = source  # the submission's file (a .py or a package's __init__.py)
        self.limits = limits
        self.generation = 0  # bumped at each start: handles of an ended sandbox are refused
        self.proc: subprocess.Popen | None = None
        self.workdir: Path | None = None
        self.home = ""  # the student's folder as the sandbox's Python names it (set by each start)
        self.uid = sandbox_user()
        self.jailed = self.uid is not None and confinement().namespaces  # in its own namespaces (jail.py)
        self.marker = os.environ.get(RUN_ENV, "") + os.urandom(8).hex()  # its run's id first (limits.py)
        self.cpus: set[int] | None = None  # the grader's CPUs while the sandbox runs on its one (one_cpu.py)

    # -- the process -------------------------------------------------------------------------------------------

    def root(self) -> Remote:
        """The student's module, starting the sandbox if it is not running; SubmissionError if it does not import."""
        if self.proc is None:
            self._start()
        return self._decode(("h", 0, "module"))

    def _start(self) -> None:
        with _no_alarm():  # a time limit firing halfway through would leave a process nobody tracks
            self._spawn()
        try:
            status, *rest = self._receive()  # the import: the student's code runs, the time limit must apply
        except SubmissionCrashed as e:
            raise SubmissionError(f"importing {self.module} failed: {e}") from None
        except BaseException as e:  # a time limit: the import may still be running, and must not run on
            self._stop_after(e)
            raise
        if status != "ok":
            name, message, _ = rest
            self.stop()
            raise SubmissionError(f"importing {self.module} failed: {name}: {message}".rstrip(": "))

    def _spawn(self) -> None:
        self.generation += 1
        self.remotes: dict[int, Remote] = {}
        self.workdir = Path(tempfile.mkdtemp(prefix="minidb-sandbox-"))  # 0700: the grader's own
        # The submission's folder (its helper modules too) is copied in, links refused: the original stays out of
        # reach, and nothing it points to is read on its behalf.
        folder = self.source.parent.parent if self.source.name == "__init__.py" else self.source.parent
        home = self.workdir / "submission"
        try:
            copy_submission(folder, home)
        except UnsafeSubmission as e:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise SubmissionError(str(e)) from None
        relative = self.source.relative_to(folder).as_posix()
        self.home = jail.HOME if self.jailed else str(home)
        server = self.workdir / "sandbox_server.py"
        shutil.copyfile(wire.__file__, server)
        to_child, from_parent = os.pipe()
        from_child, to_parent = os.pipe()
        self.output = tempfile.TemporaryFile()  # unlinked: only the sandbox's stdout and stderr can reach it
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", MARKER: self.marker, "PYTHONDONTWRITEBYTECODE": "1"}
        fds = [str(to_child), str(to_parent)]
        if self.jailed:  # its own namespaces: it sees its home, the Python and the engine (jail.py)
            env.update(HOME=jail.HOME, TMPDIR="/tmp")
            argv = [sys.executable, "-I", jail.SERVER, self.module, f"{jail.HOME}/{relative}", *fds]
            command = jail_command(self.workdir, home, server, self.uid, self.limits, argv, env)
            popen = {"cwd": self.workdir}
        else:
            (self.workdir / "tmp").mkdir()
            env.update(HOME=str(home), TMPDIR=str(self.workdir / "tmp"))
            if self.uid is not None:
                for path in [self.workdir, *self.workdir.rglob("*")]:
                    os.lchown(path, self.uid, self.uid)
            command = [sandbox_python(self.uid is not None), "-I", str(server), self.module, str(home / relative),
                       *fds]
            popen = {"cwd": home, "env": env,
                     "preexec_fn": functools.partial(self.limits.apply, own_uid=self.uid is not None)}
            if self.uid is not None:
                popen.update(user=self.uid, group=self.uid, extra_groups=[])
        if self.cpus is None:
            self.cpus = one_cpu.keep_to_one_cpu()  # before the start: the sandbox inherits the one CPU
        try:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.output,
                                         stderr=subprocess.STDOUT, pass_fds=(to_child, to_parent),
                                         start_new_session=True, **popen)
        except BaseException:
            cpus, self.cpus = self.cpus, None
            one_cpu.restore(cpus)
            raise
        os.close(to_child)
        os.close(to_parent)
        self.requests, self.replies = from_parent, from_child

    def stop(self) -> None:
        """End the sandbox and everything it started; forget its handles."""
        with _no_alarm():  # the per-test alarm repeats: it must not cut the cleanup short
            self._stop()

    def _stop(self) -> None:
        if self.proc is None:
            return
        try:
            for fd in (self.requests, self.replies):
                os.close(fd)
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
            if self.uid is not None:
                kill_user(self.uid)  # a jail's files go with its namespace, once its last process is gone
                if not self.jailed:
                    remove_files(self.uid)
            else:
                kill_marked(self.marker)
            self.output.close()
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.proc = None
        finally:  # the grader's CPUs come back even if the cleanup failed
            cpus, self.cpus = self.cpus, None
            one_cpu.restore(cpus)

    def _stop_after(self, error: BaseException) -> None:
        """Stop the sandbox after ``error`` interrupted a wait for its answer; a time limit's error first gets a
        note of where the student's code was running. The limit's alarm repeats (for code that swallows it; the
        student's code is not here to): once it has fired, it is turned off and a pending repeat dropped, or on a
        loaded machine a repeat would replace the timeout with one raised inside the grader's cleanup. The time
        limit restores its timer."""
        with _no_alarm(drop=isinstance(error, GradingTimeout)):
            if isinstance(error, GradingTimeout):
                signal.setitimer(signal.ITIMER_REAL, 0)
                where = self._where_running()
                if where:
                    error.add_note(where)
            self._stop()

    def _where_running(self) -> str | None:
        """Where the sandbox's code is now: ``in your code:`` and the frames of the student's files, innermost last,
        from the stack ``faulthandler`` prints on SIGUSR1 (``sandbox_server.py``); None if none came in time."""
        start = self.output.seek(0, os.SEEK_END)
        try:
            os.kill(self.proc.pid, signal.SIGUSR1)
        except (ProcessLookupError, PermissionError):
            return None
        deadline, text = time.monotonic() + STACK_WAIT, ""
        while time.monotonic() < deadline:  # the dump is written at once, but by another process: wait till it stops
            time.sleep(0.02)
            self.output.seek(start)
            now = self.output.read(STACK_READ).decode("utf-8", "replace")
            if now and now == text:
                break
            text = now
        home, copy = f"{self.home}/", self.workdir / "submission"
        frames = []
        for found in reversed(list(FAULT_FRAME.finditer(text))):  # faulthandler prints the innermost first
            if not found["file"].startswith(home):
                continue
            relative = found["file"][len(home):]
            if any(Path(relative).match(name) for name in NOT_THE_STUDENTS):
                continue
            number = int(found["line"])
            frames.append(traceback.FrameSummary(relative, number, found["function"],
                                                 line=_line_of(copy, relative, number)))
        if not frames:
            return None
        return YOUR_CODE + "\n" + "".join(traceback.format_list(frames[-FRAMES_SHOWN:])).rstrip()

    def _died(self) -> SubmissionCrashed:
        """The error for a sandbox that ended (or closed its side of the pipe) while a request waited; the sandbox
        stopped."""
        with _no_alarm():
            proc = self.proc
            self.output.seek(0, os.SEEK_END)
            size = self.output.tell()
            self.output.seek(max(0, size - OUTPUT_TAIL))
            tail = self.output.read().decode("utf-8", "replace").strip()
            self._stop()  # if it closed the pipe but lives on, this kills it: the exit code says so
            code = proc.returncode
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            how = f"was killed by {name}"
            if -code == signal.SIGXFSZ:
                how += " (it printed or wrote more than the output limit)"
            elif -code in (signal.SIGKILL, signal.SIGXCPU):
                how += " (a CPU or memory limit?)"
        elif code == jail.EXIT_FAILED and "minidb sandbox: could not build" in tail:
            return SubmissionCrashed(f"the grader could not start your code (not your code's fault): {tail}")
        else:
            how = f"exited with code {code} (a call to sys.exit or os._exit?)"
        return SubmissionCrashed(f"your code's process {how}" + (f"; its last output:\n{tail}" if tail else ""))

    # -- requests ------------------------------------------------------------------------------------------------

    def _receive(self) -> tuple:
        __tracebackhide__ = True
        header = self._read(wire.HEADER.size)
        size = wire.HEADER.unpack(header)[0]
        if size > MAX_REPLY:
            self.stop()
            raise SubmissionCrashed(f"your code returned a value of {size} bytes, past the limit of {MAX_REPLY}")
        return marshal.loads(self._read(size))

    def _read(self, n: int) -> bytes:
        __tracebackhide__ = True
        data = wire.read_exactly(self.replies, n)
        if data is None:
            raise self._died()
        return data

    def request(self, op: str, target: Remote, name: str | None = None, args=(), kwargs=None):
        """Run one request in the sandbox and return its answer (a plain value or a Remote)."""
        __tracebackhide__ = True
        if target._handle == 0:  # the module itself: after a crash, the next use starts a fresh sandbox
            if self.proc is None:
                self._start()
            target = self._decode(("h", 0, "module"))
        if target._generation != self.generation or self.proc is None:
            raise SubmissionCrashed("this object came from a run of your code that has ended (it crashed earlier)")
        message = (op, target._handle, name, [self._encode(a) for a in args],
                   {k: self._encode(v) for k, v in (kwargs or {}).items()})
        try:
            wire.send(self.requests, message)
            reply = self._receive()
        except BrokenPipeError:
            raise self._died() from None
        except BaseException as e:
            # A time limit interrupted the wait: the sandbox is still busy, and its next answer would be this one's.
            self._stop_after(e)
            raise
        if reply[0] == "ok":
            return self._decode(reply[1])
        _, type_name, message, trace = reply
        raise _exception(type_name, message, trace)

    def _encode(self, value):
        if isinstance(value, Remote):
            if value._generation != self.generation:
                raise SubmissionCrashed("this object came from a run of your code that has ended")
            return ("h", value._handle)
        if isinstance(value, (list, tuple)) and any(isinstance(v, Remote) for v in value):
            return ("l" if isinstance(value, list) else "t", [self._encode(v) for v in value])
        if isinstance(value, slice):
            return ("s", tuple(self._encode(v)[1] for v in (value.start, value.stop, value.step)))
        value = wire.plain_copy(value)
        if not wire.is_plain(value):
            raise TypeError(f"the grader cannot pass a {type(value).__name__} to the submission's code")
        return ("v", value)

    def _decode(self, value):
        if value[0] == "v":
            if not wire.is_plain(value[1]):  # marshal can also carry code objects: never accept one
                raise SubmissionCrashed("the sandbox answered with something that is not plain data")
            return value[1]
        handle = value[1]
        if handle not in self.remotes:  # one Remote per handle, so that `is` means what it means in the sandbox
            self.remotes[handle] = Remote(self, handle, value[2], self.generation)
        return self.remotes[handle]


def _line_of(folder: Path, relative: str, number: int) -> str:
    """Line ``number`` of the file ``relative`` in ``folder``, or "" if there is none. The sandbox wrote both names
    (its output can say anything, its folder can hold links): nothing outside ``folder`` is read."""
    path = (folder / relative).resolve()
    if not path.is_relative_to(folder.resolve()) or not path.is_file() or path.stat().st_size > MAX_SOURCE:
        return ""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return lines[number - 1].strip() if 0 < number <= len(lines) else ""


def _exception(type_name: str, message: str, trace: str) -> Exception:
    """The exception to raise for one the student's code raised: the built-in of that name, else RemoteError."""
    builtin = getattr(builtins, type_name, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception) and not issubclass(builtin, OSError):
        try:
            error = builtin(message)
        except Exception:  # noqa: BLE001 - a built-in whose constructor wants other arguments
            error = RemoteError(f"{type_name}: {message}")
    else:
        error = RemoteError(f"{type_name}: {message}")
    if trace:
        error.add_note(f"in your code:\n{trace.rstrip()}")
    return error


class Remote:
    """A stand-in for an object that lives in the sandbox: uses of it are requests; equality is on plain copies."""

    __slots__ = ("_sandbox", "_handle", "_type", "_generation", "_methods")

    def __init__(self, sandbox: Sandbox, handle: int, type_name: str, generation: int) -> None:
        for slot, value in zip(self.__slots__, (sandbox, handle, type_name, generation, {})):
            object.__setattr__(self, slot, value)

    def __getattr__(self, name: str):
        __tracebackhide__ = True
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # Python's own protocol probes (copy, pickle...) are not the student's API
        if name in self._methods:
            return self._methods[name]
        value = self._sandbox.request("getattr", self, name)
        if isinstance(value, Remote) and value._type in _METHOD_TYPES:
            self._methods[name] = value  # a method does not change: one request fewer per call
        return value

    def __setattr__(self, name: str, value) -> None:
        __tracebackhide__ = True
        self._methods.pop(name, None)
        self._sandbox.request("setattr", self, name, (value,))

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True
        return self._sandbox.request("call", self, None, args, kwargs)

    def __getitem__(self, key):
        __tracebackhide__ = True
        return self._sandbox.request("getitem", self, None, (key,))

    def __setitem__(self, key, value) -> None:
        __tracebackhide__ = True
        self._sandbox.request("setitem", self, None, (key, value))

    def __len__(self) -> int:
        __tracebackhide__ = True
        return self._sandbox.request("len", self)

    def __bool__(self) -> bool:
        __tracebackhide__ = True
        return self._sandbox.request("bool", self)

    def __iter__(self):
        __tracebackhide__ = True
        return iter([self._sandbox._decode(v) for v in self._sandbox.request("iter", self)])

    def __contains__(self, item) -> bool:
        __tracebackhide__ = True
        return self._sandbox.request("contains", self, None, (item,))

    def __repr__(self) -> str:
        try:
            return self._sandbox.request("repr", self)
        except Exception:  # noqa: BLE001 - a repr must not fail while pytest explains an assertion
            return f"<{self._type} object of the submission>"

    def __str__(self) -> str:
        return self._sandbox.request("str", self)

    def _plain(self):
        """A plain copy of the object if it is plain data (a list, a dict...), else this Remote itself."""
        return self._sandbox.request("value", self)

    def __eq__(self, other) -> bool:
        mine = self._plain()
        theirs = other._plain() if isinstance(other, Remote) else other
        if isinstance(mine, Remote) or isinstance(theirs, Remote):
            return isinstance(other, Remote) and (self._handle, self._generation) == (other._handle,
                                                                                    other._generation)
        return mine == theirs

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = object.__hash__
