"""What a B+tree engine does when an operation fails, InnoDB's rules kept by one object (RocksDB's ErrorHandler in
spirit):

* after ``DeviceCrashed`` the engine is dead: every call raises, naming the crash; reopen the database
  (``open_btree(device)``), as a restarted server would;
* after a failed redo write (``NoSpaceError`` for a full disk, else ``RedoWriteError``) it stops: InnoDB cannot
  run without its log and aborts; here every call raises ``EngineStopped`` until ``resume()`` recovers it in place
  once space is back;
* after any other error in the middle of a change (an IO error, a full tablespace, a corrupt page), what the open
  batch changed is undone by rebuilding the engine's state from the tablespace and the log (``recover_in_place``),
  which rolls the batch back; if that fails as well, the engine is dead.

``guard()`` wraps every operation that may change pages: it hands a failure to ``failed``, then re-raises it.
Either way nothing acknowledged is lost: a commit is acknowledged only after its redo write.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..errors import CorruptionError, DeviceCrashed, EngineStopped, MiniDBError, ReadOnlyError


class Failures:
    """The failure state of one engine and what it does about a failure (see the module docstring). It rebuilds
    the engine's state (``engine``, which holds it) from the device when a failure calls for it."""

    def __init__(self, engine) -> None:
        self.engine = engine  # the BTreeEngine whose failures these are
        self.dead: BaseException | None = None  # why the engine refuses work (a crash, a stop), or None
        self.closed = False  # close() was called

    @property
    def stopped(self) -> bool:
        """True after a failed redo write stopped the engine (until ``resume()`` recovers it in place)."""
        return isinstance(self.dead, EngineStopped)

    def check_usable(self) -> None:
        """ValueError if the engine is closed; the failure that killed or stopped it, if one did."""
        if self.closed:
            raise ValueError("the B+tree engine is closed")
        if self.dead is not None:
            raise type(self.dead)(f"the B+tree engine stopped after {self.dead!r}: reopen the database with "
                                  f"open_btree(device) to recover it")

    def check_writable(self) -> None:
        """``check_usable``, and ReadOnlyError if the engine was opened read-only."""
        self.check_usable()
        if self.engine.read_only:
            raise ReadOnlyError("the B+tree engine was opened with read_only=True: it refuses writes")

    @contextmanager
    def guard(self):
        """Run the block; if anything in it fails, handle the failure (``failed``) and re-raise it."""
        try:
            yield
        except BaseException as exc:
            self.failed(exc)
            raise

    def failed(self, exc: BaseException) -> None:
        """An operation failed with ``exc``: the engine dies, stops, or recovers in place (the module docstring)."""
        engine = self.engine
        mtrs = engine.mtrs
        mtr = mtrs.take()
        engine.pager.release()
        if isinstance(exc, DeviceCrashed):
            self.dead = exc
            return
        if getattr(exc, "redo_write_failed", False):  # a NoSpaceError or RedoWriteError of the redo log
            self.dead = EngineStopped(f"{exc.strerror}: InnoDB cannot run without its redo log and aborts; free "
                                      f"space, then resume() (or reopen the database)")
            engine.counters["stops"] += 1
            return
        # Nothing to undo only if the open mtr logged nothing and noted no undo: a change is made to its page after
        # its undo is noted and before its redo record is appended, so a failure between the two leaves a change
        # that only the undo knows of
        if (mtr is None or (mtr.nrecords == 0 and mtr.undo.nrecords == 0 and not mtr.frames)) and not mtrs.groups:
            engine.pool.end()
            return
        engine.counters["rollbacks"] += 1
        try:
            self.recover_in_place()
        except BaseException as again:
            self.dead = again if isinstance(again, (DeviceCrashed, CorruptionError)) else MiniDBError(
                f"recovering after {exc!r} failed: {again!r}")
        mtrs.version += 1

    def recover_in_place(self) -> None:
        """Rebuild the engine's state from the tablespace and the redo log, as a reopen would: the open batch (or
        in-place transaction) is rolled back."""
        self.engine.rebuild()

    def resume(self) -> None:
        """``BTreeEngine.resume``: recover a stopped engine in place; the recovery's error if it fails again."""
        if self.closed:
            raise ValueError("the B+tree engine is closed")
        if self.dead is None:
            return
        if not isinstance(self.dead, EngineStopped):
            self.check_usable()  # raises: only a reopen recovers from a crash
        engine = self.engine
        engine.mtrs.take()
        engine.mtrs.groups = 0
        self.recover_in_place()
        self.dead = None
        engine.mtrs.version += 1
        engine.counters["resumes"] += 1
