"""Every numeric argument of every subcommand: ASCII digits only, and an upper bound, checked by the parser before
any work. The options are found by walking the parser, so a new numeric option is covered the day it is added."""

import argparse
from pathlib import Path

import pytest

from minidb.cli import build_parser
from minidb.commands import output_file

from .conftest import assert_usage_error


def numeric_options(parser, prefix=()):
    """(subcommand path, option string) of every option whose value is converted to a number."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from numeric_options(sub, (*prefix, name))
        elif action.option_strings and action.type not in (None, str, Path, output_file):
            yield prefix, action.option_strings[-1]


PARSER = build_parser()
OPTIONS = sorted(set(numeric_options(PARSER)))


def parse(capsys, *argv):
    """(exit code, stdout, stderr) of parsing ``argv`` with the command's parser (built once: it imports every
    subcommand)."""
    try:
        PARSER.parse_args(list(argv))
        code = 0
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def test_the_walk_finds_the_numeric_options():
    found = {(" ".join(path), flag) for path, flag in OPTIONS}
    assert {("lsm-shape", "--rows"), ("lsm-shape", "--seed"), ("stats", "--seed"), ("grade", "--jobs"),
            ("run tpcc", "--warehouses"), ("run insert-benchmark", "--cache")} <= found


@pytest.mark.parametrize("path, flag", OPTIONS, ids=[" ".join(p) + " " + f for p, f in OPTIONS])
@pytest.mark.parametrize("value", ["１２", "١٢", "9" * 30])
def test_every_numeric_option_takes_ascii_digits_within_bounds(capsys, path, flag, value):
    # full-width and Arabic-Indic digits (which int() and float() read), and a value past every bound
    positional = ["x"] * sum(1 for a in _subparser(path)._actions if not a.option_strings and a.required)
    assert_usage_error(parse(capsys, *path, *positional, flag, value), f"argument {flag}")


def _subparser(path):
    parser = PARSER
    for name in path:
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    return parser


@pytest.mark.parametrize("flag, inside, outside", [
    ("--rows", "1e8", "100000001"),
    ("--seed", "4294967295", "4294967296"),
    ("--slowdown-trigger", "1000", "1001"),
    ("--every", "1", "0"),
])
def test_lsm_shape_bounds_on_both_sides(capsys, flag, inside, outside):
    args = PARSER.parse_args(["lsm-shape", flag, inside])
    assert getattr(args, flag[2:].replace("-", "_")) == int(float(inside))
    assert_usage_error(parse(capsys, "lsm-shape", flag, outside), f"argument {flag}")
