"""Sphinx extension: the book is a site that works with no network, and its chapters rerun when their inputs change.

Four jobs:

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
* **Fresh results.** Sphinx rebuilds only the pages whose source changed, but a chapter's outputs also depend on
  ``MINIDB_SCALE``, on the engines' code and on the published data. A fingerprint of those is registered as a
  configuration value that invalidates the environment, so a change to any of them rereads every chapter, and it
  names the folder of executed notebooks (jupyter-cache) the chapters' outputs come from, so a change to any of
  them reruns every chapter, while a second ``make book`` with nothing changed is quick. ``execute_parallel.py``
  fills that folder with several chapters at once before the build.
"""

from __future__ import annotations

import hashlib
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
    app.connect("build-finished", write_bundle)
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
