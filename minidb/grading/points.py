"""The markers that make a test graded: ``@pytest.mark.points(n)`` and ``@pytest.mark.hidden``.

* ``@pytest.mark.points(3)``: the test is worth 3 points, earned only if it passes (setup, call and teardown).
  On a parametrized test every case is worth ``n``.
* ``@pytest.mark.hidden``: the test counts, but its output is withheld from the student in Gradescope's
  results.json; the test itself is shown when the instructor publishes the grades (``after_published``).
  ``@pytest.mark.hidden(visibility="after_due_date")`` shows it after the due date instead.

A test without ``points`` is an ordinary test: the grading plugin ignores it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from numbers import Real
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pytest is imported where a test is read (``graded_test``): ``minidb check`` needs only the rest
    import pytest

# Gradescope's visibility settings a hidden test may use ("hidden" tests never show, not even their score).
HIDDEN_VISIBILITIES = ("after_published", "after_due_date", "hidden")
DEFAULT_HIDDEN_VISIBILITY = "after_published"
PROPERTY = "minidb_grading"  # the user_properties key under which a test's GradedTest travels in its reports

MARKERS = (
    "points(n): a graded test worth n points, earned when it passes (minidb grading)",
    "hidden(visibility='after_published'): a graded test whose output students never see (minidb grading)",
)


@dataclass(frozen=True)
class GradedTest:
    """What the markers say about one graded test, carried in its reports (so it also crosses pytest-xdist)."""

    points: float  # points the test is worth
    visibility: str  # Gradescope visibility: "visible", or a hidden test's setting
    description: str  # the first line of the test's docstring, shown to students

    @property
    def hidden(self) -> bool:
        """Whether the test's output is withheld from the student."""
        return self.visibility != "visible"

    def as_property(self) -> tuple[str, dict]:
        """The (name, value) pair stored in the test's ``user_properties``."""
        return (PROPERTY, asdict(self))

    @classmethod
    def from_properties(cls, properties: list[tuple[str, object]]) -> GradedTest | None:
        """The graded test described in a report's ``user_properties``, or None for an ordinary test."""
        for name, value in properties:
            if name == PROPERTY:
                return cls(**value)
        return None


def graded_test(item: pytest.Item) -> GradedTest | None:
    """The GradedTest ``item``'s markers declare, or None; UsageError naming the test if they are malformed."""
    import pytest

    points_mark = item.get_closest_marker("points")
    hidden_mark = item.get_closest_marker("hidden")
    if points_mark is None:
        if hidden_mark is not None:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.hidden needs @pytest.mark.points(n) as well")
        return None
    if len(points_mark.args) != 1 or points_mark.kwargs:
        raise pytest.UsageError(f"{item.nodeid}: use @pytest.mark.points(n) with one number, got {points_mark}")
    points = points_mark.args[0]
    if isinstance(points, bool) or not isinstance(points, Real) or not points > 0:
        raise pytest.UsageError(f"{item.nodeid}: points must be a positive number, got {points!r}")
    visibility = "visible"
    if hidden_mark is not None:
        visibility = hidden_mark.kwargs.get("visibility", DEFAULT_HIDDEN_VISIBILITY)
        if hidden_mark.args or set(hidden_mark.kwargs) - {"visibility"} or visibility not in HIDDEN_VISIBILITIES:
            raise pytest.UsageError(
                f"{item.nodeid}: use @pytest.mark.hidden or @pytest.mark.hidden(visibility=...) with one of "
                f"{HIDDEN_VISIBILITIES}, got {hidden_mark}"
            )
    doc = getattr(getattr(item, "function", None), "__doc__", None) or ""
    description = doc.strip().splitlines()[0] if doc.strip() else ""
    return GradedTest(points=float(points), visibility=visibility, description=description)
