"""Hidden graded tests of exercise 09, the merging iterator: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it.
"""

from __future__ import annotations

import pytest

PUT, DELETE = 1, 0


@pytest.mark.points(1)
@pytest.mark.hidden
def test_keys_that_prefix_each_other(merging_iterator):
    """b"a" < b"a\\x00" < b"ab" as bytes: a merge that compares anything but the key bytes first gets it wrong."""
    scan_merge = merging_iterator.ScanMerge()
    children = [[(b"a\x00", 4, PUT, b"2"), (b"ab", 3, PUT, b"3")], [(b"a", 1, PUT, b"1"), (b"ab", 2, PUT, b"old")]]
    assert list(scan_merge.visible(scan_merge.merge(children))) == [
        (b"a", b"1"), (b"a\x00", b"2"), (b"ab", b"3")]


@pytest.mark.points(1)
@pytest.mark.hidden
def test_many_children(merging_iterator):
    """Forty sources of one key each, newest source first: the newest wins, and nothing is lost."""
    scan_merge = merging_iterator.ScanMerge()
    children = [[(b"k%02d" % (i % 7), 100 - i, PUT, b"%d" % i)] for i in range(40)]
    merged = list(scan_merge.merge(children))
    assert len(merged) == 40
    assert dict(scan_merge.visible(merged)) == {b"k%02d" % j: b"%d" % j for j in range(7)}
