"""The late policy: a deadline, and a share of the points lost per day (or part of a day) past it.

``LatePolicy(deadline, penalty_per_day=0.1)`` keeps 90% of the points one minute to 24 hours late, 80% up to 48
hours, and nothing once the penalties add up to all of it. Submission times come from the course's records
(``handins.py``): Gradescope's metadata or the instructor's ``--submitted`` list, never the files' modification
times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from .submissions import parse_time

DAY = timedelta(days=1)


@dataclass(frozen=True)
class LatePolicy:
    """A deadline and the share of the points lost per started day past it."""

    deadline: datetime  # timezone-aware
    penalty_per_day: float  # 0.1: a tenth of the points per day late

    def __post_init__(self) -> None:
        if self.deadline.tzinfo is None:
            raise ValueError(f"deadline {self.deadline.isoformat()} needs a timezone (e.g. +00:00 or Z)")
        if not 0 <= self.penalty_per_day <= 1:
            raise ValueError(f"--late-penalty: a share of the points per day, between 0 and 1, got {self.penalty_per_day!r}")

    def days_late(self, submitted: datetime) -> int:
        """Days (each started day counts) between the deadline and ``submitted``; 0 if on time."""
        if submitted.tzinfo is None:
            submitted = submitted.replace(tzinfo=timezone.utc)
        late = submitted - self.deadline
        return 0 if late <= timedelta(0) else math.ceil(late / DAY)

    def factor(self, submitted: datetime) -> float:
        """The share of the points kept for a submission handed in at ``submitted``."""
        return max(0.0, 1.0 - self.penalty_per_day * self.days_late(submitted))


def parse_deadline(text: str) -> datetime:
    """An ISO 8601 time with a timezone (``2026-12-01T23:59+01:00``, ``...Z``); ValueError naming the option."""
    try:
        return parse_time(text)
    except ValueError as e:
        raise ValueError(f"--deadline {e}") from None
