"""The fixture through which graded tests receive the module under test.

An exercise's ``conftest.py`` defines it in one line, named after the module its ``exercise.toml`` declares::

    from minidb.grading.fixture import exercise_module

    bloom = exercise_module(__file__)

and a graded test asks for it by that name: ``def test_name(bloom): assert bloom.BloomFilterPolicy(10).name ...``.
The fixture gives the student's module when pytest runs with ``--student`` and the stub otherwise. If the
submission does not import, every test that uses the fixture fails in its setup with the reason, and earns nothing.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from .exercise import exercise_of


def exercise_module(conftest_file: str):
    """A session fixture, named after the module of the exercise ``conftest_file`` belongs to, that returns it."""
    exercise = exercise_of(conftest_file)
    if exercise is None:
        raise ValueError(f"{conftest_file} is not inside an exercise folder (no exercise.toml above it)")

    @pytest.fixture(scope="session", name=exercise.module)
    def module(request: pytest.FixtureRequest) -> ModuleType:
        from .plugin import SESSION  # here, not at the top: importing the plugin module does not activate it

        session = request.config.pluginmanager.get_plugin(SESSION)
        if session is None:
            raise RuntimeError(
                "the minidb grading plugin is not active: install the package (pip install -e .) "
                "or run pytest with -p minidb.grading.plugin"
            )
        return session.module_for(exercise)

    module.__doc__ = f"The {exercise.module} module under test: the submission's (--student) or the stub."
    return module
