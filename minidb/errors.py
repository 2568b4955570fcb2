"""The exceptions every part of minidb raises, in one place so callers can catch them by meaning.

Wrong arguments raise the built-in ``ValueError``; failed IO raises the built-in ``OSError`` (with its ``errno``,
e.g. ``ENOSPC`` for a full device). The classes below are for what has no built-in name.
"""


class MiniDBError(Exception):
    """Base class of every minidb-specific error."""


class CorruptionError(MiniDBError):
    """Stored bytes fail their checksum or their format: the message names the file and the page or offset."""


class DeviceCrashed(MiniDBError):
    """An injected crash fired: the device dropped what was not synced, and every handle opened before is dead.

    Tests catch it, then reopen the engine on the same device, exactly as a restarted server would.
    """


class ReadOnlyError(MiniDBError):
    """The engine hit a background IO error (e.g. a full disk) and refuses writes until ``resume()`` succeeds."""


class EngineStopped(MiniDBError):
    """The engine stopped after a log write failed, as a server aborts (MyRocks after its 2018 fix, InnoDB on a
    redo write error): it refuses every call; reopen the database (or ``resume()`` it where the engine can) once the
    cause, e.g. a full disk, is gone. Recovery from the log then loses nothing that was acknowledged."""


class TableFullError(OSError, MiniDBError):
    """The tablespace could not grow (a full disk): InnoDB's error 1114, "The table is full". The statement is
    rolled back and the engine keeps running. An ``OSError`` with ``errno`` ENOSPC, so callers that test for a full
    disk that way see it as one."""
