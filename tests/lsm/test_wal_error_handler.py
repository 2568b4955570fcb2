"""The WAL error handler seam (wal_error_handler.py): what the engine asks a plugged-in handler, and its checks."""

from __future__ import annotations

import pytest

from minidb.errors import ReadOnlyError
from minidb.kv import WriteBatch
from minidb.lsm import open_lsm
from minidb.storage import SimDevice


class Recorder:
    """A handler that refuses after ``refuse_after`` failures and answers ``fail`` to each; records its calls."""

    def __init__(self, fail=True, refuse_after=1):
        self.fail, self.refuse_after, self.errors, self.asked = fail, refuse_after, [], 0

    def before_write(self):
        self.asked += 1
        return "stopped" if len(self.errors) >= self.refuse_after else None

    def on_wal_write_error(self, message):
        self.errors.append(message)
        return self.fail


def _batch(i):
    batch = WriteBatch()
    batch.put("primary", b"k%04d" % i, b"v" * 200)
    return batch


def _full_engine(handler):
    """An engine with one acknowledged write whose disk then holds only half of the next WAL record."""
    device = SimDevice()
    device.short_writes = True
    engine = open_lsm(device, on_wal_write_error=handler)
    engine.write(_batch(0))
    device.capacity = device.used + 100
    return device, engine


def test_a_failed_wal_write_fails_and_the_handler_refuses_the_next():
    handler = Recorder()
    device, engine = _full_engine(handler)
    with pytest.raises(OSError):
        engine.write(_batch(1))
    assert len(handler.errors) == 1 and "no space" in handler.errors[0]
    device.capacity = None
    with pytest.raises(ReadOnlyError, match="refused by the WAL error handler: stopped"):
        engine.write(_batch(2))
    assert handler.asked == 3 and engine.counters["lost_acked_writes"] == 0
    engine.close()


def test_without_a_refusal_the_engine_keeps_no_error_state_of_its_own():
    # The handler is the error handler: the engine does not turn read-only by itself after a WAL error.
    handler = Recorder(refuse_after=99)
    device, engine = _full_engine(handler)
    with pytest.raises(OSError):
        engine.write(_batch(1))
    device.capacity = None
    engine.write(_batch(2))
    assert [k for k, _ in engine.scan("primary")] == [b"k0000", b"k0002"]
    engine.close()


def test_acknowledging_a_failed_write_is_counted_as_lost():
    handler = Recorder(fail=False, refuse_after=99)
    device, engine = _full_engine(handler)
    engine.write(_batch(1))  # no error reaches the client
    assert engine.counters["lost_acked_writes"] == 1
    assert engine.get("primary", b"k0001") is None
    engine.close()


@pytest.mark.parametrize("handler, message", [
    ("stop", "'read_only', 'abort' or a handler"),
    (object(), "needs a function before_write"),
])
def test_bad_handler_option(handler, message):
    with pytest.raises(ValueError, match=message):
        open_lsm(SimDevice(), on_wal_write_error=handler)


def test_the_2018_switch_and_a_handler_exclude_each_other():
    with pytest.raises(ValueError, match="choose one"):
        open_lsm(SimDevice(), on_wal_write_error=Recorder(), reproduce_2018_disk_full_bug=True)


class BadAnswers(Recorder):
    def __init__(self, refusal, failure):
        super().__init__()
        self.refusal, self.failure = refusal, failure

    def before_write(self):
        return self.refusal

    def on_wal_write_error(self, message):
        return self.failure


def test_a_refusal_must_be_none_or_a_reason():
    engine = open_lsm(SimDevice(), on_wal_write_error=BadAnswers(False, True))
    with pytest.raises(ValueError, match="before_write\\(\\) returned False"):
        engine.write(_batch(0))
    engine.close()


def test_an_answer_to_an_error_must_be_a_bool():
    device, engine = _full_engine(Recorder())
    engine.failures.handler = BadAnswers(None, "yes")
    with pytest.raises(ValueError, match="on_wal_write_error\\(\\) returned 'yes'"):
        engine.write(_batch(1))
    device.capacity = None
    engine.close()
