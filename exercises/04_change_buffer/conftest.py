"""Gives the graded tests the ``change_buffering`` fixture: the student's module (``--student PATH``) or the stub."""

from minidb.grading.fixture import exercise_module

change_buffering = exercise_module(__file__)
