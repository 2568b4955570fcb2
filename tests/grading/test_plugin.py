"""The grading plugin, on the made-up demo exercise (tests/grading/conftest.py): points, totals, results.json,
--student, hidden tests, the per-test time limit, and staying out of the way of ordinary test runs."""

from __future__ import annotations

import json
import time

import pytest

pytest_plugins = ["pytester"]

DEMO_TESTS = [
    "test_demo.py::test_add",
    "test_demo.py::test_mul[2]",
    "test_demo.py::test_mul[3]",
    "test_demo.py::test_secret",
    "test_demo.py::test_spin",
    "test_demo.py::test_add_zero",
]
DEMO_MAX = 8.0  # 2 + 1.5 * 2 + 1 + 1 + 1


def scores(results: dict) -> dict[str, float]:
    """Points earned per test in a results.json."""
    return {t["name"]: t["score"] for t in results["tests"]}


def test_stub_scores_zero_and_table_lists_every_graded_test(demo, grade):
    result, results = grade(demo)
    assert list(scores(results)) == DEMO_TESTS, "the ungraded test is not listed, the graded ones in order"
    assert results["score"] == 0 and set(scores(results).values()) == {0}
    assert all(t["status"] == "failed" for t in results["tests"])
    result.stdout.fnmatch_lines([
        "*= grade: 0 / 8 points =*",
        "test_demo.py::test_add  * 0 / 2  failed",
        "test_demo.py::test_mul[[]2[]]  * 0 / 1.5  failed",
        "test_demo.py::test_secret (hidden)  * 0 / 1  failed",
        "total  * 0 / 8",
    ])


def test_student_file_scores_full_marks(demo, grade, submission):
    result, results = grade(demo, "--student", submission("good"))
    assert results["score"] == DEMO_MAX
    assert sum(t["max_score"] for t in results["tests"]) == DEMO_MAX
    assert all(t["status"] == "passed" and t["score"] == t["max_score"] for t in results["tests"])
    result.stdout.fnmatch_lines(["*= grade: 8 / 8 points =*", "total  * 8 / 8"])
    assert result.ret == 0


def test_results_json_follows_gradescope_format(demo, grade, submission):
    _, results = grade(demo, "--student", submission("partial"))
    assert {"score", "execution_time", "output", "tests"} <= set(results)
    assert isinstance(results["execution_time"], float) and results["execution_time"] > 0
    for test in results["tests"]:
        assert set(test) == {"name", "score", "max_score", "status", "output", "visibility"}
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in ("visible", "after_published")
    assert results["score"] == sum(t["score"] for t in results["tests"]) == DEMO_MAX - 3 - 1
    assert scores(results)["test_demo.py::test_mul[2]"] == 0 and scores(results)["test_demo.py::test_add"] == 2
    failed_mul = next(t for t in results["tests"] if t["name"] == "test_demo.py::test_mul[3]")
    assert failed_mul["output"].startswith("mul multiplies.") and "assert 6 == (3 * 3)" in failed_mul["output"]


def test_hidden_test_output_is_withheld(demo, grade, submission):
    result, results = grade(demo, "--student", submission("partial"))
    secret = next(t for t in results["tests"] if t["name"] == "test_demo.py::test_secret")
    assert (secret["score"], secret["max_score"], secret["status"]) == (0, 1, "failed"), "graded all the same"
    assert secret["visibility"] == "after_published"
    assert "SECRET-EXPECTED-VALUE" not in json.dumps(results)
    assert "withheld" in secret["output"]
    # The instructor running pytest still sees why it failed.
    assert "SECRET-EXPECTED-VALUE" in result.stdout.str()


def test_student_folder_nested_and_package(demo, grade, submission, pytester):
    # An unzipped archive often adds a folder level: the module is found below it.
    submission("good", where="alice/handin/{name}.py").rename(pytester.path / "alice/handin/demo.py")
    _, results = grade(demo, "--student", pytester.path / "alice")
    assert results["score"] == DEMO_MAX
    # A package with a relative import.
    submission("good", where="bob/demo/impl.py")
    (pytester.path / "bob" / "demo" / "__init__.py").write_text("from .impl import add, mul, spin\n")
    _, results = grade(demo, "--student", pytester.path / "bob")
    assert results["score"] == DEMO_MAX


def test_broken_submission_scores_zero_with_the_reason(demo, grade, submission, pytester):
    result, results = grade(demo, "--student", submission("syntax_error"))
    assert results["score"] == 0
    reason = results["extra_data"]["submission_errors"]
    assert len(reason) == 1 and "SyntaxError" in reason[0] and "syntax_error.py, line 2" in reason[0]
    assert "could not be used" in results["output"]
    result.stdout.fnmatch_lines(["submission error: importing demo from *syntax_error.py failed: SyntaxError*"])
    (pytester.path / "empty").mkdir()
    _, results = grade(demo, "--student", pytester.path / "empty")
    assert results["score"] == 0 and "no demo.py" in results["extra_data"]["submission_errors"][0]


