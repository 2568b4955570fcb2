"""Grading of the exercises: a pytest plugin for one submission, and a bulk grader for a class.

* ``plugin``: the pytest plugin (``@pytest.mark.points``, ``--student``, the grade table, ``--gradescope-json``,
  the per-test time limit), built from ``points`` (the markers), ``gradebook`` (outcomes and totals),
  ``gradescope`` (results.json), ``timelimit`` (the alarm) and ``student`` (finding and importing a submission).
* ``fixture``: the one-line fixture an exercise's conftest.py defines to give tests the module under test.
* ``activation``: the pytest arguments that load the plugin in a new run (none once the package is installed).
* ``exercise``: an exercise folder and its ``exercise.toml``.
* ``grader``: ``grade_submission``, grading one submission in its own pytest process and sandbox: the entry point
  ``minidb grade`` and the Gradescope autograder share.
* ``bulk``: ``minidb grade``: every student's submission of a folder, into one grades.csv; ``handins``: which
  submission counts for each student, and when it was handed in.
* ``sandbox`` (and ``sandbox_server``, ``limits``, ``isolation``, ``jail``, ``safecopy``): untrusted grading
  (``--sandbox``): the submission's code in a process of its own, under its own uid and in its own namespaces
  where the machine allows, with limits; the tests see a stand-in module.
* ``submissions``, ``roster``, ``late``, ``feedback``, ``lms``: a class's submissions as Canvas or Gradescope export
  them, the roster join, the late policy, per-student feedback, and the gradebook across exercises.
* ``release``, ``autograde``: the students' copy (``minidb release``), the Gradescope autograder zip (``minidb
  autograder``) and what its ``run_autograder`` runs.
* ``repeatable``: Hypothesis settings for graded property tests (the same examples on every run).
"""
