"""Hidden graded tests of exercise 03, the write-amplification model: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it. Students see each test's name and points once grades are published.
"""

from __future__ import annotations

import pytest


@pytest.mark.points(1)
@pytest.mark.hidden
def test_bad_settings(write_amp):
    """Settings leveled compaction cannot have raise ValueError."""
    good = dict(memtable_bytes=64, l0_trigger=4, max_bytes_for_level_base=256, multiplier=10, num_levels=4)
    for name, bad in [("memtable_bytes", 0), ("l0_trigger", 0), ("l0_trigger", 2.5),
                      ("max_bytes_for_level_base", -1), ("multiplier", 1), ("num_levels", 1)]:
        with pytest.raises(ValueError):
            write_amp.LeveledModel(**{**good, name: bad})
    model = write_amp.LeveledModel(**good)
    with pytest.raises(ValueError):
        model.flush(0)
    with pytest.raises(ValueError):
        model.load(-1)
