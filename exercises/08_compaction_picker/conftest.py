"""Gives the graded tests the ``leveled_picker`` fixture: the student's module (``--student PATH``) or the stub
beside it."""

from minidb.grading.fixture import exercise_module

leveled_picker = exercise_module(__file__)
