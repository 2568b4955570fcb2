"""Hypothesis settings for graded property tests: a grade must not depend on the luck of the draw.

Use it as a decorator under ``@given``'s line::

    @pytest.mark.points(4)
    @repeatable
    @given(keys=st.lists(st.binary(min_size=1)))
    def test_no_false_negatives(bloom, keys): ...

``derandomize`` makes Hypothesis draw the same examples on every run, so two gradings of one submission agree and a
student's local run predicts the grade; ``database=None`` keeps it from writing a ``.hypothesis`` folder into the
exercise or the submission; ``deadline=None`` because a student's correct but slow code must not fail on time
(the grading plugin's per-test time limit is the bound).
"""

from hypothesis import HealthCheck, settings

repeatable = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
