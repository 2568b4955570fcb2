"""Gives the graded tests the ``device_model`` fixture: the student's module (``--student PATH``) or the stub here."""

from minidb.grading.fixture import exercise_module

device_model = exercise_module(__file__)
