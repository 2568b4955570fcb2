"""The engine modules that answer an exercise, shipped to students as C only: the engine runs, the answer is not there
to read.

Most exercises have the student write a part the engine already has: the bloom filter policy (``lsm/bloom.pyx``),
the split policy, the change buffer's rules... An exercise's ``answered_by`` (its ``exercise.toml``) names those
modules. In the students' copy (``minidb release``) each is replaced by the C that Cython generates from it, with
the two options that leave no source in it: no docstrings (``--no-docstrings``, and the property docstrings that
Cython keeps anyway are taken out after it) and no source line copied into a comment (``emit_code_comments=False``). What is left is Cython's own C: every Python operation spelled out as calls
into Python's C API, names and messages kept (tracebacks and errors still name functions and files), the logic
nowhere as a line one could copy. The C goes under ``csrc/`` at the module's path (``csrc/minidb/lsm/bloom.c``),
the ``.py`` or ``.pyx`` is left out, and ``setup.py`` compiles ``csrc/`` beside the ``.pyx`` modules.

Why C and not a compiled module or a wheel: students work on Linux, macOS and Windows (WSL2), on x86 and ARM, with
the Python they have. A compiled module (or a wheel) fits one OS, one CPU and one Python version, and this machine
builds Linux ones only. Cython's C compiles for every platform and every Python version that Cython supports, with
the C compiler the engine's ``.pyx`` modules need anyway: the copy asks nothing more of a student's machine.

Two details keep the modules what they were:

* a ``.pyx`` keeps its ``.pxd``, which other modules ``cimport`` (declarations, no logic), and is generated with
  the directives every extension gets (pyproject.toml's ``[tool.minidb.cython-directives]``, as setup.py);
* a ``.py`` is generated with ``annotation_typing=False``, so that its annotations stay annotations (Cython would
  otherwise enforce ``list`` arguments and turn ``float`` into a C double), and without the ``.pyx`` directives,
  whose unchecked indexing assumes typed code.

The C is compiled together with ``.pyx`` modules that ``cimport`` the same declarations, so both must come from
one Cython: the copy's pyproject.toml requires the version that generated its C (``pin_cython``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

COMPILED_ONLY = "csrc"  # the folder of the copy that holds the C (setup.py's COMPILED_ONLY)
PYTHON_MODE = {"annotation_typing": False}  # directives of a .py module, beside the ones every module gets
EVERY_MODULE = {"emit_code_comments": False}  # no line of source copied into the C
# A property's docstring in a cdef class's table of attributes: Cython writes it even with --no-docstrings (its
# generate_getset_table does not ask), so it is replaced by 0, no docstring, here.
PROPERTY_DOC = re.compile(r'(\{"\w+", __pyx_getprop_\w+, \w+, )PyDoc_STR\("(?:[^"\\]|\\.)*"\)')

README = """# Engine modules compiled only

Each exercise has you write a part that the book's engines already have. Those parts of the engine are here as C,
which Cython {version} generated from them with neither their docstrings nor their source: `make build` compiles
them with the rest of the engine, so the engines and the book work as usual, but the answers are not here to read.
The modules:

{modules}
"""


def c_path(module: str) -> PurePosixPath:
    """Where the C of the engine module ``module`` (``minidb/lsm/bloom.pyx``) goes in the copy."""
    return PurePosixPath(COMPILED_ONLY) / PurePosixPath(module).with_suffix(".c")


def module_name(module: str) -> str:
    """The dotted name of the module at path ``module``: ``minidb/lsm/bloom.pyx`` -> ``minidb.lsm.bloom``."""
    return ".".join(PurePosixPath(module).with_suffix("").parts)


def directives(root: Path, module: str) -> dict[str, bool]:
    """Cython's directives for ``module`` of the project at ``root`` (see the module docstring)."""
    if module.endswith(".py"):
        return {**PYTHON_MODE, **EVERY_MODULE}
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return {**config["tool"]["minidb"]["cython-directives"], "embedsignature": False, **EVERY_MODULE}


def cython_command(root: Path, module: str) -> list[str]:
    """The command, run in ``root``, that writes the C of ``module`` (a path relative to ``root``)."""
    flags = ",".join(f"{name}={value}" for name, value in directives(root, module).items())
    return [sys.executable, "-m", "cython", "-3", "--no-docstrings", "-X", flags, "--module-name",
            module_name(module), "-o", str(c_path(module)), module]


def compile_answers(root: Path, modules: list[str]) -> list[PurePosixPath]:
    """In the copy at ``root``, replace each module of ``modules`` (paths relative to ``root``) by its C under
    ``csrc/``; the C files written. RuntimeError with Cython's message if one does not compile."""
    for module in modules:
        (root / c_path(module)).parent.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=4) as pool:  # each Cython run is a process of its own: threads suffice
        runs = list(pool.map(lambda m: subprocess.run(cython_command(root, m), cwd=root, capture_output=True,
                                                      text=True), modules))
    for module, run in zip(modules, runs):
        if run.returncode != 0:
            raise RuntimeError(f"Cython could not compile {module}:\n{run.stdout}{run.stderr}")
    for module in modules:
        c = root / c_path(module)
        c.write_text(PROPERTY_DOC.sub(r"\g<1>0", c.read_text(encoding="utf-8")), encoding="utf-8")
        (root / module).unlink()
    if not modules:
        return []
    readme = PurePosixPath(COMPILED_ONLY) / "README.md"
    (root / readme).write_text(README.format(version=cython_version(),
                                             modules="\n".join(f"- `{m}`" for m in modules)), encoding="utf-8")
    return [readme, *(c_path(module) for module in modules)]


def cython_version() -> str:
    """The version of the Cython that generates the C."""
    import Cython

    return Cython.__version__


def pin_cython(pyproject: str, version: str) -> str:
    """``pyproject`` (the text of a pyproject.toml) with every requirement of Cython narrowed to ``version``."""
    pinned, count = re.subn(r'"Cython[^";]*', f'"Cython=={version}', pyproject)
    if count == 0:
        raise ValueError("pyproject.toml requires no Cython: the copy's C could not be compiled")
    return pinned
