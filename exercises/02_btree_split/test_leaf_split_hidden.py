"""Hidden graded tests of exercise 02, the leaf split policy: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it. Students see each test's name and points once grades are published.
"""

from __future__ import annotations

import pytest


@pytest.mark.points(2)
@pytest.mark.hidden
def test_edge_cases(leaf_split):
    """A split that only fits off-centre, two records, bytes 0xff and prefixes, and wrong arguments."""
    policy = leaf_split.SplitPolicy()
    # A huge new record: only k = 3 or 4 fit, and 4 is nearer half the bytes.
    assert policy.choose_split([100, 100, 100, 100, 900], 4, 1000, 15 / 16, False) == 4
    # An ascending insert whose fill-factor split would overflow the right page.
    assert policy.choose_split([300, 300, 300, 100, 990], 4, 1000, 0.5, True) == 4
    assert policy.choose_split([30, 40], 1, 64, 15 / 16, True) == 1
    assert policy.separator(b"ab", b"ab\x00") == b"ab\x00"
    assert policy.separator(b"a\xff\xff", b"b") == b"b"
    assert policy.separator(b"user#0041", b"user#0100") == b"user#01"
    with pytest.raises(ValueError):
        policy.separator(b"b", b"a")
    with pytest.raises(ValueError):
        policy.choose_split([600, 600, 600], 1, 1000, 15 / 16, False)
