"""Hidden graded tests of exercise 07, the WAL error handler: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it.
"""

from __future__ import annotations

import pytest

from minidb.errors import ReadOnlyError
from minidb.kv import WriteBatch
from minidb.storage import DirDevice

lsm = pytest.importorskip("minidb.lsm")


@pytest.mark.points(1)
@pytest.mark.hidden
def test_first_error_is_kept(wal_errors):
    """A later error does not replace the first one in the reason: the first is the cause, the rest follow."""
    handler = wal_errors.StopOnWalError()
    handler.on_wal_write_error("first: no space")
    handler.on_wal_write_error("second: no space")
    assert "first: no space" in handler.before_write()


@pytest.mark.points(2)
@pytest.mark.hidden
def test_real_directory_full(wal_errors, tmp_path):
    """On a real directory that fills up: the failed write raises, the next is refused, the reopen has every
    acknowledged row and nothing else."""
    device = DirDevice(tmp_path / "db")
    engine = lsm.open_lsm(device, memtable_bytes=16 << 10, on_wal_write_error=wal_errors.StopOnWalError())
    device.capacity = device.used + 5000  # room for a few writes of about 1 KB
    acked, outcome = [], []
    for i in range(20):
        batch = WriteBatch()
        batch.put("primary", b"k%04d" % i, b"x" * 1000)
        try:
            engine.write(batch)
            acked.append(b"k%04d" % i)
        except (OSError, ReadOnlyError) as exc:
            outcome.append(type(exc))
            if len(outcome) == 2:
                break
    assert outcome[0] is not ReadOnlyError and issubclass(outcome[0], OSError), outcome
    assert outcome[1] is ReadOnlyError, outcome
    device.capacity = None
    engine.close()
    engine = lsm.open_lsm(DirDevice(tmp_path / "db"))
    assert [k for k, _ in engine.scan("primary")] == acked
    engine.close()
