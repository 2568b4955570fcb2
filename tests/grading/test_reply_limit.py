"""The sandbox's reply limit at its boundary: a reply of exactly ``MAX_REPLY`` bytes is read, one byte more ends
the sandbox with a clear error."""

import marshal
import os

import pytest

from minidb.grading import sandbox
from minidb.grading import sandbox_server as wire
from minidb.grading.sandbox import Sandbox, SubmissionCrashed

LIMIT = 1000  # the boundary is the same at any limit; a small one keeps the pipe small


@pytest.fixture
def receiving(monkeypatch):
    """``receive(value)``: send ``value`` as the sandbox would, and return what the grader side reads of it."""
    monkeypatch.setattr(sandbox, "MAX_REPLY", LIMIT)
    stopped = []
    sb = object.__new__(Sandbox)  # only the reading side: no process is started
    sb.stop = lambda: stopped.append(True)

    def receive(value):
        r, w = os.pipe()
        try:
            wire.send(w, value)
            sb.replies = r
            return sb._receive(), stopped
        finally:
            os.close(r)
            os.close(w)

    return receive


def test_a_reply_of_exactly_the_limit_is_accepted(receiving):
    value = ("ok", b"x" * (LIMIT - len(marshal.dumps(("ok", b"")))))
    assert len(marshal.dumps(value)) == LIMIT
    got, stopped = receiving(value)
    assert got == value and not stopped


def test_a_reply_one_byte_past_the_limit_ends_the_sandbox(receiving):
    value = ("ok", b"x" * (LIMIT + 1 - len(marshal.dumps(("ok", b"")))))
    assert len(marshal.dumps(value)) == LIMIT + 1
    with pytest.raises(SubmissionCrashed, match=f"a value of {LIMIT + 1} bytes, past the limit of {LIMIT}"):
        receiving(value)
