"""The site, built once for the tests that read it (test_site.py, test_pages.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from book_pages import BOOK, build


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The book built at the tiny scale, as ``make book SCALE=tiny`` builds it: its HTML folder."""
    out = tmp_path_factory.mktemp("site")
    result = build(BOOK, out)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return out / "_build" / "html"
