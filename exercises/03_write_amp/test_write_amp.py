"""Graded tests of exercise 03, the write-amplification model. Run them with ``pytest exercises/03_write_amp``.

First each step on small cases you can check by hand, then whole loads against the reference model's figures. The
``write_amp`` fixture is your module (``--student PATH`` grades another file or folder instead).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable

# Whole loads and the reference model's bytes written into each level, in MiB. Settings: (memtable MiB, L0 trigger,
# max_bytes_for_level_base MiB, multiplier, num_levels, load MiB).
REFERENCE = {
    # RocksDB's defaults (64 MiB write buffer, 4 files, 256 MiB base, x10, 7 levels), 100 GiB loaded.
    "rocksdb_defaults": ((64, 4, 256, 10, 7, 102400),
                         [102400.0, 204544.0, 605824.0, 532864.0, 127252.48, 0.0, 0.0]),
    # The shape of the engine test: small levels, multiplier 4, the fourth level filling.
    "small_levels": ((1 / 32, 4, 1 / 8, 4, 5, 4), [4.0, 7.875, 11.0, 8.0, 1.589844]),
    # Few levels: the last one grows past its target, which nothing enforces.
    "full_last_level": ((16, 2, 64, 8, 4, 10240), [10240.0, 30624.0, 49792.0, 55115.0]),
    # Eight files would be 8 MiB: L0 is compacted at 4 MiB by size first. The last memtable is half full.
    "l0_by_bytes": ((1, 8, 4, 5, 3, 300.5), [300.5, 596.0, 5698.0]),
}
REL = 1e-6  # the reference figures are rounded to 1e-6 MiB


def hand_model(write_amp):
    """A model with levels of 256, 2560, 25600 (4 levels), 64-byte memtables, compacted at 4 L0 files."""
    return write_amp.LeveledModel(64, 4, 256, 10, 4)


@pytest.mark.points(1)
def test_level_targets(write_amp):
    """L0 has no target; L1 has the base; each next level is multiplier times bigger."""
    assert write_amp.level_targets(256, 10, 4) == [0.0, 256.0, 2560.0, 25600.0]
    assert write_amp.level_targets(1, 2.5, 3) == [0.0, 1.0, 2.5]


@pytest.mark.points(2)
def test_flushes_fill_l0_then_compact_it(write_amp):
    """Flushes add L0 files; the fourth compacts L0 into L1, and the next compaction rewrites L1 too."""
    model = hand_model(write_amp)
    assert (model.targets, model.sizes, model.written, model.l0_files) == (
        [0.0, 256.0, 2560.0, 25600.0], [0.0] * 4, [0.0] * 4, 0), "a new model is empty"
    for _ in range(3):
        model.flush(64)
    assert (model.sizes, model.written, model.l0_files) == ([192, 0, 0, 0], [192, 0, 0, 0], 3)
    model.flush(64)
    assert (model.sizes, model.written, model.l0_files) == ([0, 256, 0, 0], [256, 256, 0, 0], 0), (
        "the 4th file triggers L0 -> L1, which writes L0's 256 bytes into L1"
    )
    for _ in range(4):
        model.flush(32)  # smaller memtables: 4 files of 32 bytes
    assert model.written[:2] == [384, 256 + 128 + 256], "an L0 compaction rewrites all of L1 along with L0"
    assert (model.sizes, model.written[2]) == ([0, 256, 128, 0], 128), (
        "then L1 is 128 bytes over its target: they go down to the empty L2"
    )


@pytest.mark.points(1)
def test_l0_is_also_compacted_by_size(write_amp):
    """L0 is compacted when its bytes reach L1's target, even with fewer files than the trigger."""
    model = write_amp.LeveledModel(100, 4, 250, 10, 3)
    model.flush(100)
    model.flush(100)
    assert model.l0_files == 2 and model.sizes[0] == 200
    model.flush(100)
    assert model.l0_files == 0 and model.sizes[0] == 0, "300 bytes >= L1's target of 250: compact L0"


