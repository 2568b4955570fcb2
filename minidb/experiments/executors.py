"""Where a sweep's points run: this machine's cores, this process, or a Dask cluster, chosen by ``MINIDB_EXECUTOR``.

``sweep(..., executor=None)`` asks :func:`from_env` which executor to use, so every experiment, ``minidb
experiment`` and every chapter of ``make book`` follow one setting:

===========================  ===================================================================================
``MINIDB_EXECUTOR``          points run ...
===========================  ===================================================================================
unset, empty or ``processes``  in a process pool on this machine, one worker per core (the default)
``serial``                   one after another in this process (for debugging and profiling)
``tcp://host:8786``          on the Dask cluster whose scheduler listens there (``tls://``, ``ws://``,
                             ``inproc://`` too); the results come back to this process, which caches them
===========================  ===================================================================================

Every point is seeded and deterministic, so the executor changes where the work runs, never the results.
Connecting to Dask needs ``dask[distributed]``; the workers need minidb installed at the same version (the cache key
includes the source fingerprint of the process that sweeps, not of the workers).
"""

from __future__ import annotations

import functools
import os
import re
from concurrent.futures import Executor

ENV = "MINIDB_EXECUTOR"
LOCAL = ("processes", "serial")
DASK_ADDRESS = re.compile(r"^(tcp|tls|ws|wss|inproc|ucx)://\S+$")
CONNECT_TIMEOUT = "10s"  # a scheduler that does not answer in this time is reported, not waited for


def spec(value: str | None = None, option: str = ENV) -> str:
    """The executor named by ``value`` (default: ``$MINIDB_EXECUTOR``): ``processes``, ``serial`` or a Dask scheduler
    address; ValueError naming ``option`` (the variable, or the flag that gave the value) for anything else."""
    value = (os.environ.get(ENV, "") if value is None else value).strip()
    if value in ("", "processes"):
        return "processes"
    if value == "serial" or DASK_ADDRESS.match(value):
        return value
    raise ValueError(f"{option}={value!r} is not an executor: use 'processes' (the default), 'serial', or a Dask "
                     f"scheduler address such as tcp://scheduler-host:8786")


def from_env(value: str | None = None) -> Executor | bool | None:
    """The ``executor`` argument that ``sweep`` should use: None for its own process pool, False for this process,
    or the executor of a Dask client connected to the scheduler named."""
    chosen = spec(value)
    if chosen == "processes":
        return None
    if chosen == "serial":
        return False
    return dask_client(chosen).get_executor()


@functools.cache
def dask_client(address: str):
    """One Dask client per process and scheduler address (connecting costs a round trip; chapters sweep often)."""
    try:
        from distributed import Client
    except ImportError as e:  # pragma: no cover - dask is a dependency; this names it if an install lacks it
        raise ImportError(f"{ENV}={address!r} needs dask[distributed]: pip install 'dask[distributed]'") from e
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except OSError as e:
        raise OSError(f"{ENV}={address!r}: no Dask scheduler answered there within {CONNECT_TIMEOUT} ({e})") from e
