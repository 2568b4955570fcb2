"""The Device interface: named files with positional reads and writes, every request counted in ``IOStats``.

An engine never touches the operating system directly. It opens files on a device::

    f = device.open("000012.sst", kind="sst", create=True)
    f.append(block)          # returns the offset the block was written at
    f.sync()                 # durability barrier: what was written survives a crash from now on
    data = f.read(0, 4096)   # exactly 4096 bytes or an error, never fewer

This base class does everything that does not depend on where the bytes live: argument checks, the capacity
limit (a write that would grow the files past ``capacity`` raises ``OSError(ENOSPC)`` and changes nothing, or,
with ``short_writes``, first writes the bytes that still fit, as POSIX ``write(2)`` returns a short count on a full
file system), injected failures (``fail_io``), and counting in ``self.stats``. Subclasses store the bytes: ``SimDevice`` in
memory, ``DirDevice`` in a real directory. Both count the same requests for the same calls.

Metadata operations (``truncate``, ``rename``, ``delete``) move no data and are not counted in ``IOStats``, but
they are *IO points*: steps at which a fault can be injected, like reads, writes and syncs.

**One writer.** ``lock()`` takes the database's ``LOCK``, as RocksDB and InnoDB hold one: a second engine opening
the same database for writing gets ``DatabaseLockedError`` naming the device instead of corrupting it. The lock is
the device's own (the name ``LOCK`` is reserved and never listed as a file): ``SimDevice`` keeps it in memory,
``DirDevice`` holds OS locks on a real ``LOCK`` file and on the directory, which the kernel releases when the
process dies (the directory's holds even if ``LOCK`` is deleted).

**A full device** raises ``NoSpaceError``, an ``OSError`` with ``errno.ENOSPC`` naming the file and the operation.
"""

from __future__ import annotations

import errno
import os
import re
from abc import ABC, abstractmethod

from ..errors import DatabaseLockedError, NoSpaceError
from .iostats import FILE_KINDS, IOStats

IO_POINTS = ("read", "write", "sync", "truncate", "rename", "delete")
LOCK_FILE = "LOCK"  # the device's lock file (see lock()); reserved, never an engine's file
_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def check_name(name: str) -> str:
    """Return ``name`` if it is a plain file name (letters, digits, '.', '_', '-'), else raise ValueError."""
    if not isinstance(name, str) or not _NAME.match(name) or name in (".", ".."):
        raise ValueError(f"bad file name {name!r}: use letters, digits, '.', '_' and '-' only")
    if name == LOCK_FILE:
        raise ValueError(f"bad file name {name!r}: reserved for the device's lock (see Device.lock)")
    return name


