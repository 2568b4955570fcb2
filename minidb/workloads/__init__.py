"""Workloads: the benchmarks of the source posts, seeded and deterministic, run against ``minidb.table`` tables.

Each runner takes a ``RunSetup`` (setup.py: the engine, ``"lsm"``, ``"btree"`` or an opener callable, and what shapes
its data; the cache, device, clients and server costs of the measured run) and the workload's own counts; it opens
the engine on a fresh device, loads its data, runs its operations under simulated time and returns a
``WorkloadResult`` with a ``summary`` dict and a per-interval ``intervals`` DataFrame. The same setup and counts give
the same summary.

* ``insert_benchmark``: iibench, PK-order inserts with 3 secondary indexes (seed 000, finding F1);
* ``sysbench``: sysbench OLTP point-select, read-write, update-index and insert;
* ``tpcc``: TPC-C as sysbench-tpcc runs it, its five transactions (seeds 001, 003);
* ``linkbench``: Linkbench-lite, links and nodes of a social graph (seed 002).

Each module's docstring says how it maps to the original benchmark and what it leaves out.

A sweep that measures one database many times loads it once instead (``loaded``: ``tpcc.load_tpcc`` freezes the
load, ``tpcc.tpcc_from`` measures a copy of it).
"""

from .driver import Driver, WorkloadResult
from .insert_benchmark import insert_benchmark
from .linkbench import linkbench
from .setup import DataSetup, RunSetup
from .sysbench import sysbench
from .tpcc import tpcc

__all__ = ["DataSetup", "Driver", "RunSetup", "WorkloadResult", "insert_benchmark", "linkbench", "sysbench", "tpcc"]
