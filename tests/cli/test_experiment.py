"""``minidb experiment``: finding modules discovered, named short or in full, results written to CSV."""

import sys

import pandas as pd
import pytest

from minidb import experiments
from minidb.commands import experiment as command

from .conftest import assert_usage_error

FAKE = '''
import pandas as pd

def run(scale=None):
    """A stand-in finding: one row per engine, recording the scale it was asked for."""
    from minidb import scales
    return pd.DataFrame({"engine": ["btree", "lsm"], "scale": scales.current(scale), "value": [1.5, 2.5]})
'''


@pytest.fixture
def fake_experiment(tmp_path, monkeypatch):
    """An experiment module f97_fake_finding installed in minidb.experiments for one test."""
    (tmp_path / "f97_fake_finding.py").write_text(FAKE)
    (tmp_path / "helper_not_an_experiment.py").write_text("")
    monkeypatch.setattr(experiments, "__path__", [*experiments.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "minidb.experiments.f97_fake_finding", raising=False)
    yield "f97_fake_finding"
    sys.modules.pop("minidb.experiments.f97_fake_finding", None)


def test_discovery_keeps_only_finding_modules(fake_experiment):
    found = command.available()
    assert found["f97"] == fake_experiment
    assert "helper_not_an_experiment" not in found.values() and "runner" not in found.values()


@pytest.mark.parametrize("name", ["f97", "F97", "f97_fake_finding"])
def test_short_or_full_name_writes_the_csv(cli, fake_experiment, tmp_path, name):
    out = tmp_path / "results" / "f97.csv"
    code, stdout, err = cli("experiment", name, "--scale", "tiny", "--out", out)
    assert code == 0, err
    frame = pd.read_csv(out)
    assert list(frame.columns) == ["engine", "scale", "value"]
    assert frame["scale"].tolist() == ["tiny", "tiny"]
    assert "f97_fake_finding at scale tiny: 2 rows, 3 columns" in stdout


def test_default_out_is_the_module_name_in_the_working_directory(cli, fake_experiment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = cli("experiment", "f97", "--scale", "small")
    assert code == 0
    assert pd.read_csv(tmp_path / "f97_fake_finding.csv")["scale"].tolist() == ["small", "small"]


def test_scale_defaults_to_the_environment(cli, fake_experiment, tmp_path, monkeypatch):
    monkeypatch.setenv("MINIDB_SCALE", "tiny")
    code, _, _ = cli("experiment", "f97", "--out", tmp_path / "x.csv")
    assert code == 0
    assert pd.read_csv(tmp_path / "x.csv")["scale"].iloc[0] == "tiny"


def test_unknown_experiment_lists_the_known_ones(cli, fake_experiment):
    assert_usage_error(cli("experiment", "f98"), "unknown experiment 'f98'", "f97 (f97_fake_finding)")


@pytest.mark.parametrize("argv, fragment", [
    (["experiment"], "required: NAME"),
    (["experiment", "f97", "--scale", "huge"], "invalid choice: 'huge'"),
])
def test_bad_arguments_exit_2_with_one_line(cli, fake_experiment, argv, fragment):
    assert_usage_error(cli(*argv), fragment)


def test_help(cli):
    code, out, _ = cli("experiment", "--help")
    assert code == 0 and "--scale" in out and "FILE.csv" in out


def test_executor_flag_sets_where_the_sweeps_run(cli, fake_experiment, tmp_path, monkeypatch):
    from minidb.experiments import executors

    monkeypatch.delenv(executors.ENV, raising=False)  # restored after the test: the flag sets it for the run
    code, _, err = cli("experiment", "f97", "--scale", "tiny", "--executor", "serial", "--out", tmp_path / "f.csv")
    assert code == 0, err
    assert executors.spec() == "serial"


def test_bad_executor_is_a_usage_error_before_any_work(cli, fake_experiment, tmp_path):
    out = tmp_path / "f.csv"
    assert_usage_error(cli("experiment", "f97", "--executor", "threads", "--out", out),
                       "--executor='threads' is not an executor", "tcp://")
    assert not out.exists()


def test_a_finding_of_several_tables_writes_them_stacked_with_their_part(cli, tmp_path):
    # F5 returns a dict of tables (sizes, fill, space, column families): one CSV, each row under its part's name
    out = tmp_path / "f5.csv"
    code, stdout, err = cli("experiment", "f5", "--scale", "tiny", "--executor", "serial", "--out", out)
    assert code == 0, err
    frame = pd.read_csv(out)
    assert frame.columns[0] == "part" and set(frame.part) == {"sizes", "fill", "space", "column_families"}
    assert f"f5_space at scale tiny: {len(frame)} rows" in stdout


def test_results_that_are_no_table_are_refused():
    with pytest.raises(TypeError, match="a DataFrame or a dict of them"):
        command.results_table([1, 2])
    with pytest.raises(TypeError, match="a DataFrame or a dict of them"):
        command.results_table({})
