"""Sphinx extension: the book is a site that works with no network, and its chapters rerun when their inputs change.

Five jobs:

* **Charts.** Each chart a chapter displays is a ``<div>`` and a script calling ``window.vegaEmbed`` (see
  ``minidb.book.charts``). This extension tells the chapters' kernels to render charts that way
  (``MINIDB_OFFLINE_CHARTS=1``), adds ``_static/minidb-vega.js`` to every page before the page's own scripts run,
  and writes that file when the build finishes. The file is regenerated only when its header line (the library
  versions) changes, so a second build does not redo it.
* **Nothing from outside.** Sphinx and Jupyter Book add scripts that load from CDNs: thebe's launcher
  (sphinx-thebe, installed by Jupyter Book even with launch buttons off), and MathJax unless ``mathjax_path``
  is local. Before each page is written, every script or stylesheet that names an ``http(s)://`` address is
  dropped. The book's MathJax comes from the ``sphinx-mathjax-offline`` package, which copies MathJax 3 into
  ``_static/mathjax``; should MathJax ever come from a CDN again, a page with math gets a warning, which ``-W``
  turns into a build error.
* **Notebooks to download.** The download button of sphinx-book-theme offers a chapter as ``.ipynb`` only when a
  launch service (Binder, Colab) is configured, which an offline book has none of. Each notebook page's executed
  notebook is copied into ``_sources`` and offered by the button, as the theme would with a launch service.
* **Search snippets.** Sphinx's search fetches each result's page for the snippet it shows under it, which a page
  opened from a file may not do. When the build finishes, the text of every page is written into
  ``_static/minidb-search-pages.js``, and the search page loads it with ``minidb-search.js`` (copied from beside
  this file: Jupyter Book would add a script of ``book/_static`` to every page), which answers those fetches from
  it.
* **Fresh results.** Sphinx rebuilds only the pages whose source changed, but a chapter's outputs also depend on
  ``MINIDB_SCALE``, on the engines' code and on the published data. A fingerprint of those is registered as a
  configuration value that invalidates the environment, so a change to any of them rereads every chapter, and it
  names the folder of executed notebooks (jupyter-cache) the chapters' outputs come from, so a change to any of
  them reruns every chapter, while a second ``make book`` with nothing changed is quick. ``execute_parallel.py``
  fills that folder with several chapters at once before the build.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from sphinx.util import logging

import minidb
from minidb import data
from minidb.book import charts

logger = logging.getLogger(__name__)
_EXTERNAL = re.compile(r"^(https?:)?//|https?://")  # an address on another site, or an inline script naming one
_THEBE = ("sphinx-thebe.js", "sphinx-thebe.css")  # sphinx-thebe's own files: only useful to load thebe online


KERNEL_ENV = {charts.OFFLINE_ENV: "1"}  # what the chapters' kernels need in their environment: offline charts


def setup(app):
    """Register the inputs' fingerprint, the bundle on every page, the asset filter and the bundle writer."""
    # The notebooks run in kernels started by this process, which inherit its environment.
    os.environ.update(KERNEL_ENV)
    app.add_config_value("minidb_inputs", inputs_fingerprint(), "env")  # a change rereads (reruns) every page
    app.connect("config-inited", use_inputs_cache)
    app.add_js_file(charts.BUNDLE_FILE)  # a plain <script> in <head>: loaded before the pages' chart scripts
    app.connect("html-page-context", drop_external_assets, priority=900)  # after mathjax and thebe add theirs
    app.connect("html-page-context", offer_notebook, priority=400)  # before the theme's buttons (501) read it
    app.connect("html-page-context", search_snippets)
    app.connect("build-finished", write_bundle)
    app.connect("build-finished", write_search_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


def inputs_fingerprint() -> str:
    """The scale and a digest of the engines' sources and the published data: what the chapters' outputs depend on."""
    digest = hashlib.sha256()
    package = Path(minidb.__file__).resolve().parent
    root = package.parent  # the repository: minidb/ and data/ are in it
    sources = [p for p in package.rglob("*") if p.suffix in (".py", ".pyx", ".pxd")]
    for path in sorted(sources + list(data.DATA_DIR.rglob("*.csv"))):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return f"scale={os.environ.get('MINIDB_SCALE', 'small')} inputs={digest.hexdigest()[:16]}"


def cache_folder(build_dir: Path) -> Path:
    """The jupyter-cache of executed notebooks for the current inputs, under the build folder ``build_dir``: one
    folder per scale and inputs digest, so outputs computed from other engines, data or scale are never reused."""
    scale, digest = (part.split("=", 1)[1] for part in inputs_fingerprint().split())
    return Path(build_dir).resolve() / ".jupyter_cache" / f"{scale}-{digest}"


def use_inputs_cache(app, config) -> None:
    """Point myst-nb's execution cache at ``cache_folder`` (where ``execute_parallel.py`` stores the notebooks it
    ran), unless the configuration names a cache of its own."""
    if not config.nb_execution_cache_path:
        config.nb_execution_cache_path = str(cache_folder(Path(app.outdir).parent))


def drop_external_assets(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Remove the scripts and stylesheets of ``pagename`` that would load from another site; warn if needed."""
    for key in ("script_files", "css_files"):
        assets = context.get(key) or []
        kept = [a for a in assets if not _external(a)]
        dropped = [a for a in assets if _external(a)]
        context[key] = kept
        for asset in dropped:
            if "mathjax" in _address(asset).lower() and _has_math(app, pagename):
                logger.warning(f"{pagename}: this page has math, which needs MathJax from {_address(asset)}; "
                               "the book is built to work offline: load sphinx-mathjax-offline (book/_config.yml) "
                               "(and a '$' in prose starts math: write '\\$')")


def offer_notebook(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Copy ``pagename``'s executed notebook into ``_sources`` and have the download button offer it."""
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if app.builder.format != "html" or not executed.is_file():
        return  # not a notebook page
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


SEARCH_PAGES = "minidb-search-pages.js"  # the pages' main content, for the search's snippets
SEARCH_SHIM = "minidb-search.js"  # the search page's fetches of pages, answered from SEARCH_PAGES (beside this file)
_ARTICLE = re.compile(r'<article class="bd-article"[^>]*>(.*)</article>', re.S)  # a page's text, without the theme's
# what the search never reads: scripts, styles, drawings, and the "#" links beside headings
_UNREAD = re.compile(r'<(script|style|svg)\b.*?</\1>|<a class="headerlink"[^>]*>.*?</a>', re.S)
_TAG = re.compile(r"<(\w+)\b([^>]*)>")  # a start tag, whose id alone matters here (an anchor's target)
_ID = re.compile(r'\sid="[^"]*"')


def search_snippets(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Have the search page load the pages' text and the script that answers its fetches with it."""
    if pagename == "search":
        app.add_js_file(SEARCH_PAGES)  # for this page only (Sphinx resets the list after each page)
        app.add_js_file(SEARCH_SHIM)


def write_search_pages(app, exception) -> None:
    """Write ``_static/SEARCH_PAGES``: each page's article (what the search's snippets are cut from) by its path,
    without scripts, styles, drawings, attributes but ids, and runs of white space; and copy ``SEARCH_SHIM``."""
    if exception is not None or app.builder.format != "html":
        return
    shutil.copy2(Path(__file__).with_name(SEARCH_SHIM), Path(app.outdir) / "_static" / SEARCH_SHIM)
    pages = {}
    for docname in sorted(app.env.found_docs):
        path = app.builder.get_target_uri(docname)
        page = Path(app.outdir) / path
        if page.is_file():
            found = _ARTICLE.search(page.read_text(encoding="utf-8"))
            if found:
                text = _TAG.sub(_id_only, _UNREAD.sub("", found.group(1)))
                pages[path] = f'<main role="main">{" ".join(text.split())}</main>'
    target = Path(app.outdir) / "_static" / SEARCH_PAGES
    # '</' would end the <script> element early were the file ever inlined; in a JS string it is the same text
    payload = json.dumps(pages, ensure_ascii=False).replace("</", "<\\/")
    target.write_text(f"window.MINIDB_PAGES = {payload};\n", encoding="utf-8")


def _id_only(tag: re.Match) -> str:
    """A start tag without its attributes but its id."""
    found = _ID.search(tag[2])
    return f"<{tag[1]}{found[0] if found else ''}>"


def _address(asset) -> str:
    return getattr(asset, "filename", None) or str(asset)


def _external(asset) -> bool:
    address = _address(asset)
    body = getattr(asset, "attributes", {}).get("body", "") or ""
    return bool(_EXTERNAL.search(address) or _EXTERNAL.search(body)) or address.split("?")[0].endswith(_THEBE)


def _has_math(app, pagename: str) -> bool:
    return app.env.get_domain("math").has_equations(pagename)


def write_bundle(app, exception) -> None:
    """Write ``_static/minidb-vega.js`` into the HTML output unless it is already there and current."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / charts.BUNDLE_FILE
    header = charts.bundle_header()
    if target.is_file():
        with target.open(encoding="utf-8") as f:
            if f.readline() == header:
                return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(charts.vega_bundle(), encoding="utf-8")
