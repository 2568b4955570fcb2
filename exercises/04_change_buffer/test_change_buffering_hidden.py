"""Hidden graded tests of exercise 04, the change buffer: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it. Students see each test's name and points once grades are published.
"""

from __future__ import annotations

import pytest


@pytest.mark.points(2)
@pytest.mark.hidden
def test_edge_cases(change_buffering):
    """Empty leaves and empty changes, empty values, a full leaf, a zero-byte buffer, returned tuples."""
    policy = change_buffering.ChangeBufferPolicy()
    assert policy.merge([], []) == []
    assert policy.merge([(b"a", b"")], []) == [(b"a", b"")]
    assert policy.merge([], [("put", b"a", b""), ("put", b"\x00", b"z")]) == [(b"\x00", b"z"), (b"a", b"")]
    merged = policy.merge([(b"a", b"1")], [("put", b"b", b"2")])
    assert all(isinstance(record, tuple) for record in merged)
    assert policy.can_buffer(False, "put", 1, (0, 5), 10, 100) is False
    assert policy.can_buffer(False, "put", 0, (0, 5), 10, 100) is True
    assert policy.can_buffer(False, "delete", 0, (0, 0), 10, 100) is False
    assert policy.can_buffer(False, "put", 10, (100, 5), 1, 0) is False
    assert policy.can_buffer(True, "put", 10, None, 1, 0) is False
