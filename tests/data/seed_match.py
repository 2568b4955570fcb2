"""Checking a published CSV against the seed text it was typed in from.

A seed is plain text copied from a blog post, so its tables come with odd spacing (non-breaking spaces, ``|``
borders, labels such as ``innodb-5.6.26, binlog``). Both the seed and the expected text are therefore compared as
**token sequences**: runs of letters and numbers, lower-cased, punctuation and spacing ignored. Numbers are compared
as the text printed, so a CSV must keep the seed's digits (``1.00`` stays ``1.00``).

Two ways to tie a CSV to its seed:

* ``Table``: the CSV transcribes a table. Each ``View`` renders a row (or a group of rows spread across one line, see
  ``Pivot``) the way the seed prints it; that text must be a line of the seed, in the right section and region.
* ``Quoted``: the CSV collects numbers from sentences. Each row carries a ``quote`` column (fragments joined by
  `` … ``); every fragment must be on one line of the seed, and every other cell must appear in the quote.

``problems(spec, frame, seed_lines)`` returns a list of messages, empty when every row is found.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?")  # a word or a number
_PATTERN_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?|\*")  # the same, plus '*' for "any one token"
WILDCARD = "*"
FRAGMENT_SEPARATOR = " … "  # joins the fragments of a quote taken from different places of the seed

# A number with an optional magnitude suffix, as prose writes it: 10k, 2b, 500m, 1.6T (terabytes, in GB).
_QUANTITY = re.compile(r"(\d+(?:\.\d+)?)(?:\s?(k|m|b|tb|t)(?![a-z]))?", re.IGNORECASE)
_SCALE = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e3, "tb": 1e3}

# Words a quote may use for a normalised CSV value.
SYNONYMS = {
    "none": ("uncompressed", "without compression", "no compression"),
    "myrocks": ("rocksdb",),
}


def tokens(text: str) -> list[str]:
    """The words and numbers of ``text``, lower-cased."""
    return [t.lower() for t in _TOKEN.findall(text)]


def pattern(text: str) -> list[str]:
    """Like ``tokens``, but a ``*`` stands for any one token."""
    return [t.lower() for t in _PATTERN_TOKEN.findall(text)]


def occurs(pat: list[str], line: list[str], whole: bool) -> bool:
    """True if ``pat`` equals ``line`` (``whole``) or a contiguous run of it; ``*`` matches any token."""
    n = len(pat)
    if n == 0 or n > len(line) or (whole and n != len(line)):
        return False
    for start in range(len(line) - n + 1 if not whole else 1):
        if all(p == WILDCARD or p == t for p, t in zip(pat, line[start:start + n])):
            return True
    return False


class SeedText:
    """A seed file split into lines, each also as tokens, with a lookup of the lines containing a token."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()  # the raw lines, for messages
        self.tokens = [tokens(line) for line in self.lines]  # the lines as token lists
        self._by_token: dict[str, list[int]] = {}  # token -> indices of the lines holding it
        for i, toks in enumerate(self.tokens):
            for t in set(toks):
                self._by_token.setdefault(t, []).append(i)

    def find(self, pat: list[str], whole: bool, lines: range | None = None) -> list[int]:
        """Indices of the lines (within ``lines``, default all) where ``pat`` occurs."""
        # Only lines holding the pattern's rarest token can match: look those up instead of scanning every line.
        known = [p for p in pat if p != WILDCARD]
        if known:
            candidates = min((self._by_token.get(p, []) for p in known), key=len)
        else:
            candidates = range(len(self.tokens))
        return [i for i in candidates if (lines is None or i in lines) and occurs(pat, self.tokens[i], whole)]

    def find_text(self, text: str, whole: bool = False, lines: range | None = None) -> list[int]:
        """Indices of the lines where the tokens of ``text`` occur."""
        return self.find(tokens(text), whole, lines)

    def region(self, start: str, end: str) -> range:
        """The lines after the first line containing ``start`` up to the next line containing ``end``."""
        first = self.find_text(start)
        if not first:
            raise LookupError(f"no line contains the region start {start!r}")
        last = [i for i in self.find_text(end) if i > first[0]]
        if not last:
            raise LookupError(f"no line after {start!r} contains the region end {end!r}")
        return range(first[0] + 1, last[0])


