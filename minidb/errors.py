"""The exceptions every part of minidb raises, in one place so callers can catch them by meaning.

Wrong arguments raise the built-in ``ValueError``; failed IO raises the built-in ``OSError`` (with its ``errno``,
e.g. ``ENOSPC`` for a full device). The classes below are for what has no built-in name.
"""

import errno


class MiniDBError(Exception):
    """Base class of every minidb-specific error."""


class CorruptionError(MiniDBError):
    """Stored bytes fail their checksum or their format: the message names the file and the page or offset."""


class DeviceCrashed(MiniDBError):
    """An injected crash fired: the device dropped what was not synced, and every handle opened before is dead.

    Tests catch it, then reopen the engine on the same device, exactly as a restarted server would.
    """


class ReadOnlyError(MiniDBError):
    """The engine refuses writes: it hit a background IO error (e.g. a full disk) and waits for ``resume()``, or it
    was opened with ``read_only=True``."""


class EngineStopped(MiniDBError):
    """The engine stopped after a log write failed, as a server aborts (MyRocks after its 2018 fix, InnoDB on a
    redo write error): it refuses every call; reopen the database (or ``resume()`` it where the engine can) once the
    cause, e.g. a full disk, is gone. Recovery from the log then loses nothing that was acknowledged."""


class TableFullError(OSError, MiniDBError):
    """The tablespace could not grow (a full disk): InnoDB's error 1114, "The table is full". The statement is
    rolled back and the engine keeps running. An ``OSError`` with ``errno`` ENOSPC, so callers that test for a full
    disk that way see it as one."""


class NotADatabaseError(CorruptionError):
    """A directory holds an engine's files but not the file that makes them a database (the LSM's ``CURRENT``, the
    B+tree's ``redo-checkpoint``): a database damaged or half deleted, never to be mistaken for an empty one.

    The message names the device and what is missing. It is a ``CorruptionError``: the stored state is not whole.
    """


class DatabaseExistsError(MiniDBError):
    """``error_if_exists=True`` and the device already holds a database (RocksDB's InvalidArgument "exists")."""


class DatabaseMissingError(MiniDBError):
    """``create_if_missing=False`` (or a read-only open) and the device holds no database."""


class DatabaseLockedError(MiniDBError):
    """Another engine (in this process or another) holds the database's ``LOCK``: one writer at a time."""


class NoSpaceError(OSError):
    """A write found the device full: an ``OSError`` with ``errno.ENOSPC`` whose message names the file and the
    operation, so that ``isinstance(e, OSError) and e.errno == ENOSPC`` checks keep working."""

    def __init__(self, operation: str, filename: str, detail: str = "") -> None:
        message = f"no space left on device: {operation} of {filename!r}" + (f" ({detail})" if detail else "")
        super().__init__(errno.ENOSPC, message, filename)
        self.operation = operation  # 'write', 'sync', 'create', ...
        self.detail = detail  # sizes and offsets, or the OS's words

    def __reduce__(self):  # OSError pickles its args, which are not this constructor's (a worker process sends it)
        return type(self), (self.operation, self.filename, self.detail)
