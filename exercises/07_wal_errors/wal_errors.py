"""Exercise 07: what the LSM engine's write path does after a failed WAL write. Fill in every NotImplementedError.

A write is *acknowledged* when ``engine.write()`` returns: the client then believes its rows are durable. The
engine first appends the write to its write-ahead log (WAL), then applies it to the memtable. If the append fails
(the disk is full) and the engine returns anyway, the rows are in no file: the next restart loses them. That is
MyRocks' 2018 disk-full bug (chapter 7). The fix: a failed WAL write fails its write, and every later write is
refused until the database is reopened once space is freed (recovery replays the WAL, where every acknowledged
write is whole).

Your ``StopOnWalError`` is the engine's error handler: pass it as ``open_lsm(device, on_wal_write_error=handler)``
and the engine asks it, before each write, whether to refuse it, and tells it when a WAL append failed
(minidb/lsm/wal_error_handler.py states the contract). ``pytest exercises/07_wal_errors`` grades your work.
"""

from __future__ import annotations


class StopOnWalError:
    """A WAL error handler that fails the write whose WAL append failed and refuses every write after it."""

    def __init__(self) -> None:
        """Start with no error seen: writes go through."""
        raise NotImplementedError("StopOnWalError.__init__: remember that no WAL write has failed yet")

    def before_write(self) -> str | None:
        """Asked before every write: None lets it through; once a WAL write has failed, a reason to refuse it, a
        str that contains the message of the first failed write (the client's only clue to what went wrong)."""
        raise NotImplementedError("StopOnWalError.before_write: see the notebook, section 'Refuse what follows'")

    def on_wal_write_error(self, message: str) -> bool:
        """Told that a WAL append failed with ``message``: remember the first such message, and return True, which
        fails this write (False would acknowledge it anyway, the 2018 bug)."""
        raise NotImplementedError("StopOnWalError.on_wal_write_error: see the notebook, section 'Fail the write'")
