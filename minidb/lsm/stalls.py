"""The write controller: when writes must slow down or stop (RocksDB's RecalculateWriteStallConditions).

Checked before every write, per column family:

* **stop** when the active memtable is full and ``max_immutable_memtables`` sealed ones already wait for flush
  ("memtable"); when L0 holds ``level0_stop_writes_trigger`` files ("level0"; universal compaction counts sorted
  runs); or when the estimated compaction debt reaches ``hard_pending_compaction_bytes_limit`` ("pending-bytes").
  The writer waits (``clock.wait_until``) until the next background job completes, and checks again.
* **slowdown** when L0 reaches ``level0_slowdown_writes_trigger`` files, or the debt reaches
  ``soft_pending_compaction_bytes_limit``: the write is delayed by its size over ``delayed_write_rate`` bytes per
  second (``clock.advance``), giving compaction time to catch up.

As in RocksDB, the L0 and debt conditions are ignored when ``disable_auto_compactions`` is set (nothing would ever
clear them). Raising ``level0_slowdown_writes_trigger`` from 10 to 20 is the change seed 000 made to reduce stalls.
"""

from __future__ import annotations


def stop_reason(cf) -> str | None:
    """Why writes to ``cf`` must stop now, or None."""
    o = cf.options
    if cf.memtable_full() and len(cf.imm) >= o.max_immutable_memtables:
        return "memtable"
    if o.disable_auto_compactions:
        return None
    if cf.l0_runs() >= o.level0_stop_writes_trigger:
        return "level0"
    if cf.pending_compaction_bytes() >= o.hard_pending_compaction_bytes_limit:
        return "pending-bytes"
    return None


def slowdown_reason(cf) -> str | None:
    """Why writes to ``cf`` must be delayed now, or None."""
    o = cf.options
    if o.disable_auto_compactions:
        return None
    if cf.l0_runs() >= o.level0_slowdown_writes_trigger:
        return "level0"
    if cf.pending_compaction_bytes() >= o.soft_pending_compaction_bytes_limit:
        return "pending-bytes"
    return None
