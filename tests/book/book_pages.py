"""Where the book's chapters are (the table of contents names them, jupytext reads them), and how the tests build
the site from them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jupytext
import yaml

BOOK = Path(__file__).resolve().parents[2] / "book"  # the repository's book/ folder
JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"  # the CLI installed beside this Python


def build(source: Path, output: Path) -> subprocess.CompletedProcess:
    """Build the book in ``source`` into ``output`` as ``make book SCALE=tiny`` does (warnings are errors)."""
    env = {**os.environ, "MINIDB_SCALE": "tiny"}
    return subprocess.run([str(JUPYTER_BOOK), "build", str(source), "--path-output", str(output),
                           "-W", "-n", "--keep-going"], env=env, capture_output=True, text=True, timeout=900)


def toc_files() -> list[Path]:
    """Every page the table of contents lists (the root first), as paths of existing files."""
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    paths = []
    for name in names:
        matches = [BOOK / f"{name}{ext}" for ext in (".md", ".ipynb") if (BOOK / f"{name}{ext}").is_file()]
        if not matches:
            raise FileNotFoundError(f"_toc.yml lists {name!r}, but book/{name}.md does not exist")
        paths.append(matches[0])
    return paths


def is_notebook(path: Path) -> bool:
    """True if ``path`` is a notebook (a MyST Markdown file with a kernel, or an .ipynb)."""
    return "kernelspec" in jupytext.read(path).metadata


def chapters() -> list[Path]:
    """The notebooks of the book, in reading order."""
    return [p for p in toc_files() if is_notebook(p)]
