"""WalErrorHandler: the plug point for what the write path does after a failed WAL write (exercise 07,
minidb/plug_point.py).

A write is acknowledged when ``write()`` returns: the client then believes the row is durable. If the WAL append
failed (a full disk, seed 004) and the engine returns anyway, the row exists only in a memtable, or nowhere, and
the next crash or restart loses an acknowledged write: MyRocks' 2018 disk-full bug. RocksDB's answer is to treat a
failed WAL write as a hard error and refuse every later write until the cause is fixed.

The engine's own behaviours are chosen by name (``on_wal_write_error="read_only"`` or ``"abort"``, engine.py). A
student's handler passed as ``on_wal_write_error=handler`` replaces them: the engine keeps no error state of its
own for failed WAL writes and asks the handler instead. A handler is an instance of any class with the functions
of ``WalErrorHandler``:

* ``before_write() -> str | None``: asked before every write; None lets it through, a reason refuses it (the
  engine raises ReadOnlyError naming the reason, and writes nothing).
* ``on_wal_write_error(message: str) -> bool``: told that the WAL append of the current write failed (``message``
  is the OSError's text); True fails that write (the client gets the OSError), False acknowledges it anyway, which
  is the 2018 bug: the engine counts the rows in ``lost_acked_writes``.

A reopened database starts with whatever handler the open passes: recovery replays the WAL, in which every write
that was acknowledged correctly is whole.
"""

from __future__ import annotations

from ..plug_point import PlugPoint

BEHAVIOURS = ("read_only", "abort")  # the engine's own behaviours, chosen by name instead of a handler


class WalErrorHandler(PlugPoint, option="on_wal_write_error"):
    """The interface of a WAL error handler (a plug point): ``before_write`` and ``on_wal_write_error``."""

    def before_write(self) -> str | None:
        """None to let the next write through, or why it is refused."""
        raise NotImplementedError

    def on_wal_write_error(self, message: str) -> bool:
        """True to fail the write whose WAL append failed with ``message``, False to acknowledge it anyway."""
        raise NotImplementedError


def check_handler(handler) -> None:
    """Raise ValueError unless ``handler`` names one of the engine's behaviours or is a ``WalErrorHandler``."""
    if isinstance(handler, str):
        if handler not in BEHAVIOURS:
            raise ValueError(f"bad option on_wal_write_error={handler!r}: 'read_only', 'abort' or a handler "
                             f"object with {' and '.join(m + '()' for m in WalErrorHandler.functions)}")
        return
    WalErrorHandler.check(handler)


def refusal(handler) -> str | None:
    """The handler's reason to refuse the next write (None: let it through); ValueError if the answer is not one."""
    reason = handler.before_write()
    if reason is not None and not (isinstance(reason, str) and reason):
        raise ValueError(f"WAL error handler {handler!r}: before_write() returned {reason!r}; it must return None "
                         f"or a non-empty str saying why the write is refused")
    return reason


def fails_the_write(handler, exc: OSError) -> bool:
    """Whether the write whose WAL append raised ``exc`` must fail (True) or be acknowledged anyway (False)."""
    answer = handler.on_wal_write_error(str(exc))
    if not isinstance(answer, bool):
        raise ValueError(f"WAL error handler {handler!r}: on_wal_write_error() returned {answer!r}; it must return "
                         f"True (fail the write) or False (acknowledge it anyway)")
    return answer
