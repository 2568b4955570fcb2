"""How close are we: every published figure a claim tests, beside ours, and the ratio of the two.

A chapter's verdict table says whether each finding's *direction* holds (``claims``); this table says whether its
*size* does. It lists, for every finding, each claim that names a published number: the number, ours at the run's
scale, ours / published, and whether that is within 2x and within 1.25x (``claims.WITHIN``; a figure near zero
uses its claim's tolerance). ``minidb claims --magnitudes`` prints it, and the book's introduction shows it, from the
same function, so the two never disagree:

    from minidb.experiments import magnitudes
    found = magnitudes.book_claims("tiny")     # {finding: [Claim, ...]}, each finding's chapter run
    table = magnitudes.table(found)            # one row per published figure
    magnitudes.summary(table)                  # "30 of 32 published figures within 2x, 26 within 1.25x"

The runs are the chapters' own (each module's ``book_run`` where it has one, else ``run``), through the sweep
cache: after a book build at the same scale the table costs seconds.

A table can be kept as a *record* (``save``, ``minidb claims --magnitudes --save FILE``): the figures of one commit's
runs, so that a later book can show each figure before and after a change (``before_after``) without typing one.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pandas as pd

from .. import scales
from . import findings
from .claims import WITHIN, Claim

# Each finding's chapter in the book (a file stem of book/chapters/), the table's link.
CHAPTERS = {"f1": "03_insert_benchmark", "f2": "04_write_efficiency", "f3": "05_memory_sweep", "f4": "06_cloud_iops",
            "f5": "08_space", "f6": "10_stalls", "f7": "07_disk_full", "f8": "09_big_transactions",
            "f9": "11_read_cost"}
COLUMNS = ("finding", "chapter", "claim", "published", "ours", "ratio", "within_2x", "within_1_25x",
           "reason")  # table()'s columns, in order


def book_claims(scale: str | None = None, names=None, *, executor=None, cache_dir=None) -> dict[str, list[Claim]]:
    """Each finding's claims on its chapter's run at ``scale``: {finding: [Claim, ...]} in finding order.
    ``names`` limits it to some findings (``f1``, ...); ValueError naming them for one that does not exist."""
    known = findings()
    names = list(known) if names is None else list(names)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown finding(s) {', '.join(unknown)}: known are {', '.join(known)}")
    scale = scales.current(scale)
    where = {k: v for k, v in (("executor", executor), ("cache_dir", cache_dir)) if v is not None}
    out = {}
    for name in names:
        module = importlib.import_module(f"{__package__}.{known[name]}")
        runner = getattr(module, "book_run", module.run)
        out[name] = module.claims(runner(scale, progress=False, **where))
    return out


def table(found: dict[str, list[Claim]]) -> pd.DataFrame:
    """One row per claim of ``found`` that names a published number, with ``COLUMNS``; ``reason`` is the claim's
    reason where ours is not within 1.25x of the post's (why the size differs)."""
    rows = []
    for finding, claims in found.items():
        for c in claims:
            m = c.magnitude
            if m is None:
                continue
            rows.append({"finding": finding, "chapter": CHAPTERS.get(finding, ""), "claim": c.claim,
                         "published": float(c.published), "ours": c.ours, "ratio": m.ratio,
                         "within_2x": m.within_2x, "within_1_25x": m.within_1_25x,
                         "reason": "" if m.within_1_25x else c.reason})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def summary(frame: pd.DataFrame) -> str:
    """The table in one sentence: how many published figures are within each factor of ``WITHIN``."""
    n = len(frame)
    return (f"{int(frame.within_2x.sum())} of {n} published figures within {WITHIN[0]:g}x, "
            f"{int(frame.within_1_25x.sum())} within {WITHIN[1]:g}x")


RECORD_COLUMNS = ("finding", "claim", "published", "ours")  # what a record keeps of each row


def save(frame: pd.DataFrame, path, *, scale: str, commit: str) -> None:
    """Keep ``frame`` (``table``'s) as a record of ``commit``'s runs at ``scale``, a JSON file at ``path``."""
    rows = frame[list(RECORD_COLUMNS)].to_dict("records")
    Path(path).write_text(json.dumps({"scale": scale, "commit": commit, "rows": rows}, indent=1) + "\n",
                          encoding="utf-8")


def load_record(path) -> dict:
    """A record written by ``save``: {"scale", "commit", "rows"}; ValueError naming the file if it is not one."""
    record = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(record, dict) or not {"scale", "commit", "rows"} <= set(record):
        raise ValueError(f"{path} is not a magnitude record (scale, commit, rows)")
    return record


def stem(claim: str) -> str:
    """The part of a claim's words before its colon: what a record's row and a run's are matched by, so that a
    claim whose measure is worded anew is still the same claim."""
    return claim.split(":")[0].strip()


def before_after(frame: pd.DataFrame, record: dict, finding: str | None = None) -> pd.DataFrame:
    """``frame``'s rows (of one ``finding``, or all) beside the record's: claim, published, before (the record's
    ours, blank for a claim it lacks), now, and each over the published figure."""
    kept = {(r["finding"], stem(r["claim"])): r for r in record["rows"]}
    rows = []
    for r in frame.itertuples():
        if finding is not None and r.finding != finding:
            continue
        old = kept.get((r.finding, stem(r.claim)))
        before = old["ours"] / old["published"] if old and old["published"] else float("nan")
        rows.append({"claim": stem(r.claim), "published": r.published,
                     "before": old["ours"] if old else float("nan"), "now": r.ours,
                     "before / published": before, "now / published": r.ratio})
    return pd.DataFrame(rows)
