"""The parallel pre-execution of the book: it finds the notebooks the build would run, runs them, prints their
times and stores them where the build looks for them (so the build does not run them again)."""

from __future__ import annotations

import os

import pytest
from jupyter_cache import get_cache

from book_pages import BOOK, is_notebook, toc_files

PAGE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A page

```{code-cell} ipython3
import os
print("offline charts:", os.environ.get("MINIDB_OFFLINE_CHARTS"))
```
"""


@pytest.fixture
def tool(monkeypatch):
    monkeypatch.syspath_prepend(str(BOOK / "_ext"))
    import execute_parallel

    return execute_parallel


def test_it_runs_the_notebooks_the_table_of_contents_lists(tool):
    assert tool.notebooks(BOOK) == [p for p in toc_files() if is_notebook(p)]
    assert BOOK / "intro.md" not in tool.notebooks(BOOK)  # prose only: nothing to execute


def test_a_page_runs_once_into_the_builds_cache_and_prints_its_times(tool, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MINIDB_SCALE", "tiny")
    monkeypatch.setitem(os.environ, "MINIDB_OFFLINE_CHARTS", "0")  # the tool sets what the build's kernels see
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text("title: t\n", encoding="utf-8")
    (book / "_toc.yml").write_text("format: jb-book\nroot: page\n", encoding="utf-8")
    (book / "page.md").write_text(PAGE, encoding="utf-8")

    assert tool.main([str(book), "--jobs", "1"]) == 0
    first = capsys.readouterr().out
    assert "page.md:" in first and "s CPU" in first and "executed 1 of 1 notebooks (0 cached)" in first

    cache = get_cache(str(tool.offline_site.cache_folder(book / "_build")))
    record = cache.match_cache_notebook(tool.myst_nb_reader_plugin(str(book / "page.md")))
    outputs = cache.get_cache_bundle(record.pk).nb.cells[0].outputs
    assert "offline charts: 1" in outputs[0]["text"]

    assert tool.main([str(book), "--jobs", "1"]) == 0
    assert "page.md: cached" in capsys.readouterr().out


def test_jobs_must_be_positive(tool, capsys):
    with pytest.raises(SystemExit):
        tool.main([str(BOOK), "--jobs", "0"])
    assert "--jobs must be >= 1" in capsys.readouterr().err
