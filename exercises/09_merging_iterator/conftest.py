"""Gives the graded tests the ``merging_iterator`` fixture: the student's module (``--student PATH``) or the stub
beside it."""

from minidb.grading.fixture import exercise_module

merging_iterator = exercise_module(__file__)
