"""Helpers for running the ``minidb`` command in-process."""

import pytest

from minidb.cli import main


@pytest.fixture
def cli(capsys):
    """``cli(*argv)`` runs ``minidb argv`` and returns (exit code, stdout, stderr); argparse exits become codes."""

    def run(*argv):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as e:
            code = e.code
        out, err = capsys.readouterr()
        return code, out, err

    return run


def assert_usage_error(result, *fragments):
    """A bad argument: exit code 2, nothing on stdout, one line on stderr containing every fragment."""
    code, out, err = result
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    for fragment in fragments:
        assert fragment in err, err