class File:
    """An open file on a device. Every method raises ValueError once the file is closed."""

    def __init__(self, device: Device, name: str, kind: str, generation: int) -> None:
        self.device = device  # the device holding the bytes
        self.name = name  # file name on the device
        self.kind = kind  # file kind, one of FILE_KINDS, used to label its IO
        self._generation = generation  # the device's crash generation when opened; a crash invalidates the file
        self.closed = False  # True after close()

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise ValueError(f"cannot {what} {self.name!r}: the file is closed")
        self.device._check_generation(self)

    @property
    def size(self) -> int:
        """Current length of the file in bytes (including unsynced writes)."""
        self._check_open("size")
        return self.device._size(self.name)

    def read(self, offset: int, n: int) -> bytes:
        """Return exactly ``n`` bytes at ``offset``; reading past the end raises ValueError."""
        self._check_open("read")
        _check_range(self.name, offset, n)
        size = self.device._size(self.name)
        if offset + n > size:
            raise ValueError(f"read past end of {self.name!r}: offset {offset} + {n} bytes > size {size}")
        self.device._io_point("read", self)
        data = self.device._pread(self.name, offset, n)
        cache = self.device.page_cache
        if cache is not None and cache.caches(self.kind) and cache.read(self.name, offset, n):
            cache.hits.record_like(self.device.stats, "read", self.kind, n)  # the OS served it: no device IO
        else:
            self.device.stats.record("read", self.kind, n)
        return data

    def write(self, offset: int, data: bytes) -> None:
        """Write ``data`` at ``offset`` (a gap past the end reads as zeros); ENOSPC if it would exceed capacity.

        Writing no bytes does nothing, wherever the offset is.
        """
        self._check_open("write")
        _check_range(self.name, offset, len(data))
        self.device._write(self, offset, bytes(data))

    def append(self, data: bytes) -> int:
        """Write ``data`` at the end of the file and return the offset it starts at."""
        self._check_open("append")
        offset = self.device._size(self.name)
        self.device._write(self, offset, bytes(data))
        return offset

    def sync(self) -> None:
        """Make every write so far durable: it survives a crash."""
        self._check_open("sync")
        self.device._io_point("sync", self)
        try:
            self.device._sync(self.name)
        except OSError as exc:
            if exc.errno == errno.ENOSPC and not isinstance(exc, NoSpaceError):
                raise NoSpaceError("sync", self.name, "data written earlier could not be stored") from exc
            raise
        self.device.stats.record("sync", self.kind)

    def allocate(self, size: int) -> None:
        """Reserve space so the file is at least ``size`` bytes long (``posix_fallocate``): the new bytes read as
        zeros; ENOSPC, changing nothing, if they do not fit. Moves no data, so IOStats counts nothing."""
        self._check_open("allocate")
        _check_range(self.name, size, 0)
        current = self.device._size(self.name)
        if size <= current:
            return
        self.device._check_space(self.name, size - current, "allocate", f"growing to {size} bytes")
        self.device._pwrite(self.name, current, bytes(size - current))
        self.device._used += size - current

    def truncate(self, size: int) -> None:
        """Cut the file to ``size`` bytes (which must not exceed its length); durable at once."""
        self._check_open("truncate")
        _check_range(self.name, size, 0)
        current = self.device._size(self.name)
        if size > current:
            raise ValueError(f"cannot truncate {self.name!r} to {size} bytes: it holds only {current}")
        self.device._io_point("truncate", self)
        self.device._truncate(self.name, size)
        if self.device.page_cache is not None:
            self.device.page_cache.forget(self.name, size)
        self.device._used -= current - size

    def close(self) -> None:
        """Close the file; closing twice is harmless."""
        self.closed = True

    def __enter__(self) -> File:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<File {self.name!r} kind={self.kind} {state}>"


def _check_range(name: str, offset: int, n: int) -> None:
    if not isinstance(offset, int) or offset < 0:
        raise ValueError(f"bad offset {offset!r} for {name!r}: must be an int >= 0")
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"bad size {n!r} for {name!r}: must be an int >= 0")


