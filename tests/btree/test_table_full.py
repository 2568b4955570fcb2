"""The B+tree on a full disk, as InnoDB behaves: "table is full" for the statement that needs a new page (the
engine keeps running), a failed redo write stops the engine until resume(); nothing acknowledged is ever lost."""

import errno
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.errors import DeviceCrashed, EngineStopped, NoSpaceError, TableFullError
from minidb.kv import WriteBatch

from .helpers import small_engine

KEY = struct.Struct(">I")


def rows(start, n, size=200):
    b = WriteBatch()
    for i in range(start, start + n):
        b.put("t", KEY.pack(i), bytes([i % 251]) * size)
    return b


def contents(engine):
    return dict(engine.scan("t"))


def model(n):
    return {KEY.pack(i): bytes([i % 251]) * 200 for i in range(n)}


def loaded(n=200):
    engine, device = small_engine()
    engine.write(rows(0, n))
    engine.flush()
    return engine, device


def test_the_tablespace_grows_when_a_page_is_allocated_not_when_it_is_written():
    engine, device = loaded()
    pages = engine.stats(trees=False)["space"]["pages"]
    assert engine.tablespace.size == pages * engine.page_size
    engine.write(rows(200, 100))  # new pages, in the pool, not yet written back
    assert engine.tablespace.size == engine.stats(trees=False)["space"]["pages"] * engine.page_size


def test_a_statement_that_needs_a_page_the_disk_cannot_give_gets_table_full_and_the_engine_goes_on():
    engine, device = loaded()
    size = engine.tablespace.size
    device.capacity = device.used + engine.page_size - 1  # one byte short of a page
    big = rows(200, 30)  # needs new pages before it writes any redo
    with pytest.raises(TableFullError) as info:
        engine.write(big)
    assert info.value.errno == errno.ENOSPC and isinstance(info.value, OSError)
    assert "The table is full" in str(info.value) and "1114" in str(info.value)
    assert contents(engine) == model(200)  # rolled back
    assert engine.tablespace.size == size
    b = WriteBatch()
    b.put("t", KEY.pack(5), b"x" * 200)  # an update in place needs no page: the engine kept running
    engine.write(b)
    assert contents(engine)[KEY.pack(5)] == b"x" * 200
    device.capacity = None
    engine.write(big)
    assert len(contents(engine)) == 230


def test_exactly_one_page_of_room_is_enough_for_one_new_page():
    engine, device = loaded()
    pages = engine.stats(trees=False)["space"]["pages"]
    device.capacity = device.used + engine.page_size
    engine.tablespace.extend(pages + 1)  # N bytes: fits
    with pytest.raises(TableFullError):
        engine.tablespace.extend(pages + 2)  # one more byte would be needed


def test_a_failed_redo_write_stops_the_engine_until_resume():
    engine, device = loaded()
    engine.tablespace.extend(engine.stats(trees=False)["space"]["pages"] + 64)  # pages are not the problem
    device.capacity = device.used + 100  # the redo of the next commit does not fit
    with pytest.raises(NoSpaceError) as info:  # errors.py's error for a full disk, naming the file it hit
        engine.write(rows(200, 20))
    assert info.value.errno == errno.ENOSPC and "redo-" in info.value.filename
    for call in (lambda: engine.get("t", KEY.pack(1)), lambda: engine.write(rows(300, 1)), engine.flush):
        with pytest.raises(EngineStopped, match="InnoDB cannot run without its redo log"):
            call()
    engine.resume()  # recovery needs no new space, so it succeeds on the full disk...
    with pytest.raises(OSError):
        engine.write(rows(200, 20))  # ... but the next commit stops the engine again
    with pytest.raises(EngineStopped):
        engine.get("t", KEY.pack(1))
    device.capacity = None
    engine.resume()
    assert contents(engine) == model(200)  # the failed commit was never acknowledged, everything else is there
    engine.write(rows(200, 20))
    assert len(contents(engine)) == 220 and engine.counters["resumes"] == 2


def test_resume_is_a_no_op_on_a_running_engine_and_refused_after_a_crash():
    engine, device = loaded()
    engine.resume()
    assert engine.counters["resumes"] == 0
    device.crash_at_io(1)
    with pytest.raises(DeviceCrashed):
        engine.write(rows(200, 50))
    with pytest.raises(DeviceCrashed, match="reopen the database"):
        engine.resume()


@settings(max_examples=25, deadline=None)
@given(extra=st.integers(0, 120_000), batches=st.lists(st.integers(1, 60), min_size=1, max_size=8))
def test_at_any_capacity_nothing_acknowledged_is_lost(extra, batches):
    """A dict model: every batch the engine acknowledged is there after the disk filled, space came back, the
    engine resumed and the database was reopened."""
    engine, device = small_engine()
    engine.write(rows(0, 50))
    device.capacity = device.used + extra
    acked = model(50)
    start = 50
    for n in batches:
        try:
            engine.write(rows(start, n))
            acked.update({KEY.pack(i): bytes([i % 251]) * 200 for i in range(start, start + n)})
        except (OSError, EngineStopped):
            pass
        start += n
    device.capacity = None
    engine.resume()
    assert contents(engine) == acked
    engine.close()
    engine, _ = small_engine(device)
    assert contents(engine) == acked
