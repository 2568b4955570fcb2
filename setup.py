"""Build the C extensions: every ``minidb/**/*.pyx`` becomes a module of the same dotted name, and so does every
``csrc/minidb/**/*.c``.

``csrc/`` exists only in a students' copy (``minidb release``): it holds, as C that Cython generated without the
source, the engine modules whose code answers an exercise. They are compiled here like the rest, on the student's
own machine, so the copy works wherever a C compiler does.

Release builds turn bounds and wrap-around checks off and compile with -O3 and no debug information (the
directives are pyproject.toml's ``[tool.minidb.cython-directives]``); set ``MINIDB_CYTHON_DEBUG=1`` to turn the checks
and the debug information back on while developing an extension.

``make install`` sets ``MINIDB_EXTENSIONS=0`` for its editable install, which then only links the package; ``make
build`` compiles the extensions in place, several at a time. Left to the installer, every extension would be compiled
twice, once by the installer one after another and again in place.

An installed (non-editable) minidb finds no data/ beside it: the build copies the repository's data/ (the published
tables the experiments load, with their sources) into the package as ``minidb/published_data/`` (``minidb.data``).

A wheel built from a checkout where ``make build`` has run (``minidb autograder --wheel``) takes each extension
compiled in place, when it is there for this Python and newer than every source (Cython's and csrc/'s) and this
file, rather than compiling it again; anything else is compiled, one job per core.
"""

import os
import shutil
import tomllib
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
DEBUG = os.environ.get("MINIDB_CYTHON_DEBUG") == "1"
EXTENSIONS = os.environ.get("MINIDB_EXTENSIONS", "1") != "0"
COMPILED_ONLY = "csrc"  # the C of modules shipped without their source (a students' copy)
CHECKS = ("boundscheck", "wraparound", "initializedcheck")  # what MINIDB_CYTHON_DEBUG=1 turns on
# Python's own flags ask for debug information (-g); without it the compiler does a fifth less work, and the code it
# makes is the same. MINIDB_CYTHON_DEBUG=1 keeps it, for a debugger.
NO_DEBUG_INFO = ["-g0"]


def directives():
    """Cython's directives for the .pyx modules: pyproject.toml's, with the checks on under MINIDB_CYTHON_DEBUG."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    chosen = dict(config["tool"]["minidb"]["cython-directives"])
    return {**chosen, **({name: True for name in CHECKS} if DEBUG else {})}


def extension(name, source):
    """The extension module ``name`` built from ``source`` (a path relative to the root)."""
    return Extension(name, [source], extra_compile_args=["-O3"] + ([] if DEBUG else NO_DEBUG_INFO))


def extensions():
    """One Extension per .pyx file under minidb/, named by its path, cythonized."""
    pyx = [
        extension(".".join(p.relative_to(ROOT).with_suffix("").parts), p.relative_to(ROOT).as_posix())
        for p in sorted(ROOT.glob("minidb/**/*.pyx"))
    ]
    return cythonize(pyx, language_level=3, compiler_directives=directives(), quiet=True) if pyx else []


def compiled_only():
    """One Extension per C file under csrc/ (a students' copy), named by its path below csrc/."""
    return [
        extension(".".join(c.relative_to(ROOT / COMPILED_ONLY).with_suffix("").parts), c.relative_to(ROOT).as_posix())
        for c in sorted(ROOT.glob(f"{COMPILED_ONLY}/minidb/**/*.c"))
    ]


class BuildExt(build_ext):
    """setuptools' build_ext, in parallel, reusing extensions ``make build`` compiled in place (see above)."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extension(self, ext):
        in_place = ROOT / self.get_ext_filename(ext.name)
        if not self.inplace and in_place.is_file() and in_place.stat().st_mtime >= newest_source():
            target = Path(self.get_ext_fullpath(ext.name))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(in_place, target)
            return
        super().build_extension(ext)


class BuildPy(build_py):
    """setuptools' build_py, plus a copy of data/ as minidb/published_data/ (see above)."""

    def run(self):
        super().run()
        if not self.editable_mode:
            shutil.copytree(ROOT / "data", Path(self.build_lib) / "minidb" / "published_data", dirs_exist_ok=True)


def newest_source():
    """The modification time of the newest source of an extension (.pyx, .pxd, csrc/'s C) or of this file."""
    sources = [*ROOT.glob("minidb/**/*.pyx"), *ROOT.glob("minidb/**/*.pxd"), *ROOT.glob(f"{COMPILED_ONLY}/**/*.c"),
               Path(__file__)]
    return max(p.stat().st_mtime for p in sources)


setup(
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
    ext_modules=extensions() + compiled_only() if EXTENSIONS else [],
)
