"""Maintenance asked of the LSM engine by its client: flush every memtable, compact a range or L0 by hand.

Both run in simulated time, job by job (scheduler.py): a flush seals the memtables that hold data and waits until
they are written to L0; a manual compaction runs its steps one after another with no automatic compaction meanwhile
(``compact_range`` down to the last level, ``compact_level0`` only until L0 is empty in a leveled family).
"""

from __future__ import annotations

from .compaction_picker import manual_steps
from .universal_picker import manual_universal


def flush_all(engine) -> None:
    """Seal every non-empty memtable of ``engine`` (an LSMEngine) and wait until all are written to L0."""
    full = [cf for cf in engine.cfs.values() if cf.mem.entries]
    if full:
        engine.scheduler.seal(full)
    engine.scheduler.wait_for(lambda: not any(cf.imm for cf in engine.cfs.values()))


def compact_manually(engine, families, lo: bytes | None, hi: bytes | None, *, level0_only: bool) -> None:
    """Run manual compaction steps over ``[lo, hi]`` of ``families``, no automatic compaction meanwhile; with
    ``level0_only`` a leveled family stops once its L0 holds no file."""
    scheduler = engine.scheduler
    scheduler.manual = True
    try:
        scheduler.wait_for(lambda: not scheduler.jobs)
        for family in families:
            while True:
                if family.options.compaction == "universal":
                    c = manual_universal(family.id, family.version, family.options)
                elif level0_only and not family.version.levels[0]:
                    c = None
                else:
                    c = manual_steps(family.id, family.version, family.options, lo, hi)
                if c is None:
                    break
                scheduler.start_compaction(family, c)
                scheduler.wait_for(lambda: not scheduler.jobs)
    finally:
        scheduler.manual = False
        scheduler.needs_schedule = True
