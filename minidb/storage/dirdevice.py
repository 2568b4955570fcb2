"""DirDevice: a device whose files are real files in one directory, for persistence and process-kill tests.

``sync`` is a real ``fsync``; ``rename`` and ``delete`` also fsync the directory so that they are durable at once,
the same promise ``SimDevice`` makes. Counting, capacity and injected failures come from ``Device``, so the same
calls give the same ``IOStats`` as on a ``SimDevice``.

A real ``ENOSPC`` (or any ``OSError``) in the middle of a write is undone before the error reaches the caller:
the file gets back its old length and any bytes the failed write overwrote, so a failed write changes nothing; a
full disk is reported as ``NoSpaceError`` naming the file and the operation.

The database lock (``lock()``) is ``flock(LOCK_EX | LOCK_NB)`` on the file ``LOCK`` in the directory and on the
directory itself, each held on a descriptor of its own: the kernel refuses them to any other open, in this process
or another, and drops them when the process dies, so a killed engine never leaves a stale lock behind. The lock on
the ``LOCK`` file is the one people and older tools see; the lock on the directory is the one that cannot be lost:
deleting or replacing ``LOCK`` while a writer has the database open frees nothing, since a new ``LOCK`` is another
file but the directory is the same (checking the file's inode on every write would notice only later, and cost a
``stat`` per write). The ``LOCK`` file itself stays (it holds no data, and is not listed among the device's files).
"""

from __future__ import annotations

import errno
import fcntl
import os

from ..errors import CorruptionError, NoSpaceError
from .device import LOCK_FILE, Device


class DirDevice(Device):
    """Files in directory ``path`` (created if missing). Only plain names directly inside it are files."""

    def __init__(self, path: str | os.PathLike, capacity: int | None = None, stats=None) -> None:
        super().__init__(capacity, stats)
        self.path = os.fspath(path)  # directory holding the files
        os.makedirs(self.path, exist_ok=True)
        self._fds: dict[str, int] = {}  # name -> open OS file descriptor, opened on first use
        self._lock_fd: int | None = None  # descriptor holding the flock on LOCK while lock() is held
        self._dir_lock_fd: int | None = None  # descriptor holding the flock on the directory meanwhile
        self._lock_token: object | None = None  # the holder's token (a descriptor number can be reused)
        self._used = sum(self._size(n) for n in self._list())

    def __repr__(self) -> str:
        return f"DirDevice({self.path!r}, used={self._used}, capacity={self._capacity})"

    def close(self) -> None:
        """Close every OS file descriptor and drop the lock (files stay on disk; the device can still be used)."""
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        self._unlock(self._lock_token)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _fd(self, name: str) -> int:
        fd = self._fds.get(name)
        if fd is None:
            try:
                fd = self._fds[name] = os.open(self._p(name), os.O_RDWR | os.O_CREAT, 0o644)
            except IsADirectoryError:
                # Damage to the database's directory, not a failed IO: one error type for every kind of damage.
                raise CorruptionError(f"{self._p(name)} is a directory where a database file should be") from None
            except OSError as exc:
                _raise_no_space(exc, "create", name)
                raise
        return fd

    def _p(self, name: str) -> str:
        return os.path.join(self.path, name)

    def _sync_dir(self) -> None:
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def _forget(self, name: str) -> None:
        fd = self._fds.pop(name, None)
        if fd is not None:
            os.close(fd)

    # -- primitives ---------------------------------------------------------------------------------------------------
    def _try_lock(self) -> object | None:
        if self._lock_fd is not None:
            return None  # flock would let this descriptor take it twice: one holder per device object too
        dir_fd = _flocked(os.open(self.path, os.O_RDONLY | os.O_DIRECTORY))
        if dir_fd is None:
            return None
        try:
            fd = os.open(self._p(LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o644)
        except IsADirectoryError:
            os.close(dir_fd)
            raise CorruptionError(f"{self._p(LOCK_FILE)} is a directory where the database's lock file should be") \
                from None
        fd = _flocked(fd)
        if fd is None:
            os.close(dir_fd)
            return None
        self._lock_fd, self._dir_lock_fd, self._lock_token = fd, dir_fd, object()
        return self._lock_token

    def _unlock(self, token: object | None) -> None:
        if token is not None and self._lock_token is token:
            os.close(self._lock_fd)  # closing a descriptor releases its flock
            os.close(self._dir_lock_fd)
            self._lock_fd = self._dir_lock_fd = self._lock_token = None

    def _exists(self, name: str) -> bool:
        return os.path.isfile(self._p(name))

    def _list(self) -> list[str]:
        return [e.name for e in os.scandir(self.path) if e.is_file() and e.name != LOCK_FILE]

    def _create(self, name: str) -> None:
        self._fd(name)

    def _size(self, name: str) -> int:
        return os.fstat(self._fd(name)).st_size

    def _pread(self, name: str, offset: int, n: int) -> bytes:
        fd = self._fd(name)
        chunks, got = [], 0
        while got < n:
            chunk = os.pread(fd, n - got, offset + got)
            if not chunk:
                raise OSError(f"short read of {name!r}: {got} of {n} bytes at offset {offset}")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _pwrite(self, name: str, offset: int, data: bytes) -> None:
        fd = self._fd(name)
        size = os.fstat(fd).st_size
        overlap = os.pread(fd, max(0, min(size, offset + len(data)) - offset), offset) if offset < size else b""
        done = 0
        try:
            view = memoryview(data)
            while done < len(data):
                done += os.pwrite(fd, view[done:], offset + done)
        except OSError as exc:
            # Undo the partial write so that a failed write changes nothing.
            os.ftruncate(fd, size)
            if overlap:
                os.pwrite(fd, overlap, offset)
            _raise_no_space(exc, "write", name, f"{len(data)} bytes at offset {offset}")
            raise

    def _sync(self, name: str) -> None:
        try:
            os.fsync(self._fd(name))
        except OSError as exc:
            _raise_no_space(exc, "sync", name)
            raise

    def _truncate(self, name: str, size: int) -> None:
        fd = self._fd(name)
        os.ftruncate(fd, size)
        os.fsync(fd)

    def _delete(self, name: str) -> None:
        self._forget(name)
        os.unlink(self._p(name))
        self._sync_dir()

    def _rename(self, src: str, dst: str) -> None:
        self._forget(src)
        self._forget(dst)
        os.replace(self._p(src), self._p(dst))
        self._sync_dir()


def _flocked(fd: int) -> int | None:
    """``fd`` holding an exclusive flock, or None (``fd`` closed) if another descriptor holds one."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _raise_no_space(exc: OSError, operation: str, name: str, detail: str = "") -> None:
    """Re-raise a real ENOSPC as NoSpaceError naming the file and the operation; other errors pass through."""
    if exc.errno == errno.ENOSPC and not isinstance(exc, NoSpaceError):
        raise NoSpaceError(operation, name, detail or os.strerror(exc.errno)) from exc