@pytest.mark.points(3)
def test_push_down(write_amp):
    """The excess over a level's target moves down and rewrites its share of the next level."""
    model = hand_model(write_amp)
    model.sizes[:] = [0.0, 512.0, 1000.0, 0.0]
    model.push_down(1)
    # excess 256 covers 256 / (2 * 256) = half the key space: it overlaps 500 of L2's 1000 bytes.
    assert model.sizes == [0.0, 256.0, 1256.0, 0.0]
    assert model.written == [0.0, 0.0, 756.0, 0.0]
    model.push_down(1)
    assert model.written == [0.0, 0.0, 756.0, 0.0], "a level within its target pushes nothing"
    model.sizes[:] = [0.0, 0.0, 8000.0, 700.0]
    model.push_down(2)
    # excess 5440 would cover more than the whole key space: it overlaps all of L3.
    assert model.sizes == [0.0, 0.0, 2560.0, 6140.0]
    assert model.written[3] == pytest.approx(5440 + 700)
    for level in (0, 3):
        with pytest.raises(ValueError):
            model.push_down(level)


@pytest.mark.points(1)
def test_load_and_write_amp(write_amp):
    """A load is flushed memtable by memtable, the last one partial; write-amp is bytes written per byte flushed."""
    model = hand_model(write_amp)
    assert model.write_amp() == 0.0, "no flush yet"
    assert model.load(150) is model
    assert (model.written, model.l0_files) == ([150, 0, 0, 0], 3), "150 bytes: memtables of 64, 64 and 22"
    assert model.write_amp() == 1.0
    model.load(106)  # a 4th memtable of 64 bytes compacts L0's 214 bytes; the last 42 wait in L0
    assert (model.written, model.l0_files) == ([256, 214, 0, 0], 1)
    assert model.write_amp() == pytest.approx(470 / 256)


@pytest.mark.points(2)
@repeatable
@given(
    memtable=st.floats(min_value=1, max_value=64),
    trigger=st.integers(min_value=1, max_value=8),
    base=st.floats(min_value=16, max_value=512),
    multiplier=st.floats(min_value=1.5, max_value=12),
    levels=st.integers(min_value=2, max_value=6),
    load=st.floats(min_value=0, max_value=20000),
)
@example(memtable=64, trigger=4, base=256, multiplier=10, levels=4, load=5000)
def test_bytes_are_conserved(write_amp, memtable, trigger, base, multiplier, levels, load):
    """Whatever the settings: the levels hold the load, levels above the last keep to their targets, and no level
    was written less than what it holds."""
    model = write_amp.LeveledModel(memtable, trigger, base, multiplier, levels).load(load)
    tol = 1e-9 * max(load, 1)
    assert sum(model.sizes) == pytest.approx(load, abs=tol), f"levels hold {model.sizes}, {load} were loaded"
    assert model.written[0] == pytest.approx(load, abs=tol), "every loaded byte is flushed into L0 once"
    for level in range(1, levels - 1):
        assert model.sizes[level] <= model.targets[level] + tol, f"L{level} holds more than its target"
    for level in range(levels):
        assert model.written[level] + tol >= model.sizes[level], f"L{level} holds more than was written into it"
    assert model.l0_files < trigger
    assert load == 0 or model.write_amp() >= 1.0


@pytest.mark.points(1)
@pytest.mark.parametrize("case", list(REFERENCE))
def test_matches_reference(write_amp, case):
    """A whole load: bytes written into each level and the write-amp, as the reference model computes them."""
    (memtable, trigger, base, multiplier, levels, load), expected = REFERENCE[case]
    model = write_amp.LeveledModel(memtable, trigger, base, multiplier, levels).load(load)
    assert model.written == pytest.approx(expected, rel=REL, abs=REL), f"bytes written per level (MiB), {case}"
    assert model.write_amp() == pytest.approx(sum(expected) / expected[0], rel=REL)
