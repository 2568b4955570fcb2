"""How a new pytest run gets the grading plugin: by the package's ``pytest11`` entry point, or by ``-p``.

Once the package is installed with its entry point, pytest loads the plugin by itself, and naming it again with
``-p minidb.grading.plugin`` would register it twice (an error). Programs that start pytest with the plugins it
finds (the tests of the exercises) ask ``plugin_args()`` for the arguments to add; the grader turns autoload off
and names its plugins itself (``grader.PLUGINS``).
"""

from __future__ import annotations

import os
from importlib.metadata import entry_points

PLUGIN = "minidb.grading.plugin"  # the plugin's module


def autoloaded() -> bool:
    """Whether pytest will load the plugin by itself: an installed pytest11 entry point, and autoload not off."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return any(ep.value == PLUGIN for ep in entry_points(group="pytest11"))


def plugin_args() -> list[str]:
    """The pytest arguments that activate the grading plugin in a new run: none, or ``-p minidb.grading.plugin``."""
    return [] if autoloaded() else ["-p", PLUGIN]
