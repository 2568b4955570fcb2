"""The ``minidb`` command starts without loading what its subcommand does not use.

A student runs ``minidb check`` and ``minidb submit`` many times an evening, and every ``pytest`` loads the grading
plugin: none of them needs pandas, NumPy or the engines to parse its arguments. The package's public names, the
scales' published references and the experiments' sweep runner are imported on first use, and the subcommands
that run engines or experiments import them when they run. The checks look at the modules loaded, not at a time.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "numpy", "pytest", "minidb.btree", "minidb.lsm", "minidb.storage", "minidb.experiments.runner")


def loaded_after(code: str) -> list[str]:
    """The modules of ``HEAVY`` loaded after running ``code`` in a new Python."""
    script = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def test_the_commands_parser_loads_no_engine_and_no_dataframe():
    assert loaded_after("from minidb.cli import build_parser\nbuild_parser()") == []


def test_check_and_submit_load_only_the_grader():
    code = ("from minidb.cli import build_parser\nbuild_parser()\n"
            "import minidb.grading.grader, minidb.grading.exercise, minidb.grading.gradebook, "
            "minidb.grading.submissions")
    assert loaded_after(code) == []


def test_importing_the_package_loads_no_engine():
    assert loaded_after("import minidb") == []
    assert "minidb.btree" in loaded_after("from minidb import open_btree")


def test_every_public_name_is_the_object_its_module_defines():
    import minidb

    for name in minidb.__all__:
        where = minidb._EXPORTS[name]
        module = importlib.import_module(f"minidb.{name}" if where == "" else f"minidb{where}")
        assert getattr(minidb, name) is (module if where == "" else getattr(module, name)), name
    assert set(minidb.__all__) <= set(dir(minidb))
    with pytest.raises(AttributeError, match="no attribute 'open_sqlite'"):
        minidb.open_sqlite


def test_the_scales_references_are_read_on_first_use():
    assert loaded_after("from minidb import scales\nscales.current('tiny')") == []
    assert "pandas" in loaded_after("from minidb import scales\nassert scales.SYSBENCH.db_bytes > 0")
