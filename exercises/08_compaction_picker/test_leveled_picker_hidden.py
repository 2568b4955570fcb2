"""Hidden graded tests of exercise 08, the compaction picker: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it.
"""

from __future__ import annotations

import pytest

INF = float("inf")


@pytest.mark.points(1)
@pytest.mark.hidden
def test_edge_cases(leveled_picker):
    """Two levels (only L0 is scored), an empty L0, a level with a target but no bytes, one file per level."""
    picker = leveled_picker.LeveledPicker()
    assert picker.level_scores([0, 500], 0, [INF, 100], 4, 100) == [0.0]
    assert picker.level_scores([0, 0, 900], 0, [INF, 100, 1000], 4, 100) == pytest.approx([0.0, 0.0])
    assert picker.levels_to_compact([]) == []
    assert picker.round_robin([b"m"], None) == 0
    assert picker.round_robin([b"m"], b"m") == 0


@pytest.mark.points(1)
@pytest.mark.hidden
def test_pointer_is_an_internal_key(leveled_picker):
    """Compact pointers are internal keys (user key + 8-byte trailer): a file whose largest user key equals the
    pointer's, with an older trailer, sorts after it as bytes and is the next one."""
    picker = leveled_picker.LeveledPicker()
    files = [b"apple" + bytes(8), b"apple" + b"\x00" * 7 + b"\x09", b"pear" + bytes(8)]
    assert picker.round_robin(files, b"apple" + bytes(8)) == 1
    assert picker.round_robin(files, files[1]) == 2