def test_looping_submission_loses_only_the_looping_tests(demo, grade, submission):
    start = time.monotonic()
    result, results = grade(demo, "--student", submission("looping"), "--grading-timeout", "1")
    elapsed = time.monotonic() - start
    looped = {"test_demo.py::test_spin", "test_demo.py::test_add_zero"}
    assert {name for name, s in scores(results).items() if s == 0} == looped
    assert results["score"] == DEMO_MAX - 2
    assert set(results["extra_data"]["timed_out"]) == looped
    result.stdout.fnmatch_lines(["test_demo.py::test_spin  * 0 / 1  timeout"])
    # Two limits of 1 s (plus the half-second second alarm for the swallowed one), not a hang.
    assert elapsed < 15, f"grading took {elapsed:.1f} s"


def test_events_tell_each_test_as_it_starts_and_ends(demo, grade, submission, pytester):
    events = pytester.path / "events.jsonl"
    _, results = grade(demo, "--student", submission("looping"), "--grading-timeout", "1",
                       "--grading-events", str(events))
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    assert [(e["event"], e["name"]) for e in lines] == [(kind, name) for name in DEMO_TESTS
                                                        for kind in ("start", "end")]
    assert {e["limit"] for e in lines if e["event"] == "start"} == {1}
    ends = [{k: v for k, v in e.items() if k not in ("event", "outcome")} for e in lines if e["event"] == "end"]
    assert ends == results["tests"], "each end event is the test's results.json entry"
    outcomes = {e["name"]: e["outcome"] for e in lines if e["event"] == "end"}
    assert outcomes["test_demo.py::test_spin"] == "timeout" and outcomes["test_demo.py::test_add"] == "passed"
    # The looping line of the student's own file, as the student sees it: relative to their folder.
    (spin,) = [e["output"] for e in ends if e["name"] == "test_demo.py::test_spin"]
    assert 'in your code:\nE         File "looping.py", line 14, in spin\nE           while True:' in spin


def test_module_that_loops_on_import_costs_one_time_limit(demo, grade, submission):
    start = time.monotonic()
    _, results = grade(demo, "--student", submission("loops_on_import"), "--grading-timeout", "1")
    assert time.monotonic() - start < 10
    assert results["score"] == 0
    assert "did not finish within the time limit" in results["extra_data"]["submission_errors"][0]


def test_plugin_is_inert_without_graded_tests(pytester):
    from minidb.grading.activation import plugin_args

    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    result = pytester.runpytest_inprocess(*plugin_args(), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "grade:" not in result.stdout.str()
    assert not list(pytester.path.glob("*.json"))
    # Asked for results.json anyway: an empty but valid one, for Gradescope.
    result = pytester.runpytest_inprocess(*plugin_args(), "--gradescope-json", "r.json", "-p", "no:cacheprovider")
    assert (pytester.path / "r.json").read_text().count('"tests": []') == 1


def test_exercise_without_the_plugin_says_so(demo, pytester, monkeypatch):
    # Neither the entry point nor -p: the exercise's fixture explains what is missing.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_inprocess(demo, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=len(DEMO_TESTS))
    assert "the minidb grading plugin is not active" in result.stdout.str()


@pytest.mark.parametrize(
    "marks, message",
    [
        ("@pytest.mark.points(0)", "points must be a positive number"),
        ("@pytest.mark.points('3')", "points must be a positive number"),
        ("@pytest.mark.points(1, 2)", "with one number"),
        ("@pytest.mark.hidden", "needs @pytest.mark.points"),
        ("@pytest.mark.points(1)\n@pytest.mark.hidden(visibility='soon')", "visibility"),
    ],
)
def test_malformed_markers_are_usage_errors(pytester, marks, message):
    from minidb.grading.activation import plugin_args

    pytester.makepyfile(test_marks=f"import pytest\n\n{marks}\ndef test_x():\n    pass\n")
    result = pytester.runpytest_inprocess(*plugin_args(), "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_bad_options_are_usage_errors(demo, grade, pytester):
    result, _ = grade(demo, "--student", pytester.path / "nobody")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "no such file or folder" in result.stderr.str()
    result, _ = grade(demo, "--grading-timeout", "-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "--grading-timeout" in result.stderr.str()


def test_collection_error_is_reported(demo, grade):
    (demo / "test_broken.py").write_text("import pytest\nimport no_such_module_anywhere\n")
    # pytest stops before running anything: results.json still says why, for Gradescope to show.
    result, results = grade(demo)
    assert results["tests"] == [] and results["score"] == 0
    assert "no_such_module_anywhere" in results["extra_data"]["collection_errors"][0]
    assert "failed to load" in results["output"]
    # Told to go on, it grades the rest and warns that the total misses the broken file's tests.
    result, results = grade(demo, "--continue-on-collection-errors")
    assert len(results["tests"]) == len(DEMO_TESTS)
    result.stdout.fnmatch_lines(["collection error (its tests are missing from the total): *test_broken.py*"])


def test_grades_the_same_under_xdist(demo, grade, submission):
    pytest.importorskip("xdist")
    _, results = grade(demo, "--student", submission("partial"), "-n", "2")
    assert results["score"] == DEMO_MAX - 3 - 1
    assert sorted(scores(results)) == sorted(DEMO_TESTS)
