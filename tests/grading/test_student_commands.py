"""``minidb check`` and ``minidb submit`` on a student's copy of an exercise, in a folder a browser renamed."""

from __future__ import annotations

import shutil
import zipfile

import pytest

from minidb.cli import main
from minidb.grading.exercise import default_root, find_exercise

BLOOM = find_exercise(default_root(), "01")


@pytest.fixture
def renamed(tmp_path, monkeypatch):
    """Exercise 01 as a student's download renamed it, holding the solution and a helper; cwd is its parent."""
    folder = tmp_path / "exercises" / "01_bloom (1)"
    shutil.copytree(BLOOM.folder, folder, ignore=shutil.ignore_patterns("__pycache__", "*_hidden.py"))
    shutil.copy(BLOOM.solution / "bloom.py", folder / "bloom.py")
    (folder / "my_helpers.py").write_text("SEED = 0xBC9F1D34\n")
    monkeypatch.chdir(tmp_path)
    return folder


def test_check_passes_on_the_solution_under_any_folder_name(renamed, capsys):
    assert main(["check", str(renamed)]) == 0
    out = capsys.readouterr().out
    assert "FAILED" not in out and out.rstrip().splitlines()[-1].startswith("total 23 / 23 points")


def test_check_fails_with_what_was_expected(renamed, capsys):
    (renamed / "bloom.py").write_text((BLOOM.solution / "bloom.py").read_text().replace(
        'return "leveldb.BuiltinBloomFilter2"', 'return "mine"'))
    assert main(["check", str(renamed)]) == 1
    out = capsys.readouterr().out
    assert "FAILED  0/1  test_bloom.py::test_name" in out and "total 22 / 23 points" in out
    assert "AssertionError: assert 'mine' == 'leveldb.BuiltinBloomFilter2'" in out


def test_submit_packs_the_module_and_helpers_only(renamed, tmp_path, capsys):
    assert main(["submit", str(renamed), "-o", str(tmp_path / "out.zip")]) == 0
    assert sorted(zipfile.ZipFile(tmp_path / "out.zip").namelist()) == ["bloom.py", "my_helpers.py"]
    assert main(["submit", str(renamed), "-o", str(tmp_path / "out.zip")]) == 2
    assert "already exists" in capsys.readouterr().err


def test_submit_refuses_code_that_does_not_compile(renamed, tmp_path, capsys):
    (renamed / "my_helpers.py").write_text("def broken(:\n")
    assert main(["submit", str(renamed), "-o", str(tmp_path / "out.zip")]) == 2
    assert "my_helpers.py, line 1" in capsys.readouterr().err
    assert not (tmp_path / "out.zip").exists()


def test_submit_without_the_module_says_so(renamed, tmp_path, capsys):
    (renamed / "bloom.py").unlink()
    assert main(["submit", str(renamed)]) == 2
    assert "no bloom.py" in capsys.readouterr().err