class Cells(dict):
    """A row's cells (column -> text) that remembers which columns a render function read."""

    def __init__(self, data: dict[str, str], seen: set[str]) -> None:
        super().__init__(data)
        self._seen = seen  # shared set receiving the names of the columns read

    def __getitem__(self, key: str) -> str:
        self._seen.add(key)
        return super().__getitem__(key)


@dataclass(frozen=True)
class Pivot:
    """A seed table that prints several CSV rows on one line: one value per column of the seed's table."""

    column: str  # the CSV column whose values are the seed table's columns (e.g. clients)
    order: tuple[str, ...]  # those values in the order the seed prints them
    values: str  # the CSV column holding the numbers (e.g. inserts_per_sec)
    by: tuple[str, ...]  # the CSV columns identifying one seed line (e.g. engine, binlog)


@dataclass(frozen=True)
class View:
    """How the seed prints rows of a CSV: ``render(cells)`` gives the expected text of a row's seed line.

    With a ``pivot`` the render gets one group, whose ``pivot.values`` cell holds the group's numbers joined by
    spaces in ``pivot.order``. ``header`` is a line that must exist (``{order}`` is replaced by the pivot order);
    ``sections`` maps a column to ``{value: heading}``: the closest of those headings above the row's line must be
    the one for the row's value (``None``: no heading above). ``region`` limits the search to the lines between a
    start text and an end text.
    """

    render: Callable[[Cells], str]
    whole_line: bool = True  # the render is the whole line, not a part of it
    pivot: Pivot | None = None
    header: str | None = None
    sections: dict[str, dict[str, str | None]] = field(default_factory=dict)
    region: tuple[str, str] | None = None


@dataclass(frozen=True)
class Table:
    """A CSV transcribed from tables of the seed: every row must be found by every view."""

    views: tuple[View, ...]
    rows: int  # rows the CSV must have (a missing row is a typo too)


@dataclass(frozen=True)
class Quoted:
    """A CSV of numbers taken from sentences: each row quotes its sentence in ``quote``."""

    rows: int  # rows the CSV must have
    quote: str = "quote"  # the column holding the quote
    exempt: tuple[str, ...] = ()  # descriptive columns not taken from the quote


def problems(spec: Table | Quoted, frame, seed: SeedText) -> list[str]:
    """Every way ``frame`` (a DataFrame of strings) disagrees with the seed; empty when all rows are found."""
    found = [] if len(frame) == spec.rows else [f"expected {spec.rows} rows, found {len(frame)}"]
    if isinstance(spec, Quoted):
        return found + [msg for i, row in frame.iterrows() for msg in _quote_problems(spec, i, dict(row), seed)]
    for view in spec.views:
        found += _view_problems(view, frame, seed)
    return found


def checked_columns(spec: Table | Quoted, frame) -> set[str]:
    """The columns of ``frame`` that the check compares with the seed."""
    if isinstance(spec, Quoted):
        return set(frame.columns) - set(spec.exempt)
    seen: set[str] = set()
    for view in spec.views:
        if view.pivot:
            seen |= {view.pivot.column, view.pivot.values, *view.pivot.by}
        seen |= set(view.sections)
        for cells in _units(view, frame):  # every row: a render may read some columns only for some rows
            _safe_render(view, Cells(cells, seen))
    return seen


def _units(view: View, frame) -> list[dict[str, str]]:
    """The row dicts a view renders: the rows themselves, or one dict per pivot group."""
    if view.pivot is None:
        return [dict(row) for _, row in frame.iterrows()]
    p = view.pivot
    groups: dict[tuple, dict[str, str]] = {}
    for _, row in frame.iterrows():
        key = tuple(row[c] for c in p.by)
        group = groups.setdefault(key, {**{c: row[c] for c in p.by}, "_cells": {}})
        group["_cells"].setdefault(row[p.column], []).append(row[p.values])
    units = []
    for group in groups.values():
        cells = group.pop("_cells")
        complete = sorted(cells) == sorted(p.order) and all(len(v) == 1 for v in cells.values())
        values = " ".join(cells[k][0] for k in p.order) if complete else None
        units.append({**group, p.values: values, "_pivot_keys": sorted(cells)})
    return units


def _safe_render(view: View, cells: Cells) -> str | None:
    try:
        return view.render(cells)
    except (KeyError, ValueError, TypeError):
        return None


