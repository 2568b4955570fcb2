"""DeviceImage: a frozen copy of every file of a closed database, from which a measured run starts.

A sweep measures one loaded database many times, at each cache size or device model. Loading it costs as much as a
run, so the load happens once: the engine closes, ``DeviceImage.of(device)`` keeps one bytes snapshot per file, and
each run opens the engine on ``image.device()``, a new ``SimDevice`` holding its own copy::

    image = DeviceImage.of(device)            # after engine.close(): every byte synced
    device = image.device()                   # a fresh device, its IOStats at zero
    engine = open_engine("lsm", device, sizes, clock=...)   # the registry (minidb.engines), this point's sizes

Copying is not IO: neither taking the image nor making a device from it passes an IO point or counts in
``IOStats``, as restoring a server's volume from a snapshot is not the database's work. What a run counts starts at
zero on the new device and is the engine's alone: its recovery at open, then the run.

An image holds only durable bytes; a device with writes not yet synced has no single state to freeze (a crash would
keep some of them), so ``of`` refuses it: close the engine first.
"""

from __future__ import annotations

from dataclasses import dataclass

from .sim_device import SimDevice


@dataclass(frozen=True)
class DeviceImage:
    """The files of a closed database: name -> contents. Immutable; ``device()`` gives a writable copy."""

    files: tuple[tuple[str, bytes], ...]  # (name, contents) per file, by name

    @classmethod
    def of(cls, device: SimDevice) -> DeviceImage:
        """Every file of ``device`` as it is now; ValueError if a file has writes not yet synced."""
        if not isinstance(device, SimDevice):
            raise ValueError(f"cannot image {device!r}: only a SimDevice's files can be frozen")
        unsynced = [name for name, f in device._files.items() if f.undo]
        if unsynced:
            raise ValueError(f"cannot image {device!r}: {', '.join(sorted(unsynced))} hold writes not yet synced; "
                             f"close the engine first")
        return cls(tuple((name, bytes(device._files[name].data)) for name in sorted(device._files)))

    @property
    def bytes(self) -> int:
        """Bytes the files hold in all."""
        return sum(len(data) for _, data in self.files)

    def device(self, capacity: int | None = None) -> SimDevice:
        """A new ``SimDevice`` holding a copy of every file, synced, with nothing counted yet; ValueError if the files
        do not fit in ``capacity``."""
        if capacity is not None and capacity < self.bytes:
            raise ValueError(f"a device of {capacity} bytes cannot hold the image: it holds {self.bytes} bytes")
        device = SimDevice(capacity=capacity)
        for name, data in self.files:
            device._create(name)
            f = device._files[name]
            f.data = bytearray(data)
            f.synced = True
        device._used = self.bytes
        return device
