"""JobContext: what a flush or a compaction works with, handed to it instead of the engine.

A job (jobs.py) and the files it writes (table_outputs.py) need:

* the **device** its files go to (every IO counted);
* the **version set**, for new file numbers;
* the **clock**, which says when the job's IO is done;
* the **table cache**, ``table(cf, file)``: the open reader of an input SST;
* the engine's **counters**, where a job adds the keys it compared and the bytes it compressed, and ``work()``,
  the engine's cumulative CPU work (minidb.sim.cpu units), from which a job's share is taken;
* the two **options** jobs read: the compaction readahead and the output files' write buffer.

The engine makes a context when it starts a job (``LSMEngine.job_context``); nothing in it is the job's to keep.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JobContext:
    """The collaborators of one background job; see the module docstring."""

    device: Any  # minidb.storage Device: where the SSTs go
    versions: Any  # version_set.VersionSet: new file numbers
    clock: Any  # minidb.sim.Clock: when the job's IO is done
    table: Callable[[Any, Any], Any]  # (column family, FileMeta) -> the open TableReader
    counters: Any  # the engine's Counter: key_compares, <codec>_compress_bytes
    work: Callable[[], dict]  # the engine's cumulative CPU work, by minidb.sim.cpu unit
    compaction_readahead_size: int  # bytes read ahead from each compaction input
    writable_file_max_buffer_size: int  # bytes buffered per output write
