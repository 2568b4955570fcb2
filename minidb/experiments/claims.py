"""Claims as code: each finding's verdict, computed from a run, never typed.

Every experiment module has ``run(scale)``, ``published()`` and ``claims(results)``. ``claims`` turns a run's
results into a list of ``Claim``: the claim in words, the published figure it stands for, our figure, the band
within which we call it reproduced, and whether ours falls in the band. A chapter shows ``verdict(claims)`` as its
verdict table; the tests run each experiment at ``tiny`` and assert the claims whose ``must_hold`` names ``tiny``.

A claim that does not hold at some scale is not hidden: it stays in the table with ``holds`` False, and its
``reason`` (written once, in the experiment module, where the mechanism is known) tells the reader why.

The band says whether a finding's *direction* is reproduced; ``magnitude`` says how close our *size* is to the
post's: ours over the published figure, and whether it is within 2x and within 1.25x (``WITHIN``). A published
figure at or near zero has no useful ratio, so its claim states an absolute ``tolerance`` instead.

    >>> c = Claim.check("16 KiB pages write >= 2.5x the bytes of 4 KiB pages", published=3.21, ours=3.48,
    ...                 band=at_least(2.5))
    >>> c.holds, c.band.text
    (True, '>= 2.5')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

SCALES = ("tiny", "small", "large")  # the scales a claim may be required to hold at (minidb.scales's presets)
COLUMNS = ("claim", "published", "ours", "band", "holds", "reason")  # verdict()'s columns, in order
WITHIN = (2.0, 1.25)  # the magnitude yardsticks: ours within 2x of the published figure, and within 1.25x
NEAR_ZERO = 0.01  # a published figure smaller than this (in absolute value) is compared with a tolerance, not a ratio


@dataclass(frozen=True)
class Band:
    """A closed interval ``[lo, hi]`` of acceptable values; ``None`` leaves that side open."""

    lo: float | None = None  # smallest value that holds, None for no lower bound
    hi: float | None = None  # largest value that holds, None for no upper bound

    def __post_init__(self) -> None:
        if self.lo is None and self.hi is None:
            raise ValueError("a band needs at least one bound")
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ValueError(f"empty band: lo {self.lo} > hi {self.hi}")

    def contains(self, value: float) -> bool:
        """True when ``value`` is a number within the band (NaN never is)."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return False
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)

    @property
    def text(self) -> str:
        """The band as a reader writes it: ``>= 2.5``, ``<= 0.15``, ``0.75 .. 1.25``."""
        if self.hi is None:
            return f">= {figure(self.lo)}"
        if self.lo is None:
            return f"<= {figure(self.hi)}"
        return f"{figure(self.lo)} .. {figure(self.hi)}"


def at_least(lo: float) -> Band:
    """The band ``value >= lo``."""
    return Band(lo=lo)


def at_most(hi: float) -> Band:
    """The band ``value <= hi``."""
    return Band(hi=hi)


def between(lo: float, hi: float) -> Band:
    """The band ``lo <= value <= hi``."""
    return Band(lo=lo, hi=hi)


def within(target: float, fraction: float) -> Band:
    """The band ``target x (1 +- fraction)``: ``within(1.0, 0.15)`` is "flat within 15%"."""
    return Band(lo=target * (1 - fraction), hi=target * (1 + fraction))


def within_factor(target: float, factor: float) -> Band:
    """The band ``target / factor <= value <= target x factor``: the size of a published figure, within ``factor``."""
    return Band(lo=target / factor, hi=target * factor)


def equals(value: float) -> Band:
    """The band holding exactly ``value`` (a count that must be zero, say)."""
    return Band(lo=value, hi=value)


@dataclass(frozen=True)
class Claim:
    """One row of a chapter's verdict table."""

    claim: str  # what the finding says, in words that hold at any scale ("16 KiB pages write >= 2.5x ...")
    published: float | str | None  # the seed's figure for the same quantity, None where the post gives none
    ours: float  # the run's figure, computed by claims() from the results
    band: Band  # where ours must fall for the claim to be reproduced
    must_hold: tuple[str, ...] = SCALES  # scales at which the test suite asserts it
    reason: str = ""  # why it may not hold (shown only where it does not), or why its size differs from the post's
    tolerance: float | None = None  # |ours - published| that counts as the same size, for a figure near zero
    holds: bool = field(init=False)  # ours is within band

    def __post_init__(self) -> None:
        unknown = set(self.must_hold) - set(SCALES)
        if unknown:
            raise ValueError(f"unknown scale(s) {sorted(unknown)} in must_hold: use {SCALES}")
        if self.tolerance is not None and not self.tolerance >= 0:
            raise ValueError(f"claim {self.claim!r}: tolerance must be >= 0, got {self.tolerance}")
        if numeric(self.published) and abs(self.published) < NEAR_ZERO and self.tolerance is None:
            raise ValueError(f"claim {self.claim!r}: the published figure {self.published} is near zero, so the "
                             f"claim needs a tolerance to compare ours with it")
        object.__setattr__(self, "holds", self.band.contains(self.ours))

    @classmethod
    def check(cls, claim: str, *, published, ours: float, band: Band, must_hold=SCALES, reason: str = "",
              tolerance: float | None = None) -> Claim:
        """A claim whose ``holds`` is computed from ``ours`` and ``band`` (the only way to build one)."""
        return cls(claim, published, float(ours), band, tuple(must_hold), reason, tolerance)

    @property
    def magnitude(self) -> Magnitude | None:
        """How close ours is to the published figure (None when the claim names no published number)."""
        if not numeric(self.published):
            return None
        published = float(self.published)
        ratio = self.ours / published if published else math.nan
        if self.tolerance is not None:
            close = abs(self.ours - published) <= self.tolerance
            return Magnitude(ratio, close, close)
        fine = math.isfinite(ratio) and ratio > 0
        return Magnitude(ratio, *(fine and 1 / f <= ratio <= f for f in WITHIN))


@dataclass(frozen=True)
class Magnitude:
    """Ours beside a published figure: their ratio and whether it is within ``WITHIN``'s two factors."""

    ratio: float  # ours / published (NaN for a published zero)
    within_2x: bool  # 1/2 <= ratio <= 2, or within the claim's tolerance
    within_1_25x: bool  # 1/1.25 <= ratio <= 1.25, or within the claim's tolerance


def numeric(x) -> bool:
    """Whether ``x`` is a published *number* (not text, not None, not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)


def verdict(claims: list[Claim]) -> pd.DataFrame:
    """The verdict table a chapter shows: one row per claim, with ``COLUMNS``; ``reason`` is filled only for
    claims that do not hold."""
    rows = [{
        "claim": c.claim,
        "published": "" if c.published is None else (figure(c.published) if isinstance(c.published, (int, float))
                                                     else c.published),
        "ours": figure(c.ours),
        "band": c.band.text,
        "holds": c.holds,
        "reason": "" if c.holds else c.reason,
    } for c in claims]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def failing(claims: list[Claim], scale: str) -> list[Claim]:
    """The claims that must hold at ``scale`` and do not (what a test asserts is empty)."""
    return [c for c in claims if scale in c.must_hold and not c.holds]


def figure(x: float) -> str:
    """A figure as the book prints it: three significant digits, no exponent for everyday magnitudes."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return f"{int(x):,}"
    return f"{x:,.3g}" if abs(x) < 1000 else f"{x:,.0f}"
