"""What the LSM engine does when a write fails: seed 004's disk-full behaviours, kept by one object.

A failed WAL write or a background error (a flush or a compaction that hit a full disk, scheduler.py) meets one of
these:

* by default (RocksDB since 2018) the failed write raises OSError and the engine turns read-only: every later write
  raises ReadOnlyError until ``resume()`` succeeds once space is freed;
* with ``on_wal_write_error="abort"`` (MyRocks' fix for PS-4706) the engine stops: this write and every later call
  raise EngineStopped, until the database is reopened, which recovers it from the WAL;
* with ``reproduce_2018_disk_full_bug`` the error is swallowed and the batch silently dropped, as MyRocks did before
  its fix: the client believes it was written (counted in ``lost_acked_writes``);
* with a handler (``on_wal_write_error=handler``, wal_error_handler.py) the handler decides whether a write is
  refused before it starts and whether a failed WAL write fails its write or is acknowledged anyway.
"""

from __future__ import annotations

from ..errors import EngineStopped, ReadOnlyError
from .wal_error_handler import fails_the_write, refusal


class Failures:
    """The failure state of one LSM engine (``engine``, which holds it); see the module docstring."""

    def __init__(self, engine) -> None:
        self.engine = engine  # the LSMEngine whose writes these are
        self.stop_reason: str | None = None  # why the engine stopped (on_wal_write_error="abort"); reopen to recover
        # A plugged-in handler of failed WAL writes (wal_error_handler.py), or None for the named behaviours.
        options = engine.db.on_wal_write_error
        self.handler = None if isinstance(options, str) else options

    def check_open(self) -> None:
        """ValueError if the engine is closed, EngineStopped if it stopped."""
        if self.engine.closed:
            raise ValueError("the LSM engine is closed")
        if self.stop_reason is not None:
            raise EngineStopped(f"the LSM engine stopped ({self.stop_reason}); reopen the database to recover it")

    def check_writable(self) -> None:
        """``check_open``, and ReadOnlyError while a background error stands or the engine was opened read-only."""
        self.check_open()
        if self.engine.scheduler.error is not None or self.engine.read_only:
            raise self.read_only_error()

    def read_only_error(self) -> ReadOnlyError:
        """The error a refused write raises: opened read-only, or a background error (the scheduler's)."""
        if self.engine.read_only:
            return ReadOnlyError("the LSM engine was opened with read_only=True: it refuses writes")
        return self.engine.scheduler.read_only_error()

    def before_write(self) -> None:
        """Refuse a write on a read-only engine, or one the plugged-in handler refuses (ReadOnlyError)."""
        if self.engine.read_only:
            raise self.read_only_error()
        if self.handler is not None:
            reason = refusal(self.handler)
            if reason is not None:
                raise ReadOnlyError(f"write refused by the WAL error handler: {reason}")

    def acknowledged(self, exc: BaseException, batch) -> bool:
        """The write of ``batch`` failed with ``exc``: True if it is acknowledged anyway (the 2018 bug, or a handler
        that says so; its rows counted as lost), False if it fails; EngineStopped if the engine stops on it."""
        handler = self.handler
        counters = self.engine.counters
        acknowledged = self.engine.db.reproduce_2018_disk_full_bug or (
            handler is not None and getattr(exc, "wal_write_failed", False) and not fails_the_write(handler, exc))
        if acknowledged:
            # The 2018 bug: MyRocks ignored the error status RocksDB returned and reported success.
            # A handler that acknowledges a failed WAL write makes the same mistake, counted the same way.
            if not getattr(exc, "record_kept", False):  # (a kept record was applied after all: not lost)
                counters["lost_acked_writes"] += len(batch.ops)
                counters["lost_acked_batches"] += 1
            return True
        if self.engine.db.on_wal_write_error == "abort":
            self.stop(exc)
        return False

    def stop(self, exc: BaseException) -> None:
        """Stop the engine after a failed write, as MyRocks aborts the server ("aborting on WAL write error")."""
        self.stop_reason = f"a write failed: {exc}"
        self.engine.counters["stops"] += 1
        raise EngineStopped(f"the LSM engine stopped ({self.stop_reason}), as MyRocks aborts on a WAL write error; "
                            f"free space, then reopen the database (recovery replays the WAL)") from exc
