"""Gives the graded tests the ``bloom`` fixture: the student's module (``--student PATH``) or the stub beside it."""

from minidb.grading.fixture import exercise_module

bloom = exercise_module(__file__)
