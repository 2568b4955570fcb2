"""The chapters' prose types no figure of ours: a number said about our engines comes from the run (``prose.say``).

A sentence of a chapter's Markdown that speaks of our engines ("our", "ours", "reproduced") must hold no number,
except those that name a configuration rather than a result: a chapter, a page size, a memory or volume setting,
an IOPS figure bought. Code, inline code and math are not prose and are skipped.
"""

from __future__ import annotations

import re

import jupytext
import pytest

from book_pages import chapters

OURS = re.compile(r"\b(our|ours|reproduced)\b", re.IGNORECASE)
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?=x\b|[^\w]|$)")  # 21, 5,000, 0.25, 1.5x
# A number followed (or preceded) by these words sets up a run, it does not report one.
CONFIGURATION = re.compile(
    r"(chapters?\s+\d+|F\d+|seed\s+\d+"
    r"|\d[\d,.]*\s*-?(KiB|GB|TB|IOPS|MB/s|rows|warehouses|nodes|clients|threads|secondary|bits)(?!\w)"
    r"|\b\d{4}\b(?=\s*(\)|,|$))|\b(one|two|three)\b"
    # a tolerance (within 2x, 1.25 times from), a product's version (InnoDB-5.7), the post's own factor (about 2x)
    r"|within\s+[\d.]+x|[\d.]+\s+times\s+from|\b[A-Za-z]+-\d+(\.\d+)?|\bover\s+\d+:|\babout\s+\d+x)",
    re.IGNORECASE)
SKIP = re.compile(r"`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|\{[a-z-]+\}`[^`]*`", re.DOTALL)


def prose_sentences(path):
    """The sentences of the Markdown cells of a chapter, with code, math and directive lines removed."""
    nb = jupytext.read(path)
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"```.*?```", " ", cell.source, flags=re.DOTALL)
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith((":", "#")))
        text = SKIP.sub(" ", text)
        yield from (s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip())


def typed_figures_of_ours(sentence: str) -> list[str]:
    """Numbers in ``sentence`` that report a result of our engines (empty if it does not speak of ours)."""
    if not OURS.search(sentence):
        return []
    return NUMBER.findall(CONFIGURATION.sub(" ", sentence))


def test_the_guard_finds_a_typed_figure_and_lets_configurations_pass():
    assert typed_figures_of_ours("Our LSM writes 21 KB per transaction.") == ["21"]
    assert typed_figures_of_ours("Ours keeps 1.5x of it, the post's 0.25.") == ["1.5", "0.25"]
    assert typed_figures_of_ours("Our B+tree with 16 KiB pages on 5,000 IOPS (chapter 4).") == []
    assert typed_figures_of_ours("InnoDB writes 19.70 KB per transaction.") == []  # a published figure
    assert typed_figures_of_ours("Ours is within 2x of InnoDB-5.7, or more than 1.25 times from it.") == []


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_no_figure_of_ours_is_typed_in_prose(path):
    typed = [(s, typed_figures_of_ours(s)) for s in prose_sentences(path)]
    assert [t for t in typed if t[1]] == []
