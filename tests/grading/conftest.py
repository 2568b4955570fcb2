"""Shared by the grading tests: a small made-up exercise, its submissions, and inner pytest runs that grade them;
and a students' copy of this checkout, installed and built (``students_copy``).

The made-up exercise ``01_demo`` has a module ``demo`` with three functions and graded tests of every kind: plain,
parametrized, hidden, Hypothesis-driven, plus one ungraded test. Submissions (module sources) exercise the plugin's
cases: correct, partly wrong, broken, looping.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from minidb.grading.activation import plugin_args

from .students_copy import shared_copy

DEMO_TESTS = '''
import pytest
from hypothesis import given, strategies as st
from minidb.grading.repeatable import repeatable


@pytest.mark.points(2)
def test_add(demo):
    """add adds."""
    assert demo.add(1, 2) == 3


@pytest.mark.points(1.5)
@pytest.mark.parametrize("a", [2, 3])
def test_mul(demo, a):
    """mul multiplies."""
    assert demo.mul(a, 3) == 3 * a


@pytest.mark.points(1)
@pytest.mark.hidden
def test_secret(demo):
    """A hidden check."""
    assert demo.add(2, 2) == 4, "SECRET-EXPECTED-VALUE"


@pytest.mark.points(1)
def test_spin(demo):
    """spin returns."""
    assert demo.spin() == "done"


@pytest.mark.points(1)
@repeatable
@given(x=st.integers())
def test_add_zero(demo, x):
    """Adding zero changes nothing."""
    assert demo.add(x, 0) == x


def test_not_graded():
    assert True
'''

# Module sources of the submissions the tests grade.
SOURCES = {
    "stub": '''
        def add(a, b):
            raise NotImplementedError
        def mul(a, b):
            raise NotImplementedError
        def spin():
            raise NotImplementedError
    ''',
    "good": '''
        def add(a, b):
            return a + b
        def mul(a, b):
            return a * b
        def spin():
            return "done"
    ''',
    # mul is wrong, and so is add(2, 2), which only the hidden test checks.
    "partial": '''
        def add(a, b):
            return 5 if (a, b) == (2, 2) else a + b
        def mul(a, b):
            return a + b
        def spin():
            return "done"
    ''',
    "syntax_error": '''
        def add(a, b)
            return a + b
    ''',
    # spin swallows the first alarm with a bare except; add loops when adding zero, inside a Hypothesis test
    # that would otherwise try to shrink the failure by running the loop again.
    "looping": '''
        def add(a, b):
            while b == 0:
                pass
            return a + b
        def mul(a, b):
            return a * b
        def spin():
            try:
                while True:
                    pass
            except:
                pass
            while True:
                pass
    ''',
    "loops_on_import": '''
        while True:
            pass
    ''',
}

@pytest.fixture
def demo(pytester: pytest.Pytester) -> Path:
    """The demo exercise, written under the test's temporary folder; returns its folder."""
    folder = pytester.path / "exercises" / "01_demo"
    folder.mkdir(parents=True)
    (folder / "exercise.toml").write_text('title = "Demo"\nmodule = "demo"\n')
    (folder / "conftest.py").write_text(
        "from minidb.grading.fixture import exercise_module\n\ndemo = exercise_module(__file__)\n"
    )
    (folder / "demo.py").write_text(textwrap.dedent(SOURCES["stub"]))
    (folder / "test_demo.py").write_text(DEMO_TESTS)
    return folder


@pytest.fixture
def submission(pytester: pytest.Pytester):
    """A function writing the named source of SOURCES as a submission file ``<where>``; returns its path."""

    def write(name: str, where: str = "submissions/{name}.py") -> Path:
        path = pytester.path / where.format(name=name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(SOURCES[name]))
        return path

    return write


@pytest.fixture
def grade(pytester: pytest.Pytester):
    """A function running pytest with the grading plugin in this process: (its RunResult, the results.json)."""

    def run(*args: str) -> tuple[pytest.RunResult, dict]:
        results = pytester.path / "results.json"
        if results.exists():
            results.unlink()
        result = pytester.runpytest_inprocess(
            *map(str, args), *plugin_args(), "--gradescope-json", str(results), "-p", "no:cacheprovider"
        )
        return result, json.loads(results.read_text()) if results.exists() else None

    return run


@pytest.fixture(scope="session")
def students_copy(tmp_path_factory) -> Path:
    """A students' copy of this checkout, installed and built as its ``make lab`` would (students_copy.py), one for
    the whole session: shared by the pytest-xdist workers, through their common temporary folder."""
    base = tmp_path_factory.getbasetemp()
    return shared_copy(base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base)
