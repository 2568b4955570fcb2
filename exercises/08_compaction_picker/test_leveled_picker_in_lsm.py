"""Graded tests of exercise 08 inside the LSM engine: loads compacted by your picker.

The engine loads keys in random order with your ``compaction_picker`` (and round-robin file choice), then again
with its own picker, and compares what the two did:

* write amplification (every byte the device was asked to write, over the bytes of keys and values the client
  wrote) within ``WRITE_AMP_BAND`` of the engine's own: a picker that compacts the wrong level or the wrong file
  rewrites more bytes, or leaves work undone;
* the tree's shape at the end, as the engine scores it: no level holds more than its target, L0 is under its
  compaction trigger; and during the load L0 never reached the slowdown trigger (``level0_slowdown_writes_trigger``),
  where writes would have been throttled.
"""

from __future__ import annotations

import random

import pytest

from minidb.kv import WriteBatch
from minidb.storage import SimDevice

lsm = pytest.importorskip("minidb.lsm")
sizing = pytest.importorskip("minidb.lsm.level_sizing")

KIB = 1 << 10
ROWS = 20000  # 12-byte keys, 100-byte values: about 2.2 MB, some 70 flushes
ROWS_PER_WRITE = 10
WRITE_AMP_BAND = 0.10  # your picker's write-amp within 10% of the engine's
SHAPES = {  # level_compaction_dynamic_level_bytes: static targets from L1 down, or dynamic from the last level up
    "static_targets": False,
    "dynamic_targets": True,
}


class L0Watch:
    """An engine listener: the most files L0 held after any flush or compaction."""

    def __init__(self) -> None:
        self.most = 0

    def on_flush_completed(self, engine, job) -> None:
        self.most = max(self.most, len(job.cf.version.levels[0]))

    on_compaction_completed = on_flush_completed


def load(picker, dynamic: bool) -> dict:
    """Load ROWS keys in random order with ``picker`` (None: the engine's own); what it wrote and its shape."""
    device = SimDevice()
    watch = L0Watch()
    options = dict(memtable_bytes=32 * KIB, max_bytes_for_level_base=128 * KIB, max_bytes_for_level_multiplier=4,
                   num_levels=5, target_file_size_base=16 * KIB, compaction_pri="round_robin",
                   level_compaction_dynamic_level_bytes=dynamic, listeners=(watch,), wal_sync="none")
    if picker is not None:
        options["compaction_picker"] = picker
    engine = lsm.open_lsm(device, **options)
    rng = random.Random(3)
    keys = [b"k%010d" % rng.randrange(10**10) for _ in range(ROWS)]
    for i in range(0, ROWS, ROWS_PER_WRITE):
        batch = WriteBatch()
        for key in keys[i:i + ROWS_PER_WRITE]:
            batch.put("primary", key, b"v" * 100)
        engine.write(batch)
    missing = [key for key in keys[::97] if engine.get("primary", key) is None]
    engine.close()  # finishes the jobs in flight
    cf = engine.column_family("default")
    _, targets = sizing.level_targets(cf.version, cf.options)
    return {"write_amp": device.stats.total().write_bytes / engine.counters["user_bytes"],
            "scores": sizing.compaction_scores(cf.version, cf.options, targets), "most_l0": watch.most,
            "slowdown": cf.options.level0_slowdown_writes_trigger, "missing": missing,
            "files": [len(files) for files in cf.version.levels]}


@pytest.mark.points(3)
@pytest.mark.parametrize("shape", SHAPES)
def test_write_amp_near_the_engines(leveled_picker, shape):
    """A random load compacted by your picker writes about what the engine's own picker writes."""
    yours = load(leveled_picker.LeveledPicker(), SHAPES[shape])
    assert not yours["missing"], f"keys lost with your picker: {yours['missing'][:3]}"
    ours = load(None, SHAPES[shape])
    ratio = yours["write_amp"] / ours["write_amp"]
    assert abs(ratio - 1) <= WRITE_AMP_BAND, (
        f"write-amp {yours['write_amp']:.2f} with your picker, {ours['write_amp']:.2f} with the engine's "
        f"({ratio:.2f}x); files per level at the end: yours {yours['files']}, the engine's {ours['files']}"
    )


@pytest.mark.points(2)
@pytest.mark.parametrize("shape", SHAPES)
def test_tree_stays_within_its_limits(leveled_picker, shape):
    """At the end no level is over its target and L0 is under its trigger; L0 never reached the slowdown trigger."""
    yours = load(leveled_picker.LeveledPicker(), SHAPES[shape])
    scores = yours["scores"]
    over = {f"L{level}": round(score, 2) for level, score in enumerate(scores) if score >= 1}
    assert not over, (
        f"levels still over their limit at the end (the engine's scores): {over}; files per level "
        f"{yours['files']}: a level your picker should have compacted was left as it was"
    )
    assert yours["most_l0"] < yours["slowdown"], (
        f"L0 reached {yours['most_l0']} files during the load (writes slow down at {yours['slowdown']}): "
        f"L0 was not compacted when it should have been"
    )
