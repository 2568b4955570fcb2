"""Gives the graded tests the ``torn_pages`` fixture: the student's module (``--student PATH``) or the stub here."""

from minidb.grading.fixture import exercise_module

torn_pages = exercise_module(__file__)
