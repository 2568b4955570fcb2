"""SimDevice: an in-memory device with exact crash semantics, for experiments and fault-injection tests.

What survives ``crash()`` is what a careful engine may rely on from a real file system:

* bytes written and then ``sync``-ed survive; bytes written since a file's last sync may be lost;
* ``rename``, ``delete`` and ``truncate`` are durable at once (as with a journaled file system whose directory
  the engine syncs after each such step);
* a file that was never synced is gone after a plain crash;
* with ``torn=True`` each 512-byte sector written since the last sync independently keeps either its new or its
  old contents (chosen by a seeded random generator), so a page or log record can be half new, half old, but never
  torn inside a sector; a never-synced file survives with the sectors that happened to reach the media.

To keep syncs cheap, each file keeps an undo list of what it looked like at its last sync instead of a copy.
"""

from __future__ import annotations

import random

from ..errors import DeviceCrashed
from .device import Device, File, _Fault


class _SimFile:
    """The bytes of one file plus what is needed to roll it back to its last sync."""

    __slots__ = ("data", "undo", "synced")

    def __init__(self) -> None:
        self.data = bytearray()  # current contents, including unsynced writes
        self.undo: list[tuple[int, bytearray, int]] = []  # (offset, old bytes, old length) per write since the
        # last sync
        self.synced = False  # True once the file has been synced at least once (it exists after a crash)

    def durable(self) -> bytearray:
        """The contents as of the last sync (empty if never synced)."""
        old = bytearray(self.data)
        for offset, before, length in reversed(self.undo):
            del old[length:]
            old[offset:offset + len(before)] = before
        return old


class SimDevice(Device):
    """An in-memory, deterministic device; see the module docstring for its crash semantics."""

    def __init__(self, capacity: int | None = None, stats=None) -> None:
        super().__init__(capacity, stats)
        self._files: dict[str, _SimFile] = {}  # name -> contents
        self.crashes = 0  # crashes so far
        self._lock_token: object | None = None  # the holder of the database lock (lock()), or None

    def __repr__(self) -> str:
        return f"SimDevice(files={len(self._files)}, used={self._used}, capacity={self._capacity})"

    # -- crashes ----------------------------------------------------------------------------------------------------
    def crash_at_io(self, nth: int, ops: tuple[str, ...] = ("write", "sync", "truncate", "rename", "delete"),
                    torn: bool = False, seed: int = 0) -> None:
        """Crash at the ``nth`` coming IO point among ``ops``, before it completes, raising ``DeviceCrashed``.

        With ``torn`` a write in flight lands partly (whole sectors only), like every other unsynced write.
        """
        self._arm(_Fault(nth, ops, "crash", torn=torn, seed=seed))

    def crash(self, torn: bool = False, seed: int = 0) -> None:
        """Lose what was not synced (see the module docstring) and invalidate every open handle."""
        rng = random.Random(seed)
        for name in list(self._files):
            f = self._files[name]
            if not f.undo:
                if not f.synced:
                    self._drop(name)
                continue
            if torn:
                f.data = _tear(f.durable(), f.data, self.sector_size, rng)
            elif f.synced:
                f.data = f.durable()
            else:
                self._drop(name)
                continue
            f.undo.clear()
            f.synced = True
        self._used = sum(len(f.data) for f in self._files.values())
        self._faults.clear()
        self._generation += 1
        if self.page_cache is not None:
            self.page_cache.clear()  # the machine's memory went with it
        self.crashes += 1
        self._lock_token = None  # the crashed process's lock died with it, as an OS lock does

    def _drop(self, name: str) -> None:
        del self._files[name]

    def _fire(self, fault: _Fault, op: str, name: str, file: File | None, offset: int, data: bytes | None) -> None:
        if fault.action != "crash":
            super()._fire(fault, op, name, file, offset, data)
        if fault.torn and op == "write":
            self._pwrite(name, offset, data)
        self.crash(torn=fault.torn, seed=fault.seed)
        raise DeviceCrashed(f"injected crash at {op} of {name!r} (IO point {self.io_points})")

    def durable_bytes(self, name: str) -> bytes:
        """What file ``name`` would hold after a plain crash now (for tests)."""
        self._require(name)
        return bytes(self._files[name].durable())

    # -- primitives ---------------------------------------------------------------------------------------------------
    def _try_lock(self) -> object | None:
        if self._lock_token is not None:
            return None
        self._lock_token = object()
        return self._lock_token

    def _unlock(self, token: object) -> None:
        if self._lock_token is token:
            self._lock_token = None

    def _exists(self, name: str) -> bool:
        return name in self._files

    def _list(self) -> list[str]:
        return list(self._files)

    def _create(self, name: str) -> None:
        self._files[name] = _SimFile()

    def _size(self, name: str) -> int:
        return len(self._files[name].data)

    def _pread(self, name: str, offset: int, n: int) -> bytes:
        with memoryview(self._files[name].data) as view:  # one copy, not a slice and then its bytes
            return bytes(view[offset:offset + n])

    def _pwrite(self, name: str, offset: int, data: bytes) -> None:
        f = self._files[name]
        length = len(f.data)
        f.undo.append((offset, f.data[offset:offset + len(data)], length))  # the slice is a copy already
        if offset > length:
            f.data.extend(bytes(offset - length))
        f.data[offset:offset + len(data)] = data

    def _sync(self, name: str) -> None:
        f = self._files[name]
        f.undo.clear()
        f.synced = True

    def _truncate(self, name: str, size: int) -> None:
        f = self._files[name]
        # Durable at once: cut the undo images too, so a crash cannot bring the cut bytes back.
        f.undo = [(o, b[: max(0, size - o)], min(n, size)) for o, b, n in f.undo if o < size]
        del f.data[size:]

    def _delete(self, name: str) -> None:
        del self._files[name]

    def _rename(self, src: str, dst: str) -> None:
        self._files[dst] = self._files.pop(src)


def _tear(old: bytearray, new: bytearray, sector: int, rng: random.Random) -> bytearray:
    """Each sector that differs between ``old`` and ``new`` keeps one of the two at random; the length follows
    the last sector kept from ``new`` when ``new`` is longer, and sectors past ``old`` that were not kept are zeros."""
    out = bytearray(old)
    end = len(old)
    for start in range(0, max(len(old), len(new)), sector):
        o = old[start:start + sector]
        n = new[start:start + sector]
        if o == n or rng.random() < 0.5:
            continue
        if start >= len(out):
            out.extend(bytes(start - len(out)))
        out[start:start + sector] = n if len(n) >= len(o) else n + o[len(n):]
        end = max(end, start + len(n))
    del out[end:]
    return out
