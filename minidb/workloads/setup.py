"""RunSetup: everything a workload run needs besides the workload's own counts, one record for the four workloads.

A run is set up in two parts, kept apart because they change at different rates:

* **the data** (``DataSetup``): what shapes the database the load phase writes: the engine and its options (page
  size, compression, L0 triggers, ...), the scale whose sizes fill in what the workload is not given, the post
  configuration the engine's sizes are scaled from (``reference``), and the seed of every random choice. Two runs
  with equal data setups and equal workload counts load the same rows through the same engine;
* **the measured run** (the rest of ``RunSetup``): the cache, the device model that turns counted IO into time, the
  device holding the bytes, the modelled host's clients and cores, the width of the interval series, the costs
  of the server software above the engine (``server_model``), and the RAM the server leaves to the OS's page
  cache (``page_cache_bytes``, ``minidb.storage.page_cache``).

A sweep varies the second part over one first part (``dataclasses.replace(setup, cache_bytes=...)``), so a setup's
``data`` names exactly what a loaded database depends on::

    from minidb.workloads import DataSetup, RunSetup, tpcc

    data = DataSetup("btree", scale="tiny", engine_options={"page_size": 8192})
    r = tpcc(RunSetup(data, cache_bytes=4 << 20, device="gp2"), transactions=500)

The server model defaults to the workload's own post's server: the calibrated SQL layer (``ServerModel.calibrated``,
fitted once to seed 001) with the binary log as that post ran it (each workload's ``SERVER``), so that a run with
default options shows what the posts show. ``ServerModel.none()`` charges the engines' work alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..scales import Reference
from ..sim.bottleneck import Host
from ..sim.server import ServerModel
from ..storage.device import Device
from ..storage.models import DeviceModel


@dataclass(frozen=True)
class DataSetup:
    """What shapes the database a run loads (see the module docstring)."""

    engine: object = "lsm"  # a registered engine name, or an opener callable (minidb.engines)
    scale: str | None = None  # the scale whose sizes fill in the workload's counts (None: minidb.scales.current())
    seed: int = 0  # every random choice of the run: the rows, the operations
    reference: Reference | None = None  # the post configuration sizes scale from (None: the workload's, at scale)
    engine_options: dict = field(default_factory=dict)  # the engine's options; they win over the scaled sizes


@dataclass(frozen=True)
class RunSetup:
    """A workload run's setup: its ``data`` and what only the measured run needs (see the module docstring)."""

    data: DataSetup = field(default_factory=DataSetup)  # what shapes the loaded database
    cache_bytes: int | None = None  # buffer pool or block cache (None: the reference's IO-bound share of the data)
    device: str | DeviceModel = "nvme"  # the device model that turns counted IO into time (a preset name or a model)
    storage: Device | None = None  # the device holding the bytes (None: a new SimDevice)
    clients: int = 16  # concurrent clients of the modelled server
    cores: int | None = None  # cores of the modelled host (None: the workload's own, its seed's server's)
    interval: float = 1.0  # seconds per row of the result's interval series
    server_model: ServerModel | None = None  # the server software's costs (None: the workload's own post's server)
    page_cache_bytes: int = 0  # the OS page cache the LSM's tables are read through (storage.page_cache; 0: none)

    def host(self, cores: int, extra_clients: int = 0) -> Host:
        """The modelled host: the setup's clients, plus ``extra_clients``, on its cores, or on ``cores`` (the
        workload's own server's) if it names none."""
        return Host(cores=cores if self.cores is None else self.cores, clients=self.clients + extra_clients)

    def server(self, default: ServerModel) -> ServerModel:
        """The server software's costs: the setup's, or ``default`` (the workload's own post's server) if it names
        none."""
        return default if self.server_model is None else self.server_model
