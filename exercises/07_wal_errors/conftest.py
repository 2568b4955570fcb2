"""Gives the graded tests the ``wal_errors`` fixture: the student's module (``--student PATH``) or the stub beside it."""

from minidb.grading.fixture import exercise_module

wal_errors = exercise_module(__file__)
