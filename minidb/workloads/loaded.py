"""Load once, measure many: a workload's database loaded once, frozen, and reopened for each measured run.

A sweep measures one database at many points (cache sizes, device models, clients). Only the data setup
(``DataSetup``) and the workload's load counts shape what the load writes; the rest of a ``RunSetup`` matters only
to the measured run. So a workload splits in two:

* ``load_*(data, ...)`` loads the database once, under one fixed setup (``load_driver``: the reference's cache,
  the ``LOAD_DEVICE`` model, no server costs; the load's timing is never reported), closes the engine, and returns a ``LoadedData``: the ``DeviceImage`` of its files and the
  workload's state at the end of the load (its random generator, population and counters), so that the run draws
  the same operations it would have drawn right after loading;
* ``*_from(loaded, setup, ...)`` opens the engine on a copy of the image with the point's own cache, device model,
  clients and server (``reopen``), and measures the run.

What a point measures, compared with loading in the same process: the run starts from a closed database, as a
benchmark run after a server restart does. Nothing of the load is left to flush (the LSM's close flushed its
memtables and finished its compactions, the B+tree's wrote back its dirty pages), so the run's writes are its own;
the counts start at zero on the new device. Every point of a sweep measures the same bytes, whatever its cache or
device, as the posts' sweeps ran on one loaded database.

**Warm-up.** The cache starts cold. A cold start costs one read of each page a run touches first, which shows only
where the cache would otherwise hold everything: the first reads of the data. (Loading in the same process had left
the cache holding whatever the load wrote last: all of the data with a cache larger than it, which no server has
after a restart.) A run is measured from its first operation unless it is given a warm-up: ``tpcc_from``'s
``warmup`` runs that many transactions before the measured ones, as seed 001 left its first 2,000 of 3,600 seconds
out (``minidb.experiments.f3_memory_sweep``).

``load_key`` names what shaped the load (the workload, the engine and its options, the sizes that are not the cache,
the scale, the seed and the load counts): two sweeps whose loads have equal keys share one image.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import asdict, dataclass, field, replace

from .. import scales
from ..engines import engine_name
from ..sim.server import ServerModel
from ..storage.image import DeviceImage
from .driver import Driver
from .setup import DataSetup, RunSetup

LOAD_DEVICE = "nvme"  # the device model timing the load: fixed, so that a load is the same for every point


@dataclass(frozen=True)
class LoadedData:
    """A workload's loaded database, closed and frozen, and what its runs continue from."""

    workload: str  # which workload loaded it
    data: DataSetup  # what shaped it
    params: dict  # the load's own counts (e.g. warehouses)
    db_bytes: float  # the workload's estimate of its data, which the engine's sizes scale with
    reference: scales.Reference  # the post configuration the sizes scaled from
    image: DeviceImage  # the engine's files after close
    rows: int  # rows in the tables after the load
    state: object = field(repr=False)  # the workload's state after the load (see the module docstring)

    def run_state(self):
        """A copy of the workload's state for one run: the runs of one loaded database draw the same operations."""
        return copy.deepcopy(self.state)


def load_key(workload: str, data: DataSetup, params: dict, db_bytes: float, reference: scales.Reference) -> str:
    """The name of a load: a hash of the workload, its counts, the engine and its options, the engine's sizes other
    than the cache (what the reference and the estimate make of them), the scale and the seed."""
    sizes = scales.engine_sizes(data.engine, db_bytes, reference, cache_bytes=0)
    ident = {
        "workload": workload,
        "params": params,
        "engine": engine_name(data.engine),
        "engine_options": data.engine_options,
        "sizes": {k: v for k, v in asdict(sizes).items() if k != "cache_bytes"},
        "scale": scales.current(data.scale),
        "seed": data.seed,
    }
    text = json.dumps(ident, sort_keys=True, default=repr)
    return f"{workload}-{engine_name(data.engine)}-{hashlib.sha256(text.encode()).hexdigest()[:20]}"


def load_driver(data: DataSetup, db_bytes: float, reference: scales.Reference, host) -> Driver:
    """The driver a load runs on: the data setup's engine, sized for ``db_bytes``, the reference's cache, timed on
    ``LOAD_DEVICE`` with no server costs (no binary log either: the image holds the engine's files only)."""
    return Driver.sized(RunSetup(data, device=LOAD_DEVICE, server_model=ServerModel.none()), db_bytes, reference,
                        host)


def freeze(drv: Driver, workload: str, params: dict, db_bytes: float, reference: scales.Reference,
           state) -> LoadedData:
    """Close ``drv``'s engine and keep its files and ``state`` (see the module docstring)."""
    drv.engine.close()
    data = drv.setup_data
    return LoadedData(workload, data, dict(params), db_bytes, data.reference or reference,
                      DeviceImage.of(drv.storage), drv.rows(), state)


def reopen(loaded: LoadedData, setup: RunSetup, host, server: ServerModel | None = None) -> Driver:
    """A driver for one measured run of ``loaded``: the engine reopened on a copy of the image, with ``setup``'s
    cache, device model, clients and server, else ``server`` (the workload's); its ``data`` and ``storage`` are the
    loaded database's."""
    run = replace(setup, data=loaded.data, storage=loaded.image.device())
    drv = Driver.sized(run, loaded.db_bytes, loaded.reference, host, server)
    drv.rows_before = loaded.rows
    return drv
