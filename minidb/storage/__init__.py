"""The storage layer: devices whose every IO is counted, device models that turn counts into time, and faults.

* ``Device``, ``File``: the interface engines use; ``SimDevice`` (in memory, crash semantics, the default for
  experiments) and ``DirDevice`` (a real directory).
* ``IOStats``, ``IOCounts``: the counters, by file kind, cause and tag.
* ``DeviceModel`` and ``preset(name)``: IOPS, bandwidth and latency of the devices in the source posts.
* ``PageCache``: the operating system's page cache, which spares the device the reads of buffered files it holds.
"""

from .device import IO_POINTS, Device, File
from .dirdevice import DirDevice
from .iostats import CAUSES, FILE_KINDS, IOCounts, IOStats
from .models import PRESETS, DeviceModel, custom, preset
from .page_cache import PageCache
from .sim_device import SimDevice

__all__ = [
    "CAUSES",
    "FILE_KINDS",
    "IO_POINTS",
    "PRESETS",
    "Device",
    "DeviceModel",
    "DirDevice",
    "File",
    "IOCounts",
    "IOStats",
    "PageCache",
    "SimDevice",
    "custom",
    "preset",
]
