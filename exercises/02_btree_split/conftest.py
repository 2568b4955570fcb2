"""Gives the graded tests the ``leaf_split`` fixture: the student's module (``--student PATH``) or the stub here."""

from minidb.grading.fixture import exercise_module

leaf_split = exercise_module(__file__)
