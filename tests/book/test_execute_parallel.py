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


def test_the_times_of_the_pages_it_ran_go_into_the_benchmark_history(tool, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MINIDB_SCALE", "tiny")
    book = _book(tmp_path, {"first": _page("1"), "second": _page("sum(range(10**6))")})
    results = tmp_path / "results"
    assert tool.main([str(book), "--jobs", "1", "--record", str(results)]) == 0
    (recorded,) = tool.history.load(results)
    entry = recorded["benchmarks"]["book"]
    assert entry["scale"] == "tiny" and entry["jobs"] == 1 and entry["failed"] == []
    assert set(entry["chapters"]) == {"first.md", "second.md"}
    for chapter in entry["chapters"].values():
        assert chapter["wall_seconds"] > 0 and chapter["cpu_seconds"] >= 0
    assert entry["cpu_seconds"] == pytest.approx(sum(c["cpu_seconds"] for c in entry["chapters"].values()), abs=0.2)
    assert "times recorded in" in capsys.readouterr().out
    assert tool.main([str(book), "--jobs", "1", "--record", str(results)]) == 0  # all cached: nothing ran
    assert len(tool.history.load(results)) == 1


def test_without_record_no_history_is_written(tool, tmp_path, monkeypatch):
    monkeypatch.setenv("MINIDB_SCALE", "tiny")
    before = sorted(tool.history.RESULTS.iterdir())
    assert tool.main([str(_book(tmp_path, {"only": _page("1")})), "--jobs", "1"]) == 0
    assert sorted(tool.history.RESULTS.iterdir()) == before


def test_jobs_must_be_positive(tool, capsys):
    with pytest.raises(SystemExit):
        tool.main([str(BOOK), "--jobs", "0"])
    assert "--jobs must be >= 1" in capsys.readouterr().err


def _book(tmp_path, pages: dict[str, str]):
    """A book in ``tmp_path`` whose table of contents lists ``pages`` (stem -> Markdown) in order."""
    book = tmp_path / "book"
    book.mkdir()
    stems = list(pages)
    (book / "_config.yml").write_text("title: t\n", encoding="utf-8")
    (book / "_toc.yml").write_text(f"format: jb-book\nroot: {stems[0]}\nchapters:\n"
                                   + "".join(f"  - file: {s}\n" for s in stems[1:]), encoding="utf-8")
    for stem, text in pages.items():
        (book / f"{stem}.md").write_text(text, encoding="utf-8")
    return book


def _page(code: str, after: list[str] | None = None) -> str:
    """A notebook page running ``code``, executed after the pages ``after`` names."""
    header = PAGE.split("---\n\n")[0]
    if after is not None:
        header += f"execute_after: {after}\n"
    return f"{header}---\n\n# A page\n\n```{{code-cell}} ipython3\n{code}\n```\n"


def test_a_page_starts_after_the_pages_its_front_matter_names(tool, tmp_path, capsys, monkeypatch):
    """With two kernels at once, the second page would start at once and miss the first one's file."""
    monkeypatch.setenv("MINIDB_SCALE", "tiny")
    marker = tmp_path / "first-done"
    book = _book(tmp_path, {
        "first": _page(f"import pathlib, time\ntime.sleep(2)\npathlib.Path({str(marker)!r}).write_text('x')"),
        "second": _page(f"import pathlib\nassert pathlib.Path({str(marker)!r}).is_file()", after=["first"]),
    })
    assert tool.main([str(book), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert out.index("first.md:") < out.index("second.md:")
    assert "executed 2 of 2 notebooks" in out


def test_awaited_pages_run_first_then_reading_order(tool, tmp_path):
    book = _book(tmp_path, {"a": _page("1"), "b": _page("2", after=["d"]), "c": _page("3"), "d": _page("4")})
    pages = tool.notebooks(book)
    after = tool.prerequisites(pages)
    assert after[book / "b.md"] == {book / "d.md"} and after[book / "a.md"] == set()
    assert [p.stem for p in tool.run_order(pages, after)] == ["d", "a", "b", "c"]


@pytest.mark.parametrize("pages, message", [
    ({"a": _page("1", after=["nope"])}, "a.md: execute_after names 'nope', which is not another notebook"),
    ({"a": _page("1", after=["a"])}, "a.md: execute_after names 'a'"),
    ({"a": _page("1", after=["b"]), "b": _page("2", after=["a"])}, "execute_after forms a cycle among a.md, b.md"),
    ({"a": _page("1").replace("---\n\n#", "execute_after: b\n---\n\n#")}, "a.md: execute_after must be a list"),
])
def test_a_wrong_execute_after_is_an_error_naming_the_page(tool, tmp_path, pages, message):
    book = _book(tmp_path, pages)
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        tool.main([str(book), "--jobs", "1"])
