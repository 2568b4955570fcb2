"""Build the Cython extensions: every ``minidb/**/*.pyx`` becomes a module of the same dotted name.

Release builds turn bounds and wrap-around checks off and compile with -O3; set ``MINIDB_CYTHON_DEBUG=1`` to
turn the checks back on while developing an extension.

``make install`` sets ``MINIDB_EXTENSIONS=0`` for pip's editable install, which then only links the package; ``make
build`` compiles the extensions in place, several at a time. Left to pip, every extension would be compiled twice,
once by pip one after another and again in place.
"""

import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("MINIDB_CYTHON_DEBUG") == "1"
EXTENSIONS = os.environ.get("MINIDB_EXTENSIONS", "1") != "0"


def extensions():
    """One Extension per .pyx file under minidb/, named by its path."""
    root = Path(__file__).parent
    mods = []
    for pyx in sorted(root.glob("minidb/**/*.pyx")):
        rel = pyx.relative_to(root)
        name = ".".join(rel.with_suffix("").parts)
        mods.append(Extension(name, [str(rel)], extra_compile_args=["-O3"]))
    return mods


setup(
    ext_modules=[] if not EXTENSIONS else cythonize(
        extensions(),
        language_level=3,
        compiler_directives={
            "boundscheck": DEBUG,
            "wraparound": DEBUG,
            "initializedcheck": DEBUG,
            "cdivision": True,
            "embedsignature": True,
        },
        quiet=True,
    ),
)
