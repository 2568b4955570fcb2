"""The built site works with no network: no page loads anything from another site, and the charts' Vega is there.

The book is built once, at the tiny scale, into a temporary folder, exactly as ``make book`` builds it (warnings
are errors: the ``site`` fixture of conftest.py, shared with test_pages.py). A second, one-page book checks that
math is typeset by the MathJax copied into the site.
"""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from book_pages import BOOK, build, chapters
from minidb.book import charts

pytestmark = pytest.mark.xdist_group("site")  # on the worker that built the site (make test: --dist loadgroup)

CDN_HOSTS = ("cdn.jsdelivr.net", "unpkg.com", "cdnjs.cloudflare.com", "fonts.googleapis.com", "fonts.gstatic.com",
             "mybinder.org")  # hosts of the scripts and fonts a Jupyter Book page would otherwise fetch
LOADING = {  # attributes through which an HTML element makes the browser fetch something
    "script": ("src",), "link": ("href",), "img": ("src", "srcset"), "iframe": ("src",), "source": ("src", "srcset"),
    "video": ("src", "poster"), "audio": ("src",), "embed": ("src",), "object": ("data",), "input": ("src",),
}
_EXTERNAL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
_CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])\s*((?:https?:)?//[^'")\s]+)""", re.IGNORECASE)


class _Loads(HTMLParser):
    """Collects every (tag, attribute, value) that makes the browser fetch something."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in LOADING.get(tag, ()) and value:
                if tag == "link" and dict(attrs).get("rel") in ("canonical", "alternate"):
                    continue  # links to pages, not fetched
                self.loads.append((tag, name, value))


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_no_page_loads_anything_from_another_site(site):
    external = []
    for page in pages(site):
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        external += [f"{page.relative_to(site)}: <{t} {a}={v!r}>" for t, a, v in parser.loads
                     if _EXTERNAL.match(v) or any(_EXTERNAL.match(part) for part in v.split(","))]
    assert external == []


def test_no_stylesheet_loads_anything_from_another_site(site):
    sheets = [*site.rglob("*.css"), *pages(site)]  # inline <style> too
    external = [f"{p.relative_to(site)}: {m}" for p in sheets
                for m in _CSS_URL.findall(p.read_text(encoding="utf-8", errors="replace"))]
    assert external == []


def test_no_page_names_a_cdn(site):
    found = [f"{p.relative_to(site)}: {host}" for p in pages(site)
             for host in CDN_HOSTS if host in p.read_text(encoding="utf-8").lower()]
    assert found == []


def test_chart_pages_load_the_bundled_vega(site):
    bundle = site / "_static" / charts.BUNDLE_FILE
    assert bundle.read_text(encoding="utf-8").startswith(charts.bundle_header())
    for chapter in chapters():
        page = (site / chapter.relative_to(BOOK)).with_suffix(".html")
        html = page.read_text(encoding="utf-8")
        assert html.count('class="minidb-chart"') >= 1, f"{page.name} has no chart"
        assert re.search(rf'<script src="(\.\./)*_static/{re.escape(charts.BUNDLE_FILE)}', html), page.name


def test_an_explorable_figure_answers_its_slider_in_the_built_site(site):
    # the reader's way: chapter 7's page as built, its Vega from _static, the network off, the slider moved
    from browser import CHROMIUM, drawn_in_page
    from minidb.experiments.f7_disk_full import FREE_SPACE_PCTS

    if CHROMIUM is None:
        pytest.skip("needs Chromium (Debian package chromium), which .ci/run installs")
    record = drawn_in_page(site / "chapters" / "07_disk_full.html", {"free space (%)": max(FREE_SPACE_PCTS)})
    assert "error" not in record, record
    assert {d["free_space_pct"] for d in record["before"]} == {min(FREE_SPACE_PCTS)}
    assert {d["free_space_pct"] for d in record["after"]} == {max(FREE_SPACE_PCTS)}


def test_a_step_slider_answers_in_the_built_site(site):
    # chapter 6's IOPS slider steps through the post's volumes, which are not evenly spaced
    from browser import CHROMIUM, drawn_in_page
    from minidb.experiments.f4_cloud_iops import VOLUMES

    if CHROMIUM is None:
        pytest.skip("needs Chromium (Debian package chromium), which .ci/run installs")
    iops = sorted({i for _, i in VOLUMES})
    record = drawn_in_page(site / "chapters" / "06_cloud_iops.html", {"IOPS": len(iops)})
    assert "error" not in record, record
    assert {(d["volume_type"], d["iops"]) for d in record["before"]} == {("io1", min(iops))}
    assert {(d["volume_type"], d["iops"]) for d in record["after"]} == {("io1", max(iops))}


def test_every_chapter_can_be_downloaded_as_an_executed_notebook(site):
    import nbformat

    for chapter in chapters():
        name = chapter.relative_to(BOOK).with_suffix(".ipynb")
        page = (site / chapter.relative_to(BOOK)).with_suffix(".html").read_text(encoding="utf-8")
        assert f"_sources/{name.as_posix()}" in page, f"{name}: no download link"
        notebook = nbformat.read(site / "_sources" / name, as_version=4)
        assert any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), f"{name}: not run"


def test_math_is_typeset_by_the_bundled_mathjax(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    shutil.copy(BOOK / "_config.yml", book)
    shutil.copytree(BOOK / "_ext", book / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(BOOK / "_static", book / "_static")
    shutil.copytree(BOOK / "_templates", book / "_templates")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\n", encoding="utf-8")
    (book / "intro.md").write_text("# Reads\n\nA miss costs $k (1 - C/D)$ reads.\n", encoding="utf-8")
    result = build(book, tmp_path / "out")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    site = tmp_path / "out" / "_build" / "html"
    page = (site / "intro.html").read_text(encoding="utf-8")
    assert re.search(r'<script [^>]*src="_static/mathjax/tex-chtml\.js', page)
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert (site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()  # the fonts it loads


def test_the_chapters_rerun_when_the_scale_changes(monkeypatch):
    monkeypatch.syspath_prepend(str(BOOK / "_ext"))
    import offline_site

    monkeypatch.setenv("MINIDB_SCALE", "tiny")
    tiny = offline_site.inputs_fingerprint()
    monkeypatch.setenv("MINIDB_SCALE", "large")
    large = offline_site.inputs_fingerprint()
    assert tiny.startswith("scale=tiny inputs=") and large.startswith("scale=large inputs=")
    assert tiny != large
