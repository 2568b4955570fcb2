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
