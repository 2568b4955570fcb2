"""Gives the graded tests the ``write_amp`` fixture: the student's module (``--student PATH``) or the stub beside it."""

from minidb.grading.fixture import exercise_module

write_amp = exercise_module(__file__)
