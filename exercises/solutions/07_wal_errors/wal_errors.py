"""Exercise 07, reference solution: stop acknowledging writes after a failed WAL write."""

from __future__ import annotations


class StopOnWalError:
    """A WAL error handler that fails the write whose WAL append failed and refuses every write after it."""

    def __init__(self) -> None:
        """Start with no error seen: writes go through."""
        self.first_error: str | None = None  # the message of the first failed WAL write, once there is one

    def before_write(self) -> str | None:
        """None while no WAL write has failed; afterwards a reason naming the first failure."""
        if self.first_error is None:
            return None
        return f"a WAL write failed ({self.first_error}); free space and reopen the database"

    def on_wal_write_error(self, message: str) -> bool:
        """Remember the first failure and fail this write: nothing the WAL does not hold is acknowledged."""
        if self.first_error is None:
            self.first_error = message
        return True