class Device(ABC):
    """A set of named files whose IO is counted. See the module docstring; subclasses store the bytes."""

    sector_size = 512  # unit of atomic writes: a torn write tears only at multiples of this

    def __init__(self, capacity: int | None = None, stats: IOStats | None = None) -> None:
        self.stats = stats if stats is not None else IOStats()  # counters of every IO on this device
        self._capacity: int | None = None  # bytes the files may hold in all, None for unlimited
        self._used = 0  # bytes the files hold now
        self.io_points = 0  # IO points passed so far (see IO_POINTS); fault injection counts these
        self._faults: list[_Fault] = []  # armed injected faults
        self.short_writes = False  # True: a write that does not fit writes what fits before raising ENOSPC
        self._generation = 0  # bumped by a crash; handles from an older generation are dead
        self.page_cache = None  # the OS page cache its buffered reads pass (storage.page_cache), None: none
        self.capacity = capacity

    # -- capacity -------------------------------------------------------------------------------------------------
    @property
    def capacity(self) -> int | None:
        """Bytes the files may hold in all (None: unlimited). Raise it to 'free space' after a disk-full error."""
        return self._capacity

    @capacity.setter
    def capacity(self, value: int | None) -> None:
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ValueError(f"bad device capacity {value!r}: must be an int >= 0 or None")
        self._capacity = value

    @property
    def used(self) -> int:
        """Bytes held by all files now."""
        return self._used

    @property
    def free(self) -> int | None:
        """Bytes that may still be written before ENOSPC (None: unlimited)."""
        return None if self._capacity is None else max(0, self._capacity - self._used)

    # -- files ------------------------------------------------------------------------------------------------------
    def open(self, name: str, kind: str, create: bool = False) -> File:
        """Open file ``name`` holding ``kind`` data; with ``create`` make it (empty) if it does not exist."""
        check_name(name)
        if kind not in FILE_KINDS:
            raise ValueError(f"unknown file kind {kind!r} for {name!r}; known kinds: {', '.join(FILE_KINDS)}")
        if not self._exists(name):
            if not create:
                raise FileNotFoundError(errno.ENOENT, f"no file {name!r} on {self!r}", name)
            self._create(name)
        return File(self, name, kind, self._generation)

    def exists(self, name: str) -> bool:
        """True if file ``name`` exists."""
        return self._exists(check_name(name))

    def list(self, prefix: str = "") -> list[str]:
        """Sorted names of the files whose name starts with ``prefix``."""
        return sorted(n for n in self._list() if n.startswith(prefix))

    def size(self, name: str) -> int:
        """Length of file ``name`` in bytes."""
        self._require(name)
        return self._size(name)

    def delete(self, name: str) -> None:
        """Remove file ``name``; durable at once. Handles open on it become unusable."""
        self._require(name)
        self._io_point("delete", None, name)
        self._used -= self._size(name)
        self._delete(name)
        if self.page_cache is not None:
            self.page_cache.forget(name)

    def rename(self, src: str, dst: str) -> None:
        """Atomically rename ``src`` to ``dst``, replacing any ``dst``; durable at once."""
        self._require(src)
        check_name(dst)
        self._io_point("rename", None, src)
        if src == dst:
            return
        if self._exists(dst):
            self._used -= self._size(dst)
        self._rename(src, dst)
        if self.page_cache is not None:
            self.page_cache.renamed(src, dst)

    def _require(self, name: str) -> None:
        if not self._exists(check_name(name)):
            raise FileNotFoundError(errno.ENOENT, f"no file {name!r} on {self!r}", name)

    # -- the database lock --------------------------------------------------------------------------------------------
    def lock(self) -> DeviceLock:
        """Take the database's ``LOCK`` for one writer; ``DatabaseLockedError`` naming the device if it is held
        (by another engine in this process, or, on a ``DirDevice``, by another process). Release it with
        ``release()`` on the returned lock."""
        token = self._try_lock()
        if token is None:
            raise DatabaseLockedError(f"{self!r} is locked: another engine has the database open for writing "
                                      f"(its {LOCK_FILE} is held); close it first, or open read-only")
        return DeviceLock(self, token)

    # -- fault injection ----------------------------------------------------------------------------------------------
    def fail_io(self, nth: int, ops: tuple[str, ...] = ("read", "write", "sync"), err: int = errno.EIO) -> None:
        """Make the ``nth`` coming IO point among ``ops`` (1 = the very next) raise ``OSError(err)``, changing nothing."""
        self._arm(_Fault(nth, ops, "fail", err))

    def _arm(self, fault: _Fault) -> None:
        if not isinstance(fault.nth, int) or fault.nth < 1:
            raise ValueError(f"bad fault position {fault.nth!r}: must be an int >= 1 (1 = the next IO)")
        for op in fault.ops:
            if op not in IO_POINTS:
                raise ValueError(f"unknown IO point {op!r}; known: {', '.join(IO_POINTS)}")
        self._faults.append(fault)

    def clear_faults(self) -> None:
        """Disarm every injected fault that has not fired yet."""
        self._faults.clear()

    def _io_point(self, op: str, file: File | None, name: str | None = None, data: bytes | None = None,
                  offset: int = 0) -> None:
        """Pass one IO point: count it and fire any injected fault that is due (before the IO happens)."""
        self.io_points += 1
        for fault in list(self._faults):
            if op in fault.ops:
                fault.nth -= 1
                if fault.nth == 0:
                    self._faults.remove(fault)
                    self._fire(fault, op, name or file.name, file, offset, data)

    def _fire(self, fault: _Fault, op: str, name: str, file: File | None, offset: int, data: bytes | None) -> None:
        raise OSError(fault.err, f"injected {os.strerror(fault.err)} on {op} of {name!r}", name)

    def _check_generation(self, file: File) -> None:
        if file._generation != self._generation:
            raise ValueError(f"cannot use {file.name!r}: it was opened before the device crashed; reopen it")

    # -- writing with the capacity check ----------------------------------------------------------------------------
    def _write(self, file: File, offset: int, data: bytes) -> None:
        if not data:
            return  # an empty write is no request at all: nothing to count, nothing to grow
        size = self._size(file.name)
        grow = max(0, offset + len(data) - size)
        if self._capacity is not None and self._used + grow > self._capacity:
            keep = len(data) - (grow - max(0, self._capacity - self._used))  # the first bytes, that still fit
            if self.short_writes and keep > 0:
                # POSIX: a write that runs out of space writes what fits and returns a short count, and the
                # caller's next write gets ENOSPC. The bytes that fit are on the device, like any unsynced write.
                self._write(file, offset, data[:keep])
            self._check_space(file.name, grow, "write", f"{len(data)} bytes at offset {offset}")
        self._io_point("write", file, data=data, offset=offset)
        self._pwrite(file.name, offset, data)
        self._used += grow
        self.stats.record("write", file.kind, len(data))
        if self.page_cache is not None and self.page_cache.caches(file.kind):
            self.page_cache.wrote(file.name, offset, len(data))

    def _check_space(self, name: str, grow: int, operation: str, detail: str) -> None:
        """``NoSpaceError`` naming file ``name`` and ``operation`` if the files cannot grow by ``grow`` bytes;
        ``detail`` (sizes, offsets) goes in the message."""
        if self._capacity is not None and self._used + grow > self._capacity:
            raise NoSpaceError(operation, name, f"{detail}; capacity {self._capacity}, used {self._used}")

    # -- storage primitives, implemented by subclasses ----------------------------------------------------------------
    @abstractmethod
    def _try_lock(self) -> object | None:
        """Take the lock and return a token for ``_unlock``, or None if it is held."""

    @abstractmethod
    def _unlock(self, token: object) -> None:
        """Release the lock taken with ``token``, unless it was lost since (e.g. to a crash)."""

    @abstractmethod
    def _exists(self, name: str) -> bool: ...

    @abstractmethod
    def _list(self) -> list[str]: ...

    @abstractmethod
    def _create(self, name: str) -> None: ...

    @abstractmethod
    def _size(self, name: str) -> int: ...

    @abstractmethod
    def _pread(self, name: str, offset: int, n: int) -> bytes: ...

    @abstractmethod
    def _pwrite(self, name: str, offset: int, data: bytes) -> None: ...

    @abstractmethod
    def _sync(self, name: str) -> None: ...

    @abstractmethod
    def _truncate(self, name: str, size: int) -> None: ...

    @abstractmethod
    def _delete(self, name: str) -> None: ...

    @abstractmethod
    def _rename(self, src: str, dst: str) -> None: ...


class DeviceLock:
    """The database lock of one device, held until ``release()`` (releasing twice is harmless)."""

    def __init__(self, device: Device, token: object) -> None:
        self.device = device  # whose LOCK is held
        self.held = True  # False once released
        self._token = token  # the device's proof of this holding (a crash makes it stale)

    def release(self) -> None:
        """Give the lock back: another engine may now open the database for writing."""
        if self.held:
            self.held = False
            self.device._unlock(self._token)

    def __repr__(self) -> str:
        return f"<DeviceLock {self.device!r} {'held' if self.held else 'released'}>"


class _Fault:
    """One armed fault: fires at the ``nth`` IO point among ``ops``."""

    def __init__(self, nth: int, ops: tuple[str, ...], action: str, err: int = 0, torn: bool = False,
                 seed: int = 0) -> None:
        self.nth = nth  # IO points among ops still to pass; fires when it reaches 0
        self.ops = tuple(ops)  # which IO points count
        self.action = action  # 'fail' (raise OSError) or 'crash' (SimDevice only)
        self.err = err  # errno raised by a 'fail'
        self.torn = torn  # a 'crash' tears unsynced writes at sector granularity
        self.seed = seed  # random seed of which sectors a torn crash keeps
