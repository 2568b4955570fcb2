"""Graded tests of exercise 07, the WAL error handler, on its own. Run them with ``pytest exercises/07_wal_errors``.

The ``wal_errors`` fixture is your module (``--student PATH`` grades another file or folder instead). The tests
inside the engine are in ``test_wal_errors_in_lsm.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable

ENOSPC = "[Errno 28] No space left on device: append 000004.log"  # what a full disk's OSError says


@pytest.mark.points(1)
def test_writes_go_through_before_any_error(wal_errors):
    """A new handler lets writes through: before_write() returns None, however often it is asked."""
    handler = wal_errors.StopOnWalError()
    answers = [handler.before_write() for _ in range(3)]
    assert answers == [None, None, None], (
        f"before_write() of a handler that has seen no error returned {answers}: None lets a write through, "
        f"anything else refuses it"
    )


@pytest.mark.points(2)
def test_the_failed_write_fails(wal_errors):
    """on_wal_write_error() returns True: the write whose WAL append failed is not acknowledged."""
    answer = wal_errors.StopOnWalError().on_wal_write_error(ENOSPC)
    assert answer is True, (
        f"on_wal_write_error() returned {answer!r}: True fails the write, so the client learns it was not "
        f"written; False would acknowledge rows that are in no file (MyRocks' 2018 bug)"
    )


@pytest.mark.points(2)
def test_writes_after_an_error_are_refused_with_it(wal_errors):
    """After a failed WAL write, before_write() refuses every write, with a reason that contains the error."""
    handler = wal_errors.StopOnWalError()
    handler.on_wal_write_error(ENOSPC)
    for attempt in range(3):
        reason = handler.before_write()
        assert isinstance(reason, str) and reason, (
            f"write {attempt + 1} after a failed WAL write: before_write() returned {reason!r}; it must refuse "
            f"(a non-empty str), since the engine cannot know what the failed append left behind"
        )
        assert ENOSPC in reason, f"the reason {reason!r} does not contain the error's message {ENOSPC!r}"


@pytest.mark.points(3)
@repeatable
@given(events=st.lists(st.sampled_from(["write", "error"]), max_size=20))
def test_refuses_exactly_after_the_first_error(wal_errors, events):
    """Any sequence of writes and WAL errors: a write is refused if and only if an error came before it."""
    handler = wal_errors.StopOnWalError()
    errors_seen = 0  # the model: how many WAL errors the handler was told of
    for i, event in enumerate(events):
        if event == "error":
            errors_seen += 1
            assert handler.on_wal_write_error(f"error {errors_seen}") is True, f"event {i}: the write must fail"
            continue
        reason = handler.before_write()
        if errors_seen == 0:
            assert reason is None, f"event {i} ({events[:i + 1]}): no error yet, yet the write is refused: {reason!r}"
        else:
            assert isinstance(reason, str) and "error 1" in reason, (
                f"event {i} ({events[:i + 1]}): after {errors_seen} error(s) before_write() returned {reason!r}; "
                f"it must refuse, naming the first error ('error 1')"
            )
