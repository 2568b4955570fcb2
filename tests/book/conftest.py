"""The site, built once for the tests that read it (test_site.py, test_pages.py), and the chapters as its build
executed them (test_chapters.py)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from jupyter_cache import get_cache
from myst_nb.core.read import myst_nb_reader_plugin

from book_pages import BOOK, build, chapters


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The book built at the tiny scale, as ``make book SCALE=tiny`` builds it: its HTML folder."""
    out = tmp_path_factory.mktemp("site")
    result = build(BOOK, out)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return out / "_build" / "html"


@pytest.fixture(scope="session")
def executed(site) -> dict[str, nbformat.NotebookNode]:
    """{chapter stem: the notebook with its outputs} as the site's build executed it at the tiny scale: the build
    keeps each executed notebook in the jupyter-cache that ``execute_notebooks: cache`` names (one folder per scale
    and inputs digest, ``book/_ext/offline_site.py``), so the chapters run once for the site and for their tests. A
    chapter the build did not store (it failed, or its source no longer matches) is missing."""
    folders = list((site.parent / ".jupyter_cache").glob("tiny-*"))
    assert len(folders) == 1, f"one jupyter-cache of the tiny build, found {folders}"
    cache = get_cache(str(folders[0]))
    found = {}
    for path in chapters():
        try:
            record = cache.match_cache_notebook(myst_nb_reader_plugin(str(path)))
        except KeyError:
            continue
        found[path.stem] = cache.get_cache_bundle(record.pk).nb
    return found