def _view_problems(view: View, frame, seed: SeedText) -> list[str]:
    out = []
    lines = seed.region(*view.region) if view.region else None
    if view.header is not None:
        header = view.header.replace("{order}", " ".join(view.pivot.order) if view.pivot else "")
        if not seed.find(pattern(header), True, lines):
            out.append(f"no header line {header!r} in the seed")
    headings = {col: {value: seed.find_text(h, whole=True) if h else [] for value, h in mapping.items()}
                for col, mapping in view.sections.items()}
    candidates: dict[int, list[int]] = {}  # unit number -> seed lines it may stand for
    labels = []
    for unit in _units(view, frame):
        label = {k: v for k, v in unit.items() if not k.startswith("_")}
        if view.pivot and unit[view.pivot.values] is None:
            out.append(f"{label}: {view.pivot.column} values {unit['_pivot_keys']} are not the seed's "
                       f"columns {list(view.pivot.order)}, each once")
            continue
        text = _safe_render(view, Cells(label, set()))
        if text is None:
            out.append(f"{label}: a value the seed's table cannot print")
            continue
        hits = seed.find(pattern(text), view.whole_line, lines)
        good = [i for i in hits if _in_sections(i, unit, view.sections, headings)]
        if not good:
            where = "in the right section" if hits else "on any line"
            out.append(f"{label}: {text!r} not found {where} of the seed")
        candidates[len(labels)] = good
        labels.append(label)
    # Two rows may not stand for the same seed line (e.g. a zero row copied into the wrong section).
    owner = _distinct_lines({u: c for u, c in candidates.items() if c})
    out += [f"{labels[u]}: shares its seed line with another row" for u, c in candidates.items()
            if c and u not in owner.values()]
    return out


def _distinct_lines(candidates: dict[int, list[int]]) -> dict[int, int]:
    """A largest assignment of distinct lines to units (Kuhn's augmenting paths): line -> unit."""
    owner: dict[int, int] = {}

    def claim(unit: int, tried: set[int]) -> bool:
        for line in candidates[unit]:
            if line not in tried:
                tried.add(line)
                if line not in owner or claim(owner[line], tried):
                    owner[line] = unit
                    return True
        return False

    for unit in candidates:
        claim(unit, set())
    return owner


def _in_sections(line: int, unit: dict, sections: dict, headings: dict) -> bool:
    """True if, for each section column, the closest heading above ``line`` is the one for the row's value."""
    for col, mapping in sections.items():
        above = [(max(i for i in idx if i < line), value) for value, idx in headings[col].items()
                 if any(i < line for i in idx)]
        governing = max(above)[1] if above else None
        expected = unit.get(col)
        if expected not in mapping:
            return False
        if governing != (expected if mapping[expected] is not None else None):
            return False
    return True


def _quote_problems(spec: Quoted, index, row: dict[str, str], seed: SeedText) -> list[str]:
    quote = row.get(spec.quote, "")
    fragments = [f for f in quote.split(FRAGMENT_SEPARATOR) if f.strip()]
    out = [f"row {index}: quote fragment {f!r} is not on any line of the seed" for f in fragments
           if not seed.find_text(f)]
    if not fragments:
        out.append(f"row {index}: empty quote")
    quote_tokens = tokens(quote)
    quantities = _quantities(quote)
    for col, cell in row.items():
        if col == spec.quote or col in spec.exempt or cell == "":
            continue
        if not _evidenced(cell, quote_tokens, quantities):
            out.append(f"row {index}: {col}={cell!r} does not appear in its quote {quote!r}")
    return out


def _quantities(text: str) -> list[float]:
    """Every number of ``text``, and its value times the magnitude suffix if it has one (10k -> 10, 10000)."""
    out = []
    for number, suffix in _QUANTITY.findall(text):
        out.append(float(number))
        if suffix:
            out.append(float(number) * _SCALE[suffix.lower()])
    return out


def _evidenced(cell: str, quote_tokens: list[str], quantities: list[float]) -> bool:
    try:
        value = float(cell)
    except ValueError:
        words = [cell, *SYNONYMS.get(cell.lower(), ())]
        return any(occurs(tokens(w), quote_tokens, whole=False) for w in words)
    return any(math.isclose(value, q, rel_tol=1e-12) for q in quantities)
