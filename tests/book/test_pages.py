"""Every page of the built site, as a reader sees it on a laptop (1280 pixels wide) and on a phone (390): charts and
tables within the text column, nothing logged as an error, each chart's reproduced marks in view, no serious
accessibility violation; the search shows snippets and the download links download.

One headless Chromium, the network off (``devtools.py``), opens each page at each width once (the ``seen``
fixture): ``page_checks.js`` measures what the window shows, and axe-core checks the page. axe-core is the npm
package's ``axe.min.js`` (4.14.1, MPL-2.0, its licence in its header), kept in ``vendor/`` so that the check runs
offline; ``npm pack axe-core`` fetches a newer one. The tests below assert on that record.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from book_pages import BOOK, toc_files
from devtools import CHROMIUM, Browser

pytestmark = [pytest.mark.xdist_group("site"),  # on the worker that built the site (make test: --dist loadgroup)
              pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package chromium), which "
                                                          ".ci/run installs")]

WIDTHS = (1280, 390)  # a laptop's window, a phone's (CSS pixels)
HERE = Path(__file__).parent
CHECKS = HERE / "page_checks.js"
AXE = HERE / "vendor" / "axe.min.js"
AXE_FAILS = ("serious", "critical")  # the impacts of axe-core's violations that fail a page
AXE_RUN = ("axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({id: v.id, "
           "impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.html.slice(0, 120))})))")


def site_pages(site: Path) -> list[Path]:
    """The pages a reader opens: every page of the table of contents, the search page and the index."""
    pages = [(site / path.relative_to(BOOK)).with_suffix(".html") for path in toc_files()]
    return pages + [site / "search.html", site / "genindex.html"]


@pytest.fixture(scope="module")
def browser():
    with Browser() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def seen(site, browser) -> dict:
    """{(page, width): what page_checks.js measured, plus the console's errors and axe-core's violations}."""
    checks = CHECKS.read_text(encoding="utf-8")
    record = {}
    for page in site_pages(site):
        for width in WIDTHS:
            tab = browser.open(page, width=width)
            measured = tab.evaluate(checks)
            tab.add_script(AXE)
            measured["axe"] = tab.evaluate(AXE_RUN)
            measured["errors"] = tab.console_errors
            tab.close()
            record[page.relative_to(site).as_posix(), width] = measured
    return record


def failures(seen: dict, key: str) -> list[str]:
    return [f"{page} at {width} px: {item}" for (page, width), measured in seen.items() for item in measured[key]]


def test_every_page_and_chart_was_seen(seen, site):
    assert {page for page, _ in seen} == {p.relative_to(site).as_posix() for p in site_pages(site)}
    assert sum(measured["charts"] for (_, width), measured in seen.items() if width == WIDTHS[0]) >= 40
    assert failures(seen, "failed") == [], "every chart is drawn"
    assert all(measured["drawn"] == measured["charts"] for measured in seen.values())


def test_no_chart_table_or_formula_is_wider_than_the_text_column(seen):
    assert failures(seen, "wide") == []


def test_no_text_of_a_chart_is_cut_off(seen):
    assert failures(seen, "clipped") == []


def test_every_charts_reproduced_marks_are_in_view_once_scrolled_to(seen):
    assert failures(seen, "hidden") == []


def test_no_page_logs_an_error(seen):
    assert failures(seen, "errors") == []  # the theme's "Got invalid theme mode", a chart's error, a failed load


def test_axe_core_finds_no_serious_or_critical_violation(seen):
    found = [f"{page} at {width} px: {v['impact']} {v['id']} ({len(v['nodes'])}): {v['nodes'][:2]}"
             for (page, width), measured in seen.items() for v in measured["axe"] if v["impact"] in AXE_FAILS]
    assert found == []


def test_the_search_shows_a_snippet_under_each_result(site, browser):
    tab = browser.open(site.joinpath("search.html").as_uri() + "?q=compaction", width=WIDTHS[0])
    results = tab.evaluate("""new Promise(function (resolve) {
      var tries = 0;
      (function wait() {
        var items = document.querySelectorAll("#search-results li");
        var done = document.querySelector("#search-results > p.search-summary, #search-results > p");
        if ((items.length && done && done.textContent.indexOf("found") >= 0) || tries++ > 200) {
          resolve(Array.prototype.map.call(items, function (li) {
            var p = li.querySelector("p.context");
            return p ? p.textContent : null;
          }));
        } else { setTimeout(wait, 50); }
      })();
    })""")
    errors = tab.console_errors
    tab.close()
    assert len(results) >= 3, "the search finds the chapters on compaction"
    assert all(results), f"a result without its snippet: {results}"
    assert any("compaction" in snippet.lower() for snippet in results), results
    assert errors == []


def test_the_download_links_download_the_chapter(site, browser, tmp_path):
    tab = browser.open(site / "chapters" / "03_insert_benchmark.html", width=WIDTHS[0])
    browser.send("Browser.setDownloadBehavior", behavior="allowAndName", downloadPath=str(tmp_path),
                 eventsEnabled=True, browserContextId=tab.context)
    for selector, suffix in (("a.btn-download-notebook-button", ".ipynb"), ("a.btn-download-source-button", ".md")):
        tab.evaluate(f"document.querySelector({selector!r}).click(), true")  # not a new tab showing the text
        started = browser.wait_event("Browser.downloadWillBegin")
        assert started["params"]["suggestedFilename"] == f"03_insert_benchmark{suffix}"
        done = browser.wait_event("Browser.downloadProgress", lambda p: p["state"] != "inProgress")["params"]
        assert done["state"] == "completed"
        source = site / "_sources" / "chapters" / f"03_insert_benchmark{suffix}"
        assert Path(done["filePath"]).read_bytes() == source.read_bytes()
    tab.close()
