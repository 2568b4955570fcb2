"""What a chapter's first cell imports starts fast: nothing in it builds a parser at import.

Every chapter runs in a kernel of its own, and so do the exercises' notebooks: a second spent importing is paid
a dozen times per build. jsonschema (which altair validates every chart with) imports rfc3987-syntax from 4.25 on
whenever it is installed, and that package compiles some 35 Lark parsers at import, 2.5 s of CPU; pyproject.toml
keeps jsonschema below 4.25. The check looks at the modules loaded, not at a time.
"""

from __future__ import annotations

import json
import subprocess
import sys

FIRST_CELL = "import altair, pandas\nfrom minidb.book import charts, prose, tables\ncharts.enable()\ntables.enable()\n"
SLOW_AT_IMPORT = ("rfc3987_syntax", "lark")  # the IRI checker and the parser generator it runs at import


def test_a_chapters_first_cell_builds_no_parser_at_import():
    script = FIRST_CELL + f"import json, sys\nprint(json.dumps([m for m in {SLOW_AT_IMPORT!r} if m in sys.modules]))"
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == []
