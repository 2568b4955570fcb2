"""Every chapter of the book runs, top to bottom, at the tiny scale, as ``make book`` would run it: the site's build
(``conftest.site``) executes each once, and the tests here read what it stored."""

from __future__ import annotations

import json
import re

import jupytext
import pytest

from book_pages import BOOK, chapters, toc_files
from minidb.book import charts


def test_the_toc_lists_every_chapter_file():
    listed = {p.resolve() for p in toc_files()}
    on_disk = {p.resolve() for p in (BOOK / "chapters").glob("*.md")}
    assert on_disk - listed == set(), "chapters missing from book/_toc.yml"
    assert chapters(), "the book has no chapters"


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_chapter_reads_the_scale(path):
    assert "MINIDB_SCALE" in path.read_text(encoding="utf-8"), f"{path.name} must size its work by MINIDB_SCALE"


@pytest.mark.xdist_group("site")  # on the worker that built the site (make test: --dist loadgroup)
@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_chapter_runs_at_tiny_scale(path, executed):
    # The site's build ran it (conftest.executed), top to bottom at the tiny scale with charts rendered offline, as
    # `make book SCALE=tiny` does; a cell that raised fails the build, and leaves the chapter out of its cache.
    assert path.stem in executed, f"the site's build stored no executed {path.name}: it failed or did not run"
    nb = executed[path.stem]
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(cell.get("execution_count") for cell in code), f"{path.name}: not every cell was run"
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    html = [str(o.get("data", {}).get("text/html", "")) for o in outputs]
    specs = [json.loads(found.replace("<\\/", "</")) for text in html
             for found in re.findall(r"var spec = (\{.*\});\n", text)]
    assert specs, f"{path.name} shows no chart"
    # every chart keeps the book's rules: its axes' units are its columns' (no bytes titled MB), bars stack only
    # when they are parts of a whole, nothing side by side or too wide for a phone
    problems = {spec.get("description", "?"): charts.problems(spec) for spec in specs}
    assert {chart: found for chart, found in problems.items() if found} == {}
    tables = [text for text in html if "<table" in text]
    assert not [t for t in tables if re.search(r">\s*NaN\s*<", t)], f"{path.name} prints NaN in a table"
