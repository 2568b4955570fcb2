"""Graded tests of exercise 08, the leveled compaction picker, on worked examples and against a model.

Run them with ``pytest exercises/08_compaction_picker``. The ``leveled_picker`` fixture is your module
(``--student PATH`` grades another file or folder instead). The tests inside the engine are in
``test_leveled_picker_in_lsm.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.grading.repeatable import repeatable

MIB = 1 << 20
INF = float("inf")

# Worked examples: (level_bytes, l0_files, targets, l0_trigger, max_bytes_for_level_base) -> scores.
SCORE_EXAMPLES = {
    # Static targets, RocksDB's defaults: L1 256 MiB, x10 per level. L1 is 300 MiB, 1.17 times its target.
    "static": (([30 * MIB, 300 * MIB, 2048 * MIB, 20480 * MIB, 102400 * MIB], 2,
                [INF, 256 * MIB, 2560 * MIB, 25600 * MIB, 256000 * MIB], 4, 256 * MIB),
               [0.5, 1.171875, 0.8, 0.8]),
    # L0 has few files but many bytes (large memtables): its bytes over the base size decide, 600/256.
    "l0_by_bytes": (([600 * MIB, 0, 0, 1536 * MIB, 10240 * MIB], 3, [INF, INF, INF, 1024 * MIB, 10240 * MIB], 4,
                     256 * MIB),
                    [2.34375, 0.0, 0.0, 1.5]),
    # Dynamic targets: L1 and L2 sit above the base level (infinite targets) and score 0; L0 at its trigger.
    "dynamic": (([10 * MIB, 0, 0, 200 * MIB, 1000 * MIB], 4, [INF, INF, INF, 100 * MIB, 1000 * MIB], 4, 256 * MIB),
                [1.0, 0.0, 0.0, 2.0]),
}


@pytest.mark.points(1)
@pytest.mark.parametrize("example", SCORE_EXAMPLES)
def test_level_scores_worked_examples(leveled_picker, example):
    """level_scores gives RocksDB's scores on worked examples: L0 by files or bytes, Ln by bytes over target."""
    picker = leveled_picker.LeveledPicker()
    args, expected = SCORE_EXAMPLES[example]
    got = picker.level_scores(*args)
    assert isinstance(got, list) and len(got) == len(expected), (
        f"level_scores returned {got!r}: one score per level except the last ({len(expected)} here)"
    )
    assert got == pytest.approx(expected), (
        f"{example}: level_bytes={[b // MIB for b in args[0]]} MiB, l0_files={args[1]}, trigger={args[3]}: "
        f"scores {got}, expected {expected}"
    )


LEVEL_EXAMPLES = [  # (scores, levels to compact)
    ([0.5, 1.17, 0.8, 0.8], [1]),
    ([2.5, 1.2, 3.0, 0.2], [2, 0, 1]),
    ([1.0, 1.0, 0.0, 1.0], [0, 1, 3]),  # equal scores: the lower level first
    ([0.99, 0.5, 0.0], []),  # nothing is due
]


@pytest.mark.points(2)
def test_levels_to_compact_examples(leveled_picker):
    """levels_to_compact: the levels scoring at least 1, highest score first, ties to the lower level."""
    picker = leveled_picker.LeveledPicker()
    for scores, expected in LEVEL_EXAMPLES:
        got = picker.levels_to_compact(scores)
        assert list(got) == expected, f"levels_to_compact({scores}) = {got!r}, expected {expected}"


FILES = [b"c", b"f", b"k", b"p"]  # largest keys of a level's four files
POINTER_EXAMPLES = [  # (compact pointer, file to start at)
    (None, 0),  # no compaction yet: start at the first file
    (b"c", 1),  # the pointer is the first file's largest key: the next file
    (b"g", 2),  # between files
    (b"p", 0),  # the last file was compacted: wrap around
    (b"z", 0),  # past every file: wrap around
    (b"a", 0),  # before every file
]


@pytest.mark.points(2)
def test_round_robin_examples(leveled_picker):
    """round_robin: the first file whose largest key is past the compact pointer, else file 0."""
    picker = leveled_picker.LeveledPicker()
    for pointer, expected in POINTER_EXAMPLES:
        got = picker.round_robin(list(FILES), pointer)
        assert got == expected, f"round_robin({FILES}, {pointer!r}) = {got!r}, expected file {expected}"


@pytest.mark.points(3)
@repeatable
@given(scores=st.lists(st.sampled_from([0.0, 0.5, 0.99, 1.0, 1.5, 2.0, 7.25]), min_size=1, max_size=8))
def test_levels_to_compact_against_a_model(leveled_picker, scores):
    """For any scores: exactly the levels scoring >= 1, each after every level with a higher score or an equal
    score and a lower number."""
    picker = leveled_picker.LeveledPicker()
    got = list(picker.levels_to_compact(scores))
    assert sorted(got) == [lv for lv, s in enumerate(scores) if s >= 1], (
        f"levels_to_compact({scores}) = {got}: it must hold each level scoring at least 1, once, and no other"
    )
    for a, b in zip(got, got[1:]):
        assert (-scores[a], a) < (-scores[b], b), (
            f"levels_to_compact({scores}) = {got}: L{a} (score {scores[a]}) comes before L{b} (score {scores[b]})"
        )


@pytest.mark.points(2)
@repeatable
@given(keys=st.lists(st.binary(min_size=1, max_size=4), min_size=1, max_size=12, unique=True), data=st.data())
def test_round_robin_against_a_model(leveled_picker, keys, data):
    """For any level and pointer: the first file past the pointer, or 0 when there is none; a pointer equal to a
    file's largest key (the file compacted last) is not past it."""
    picker = leveled_picker.LeveledPicker()
    keys = sorted(keys)
    # Half the pointers sit on a boundary: some file's largest key, or one byte short of it.
    on_boundary = st.sampled_from(keys) | st.sampled_from(keys).map(lambda key: key[:-1])
    pointer = data.draw(st.none() | on_boundary | st.binary(max_size=5), label="pointer")
    after = [i for i, key in enumerate(keys) if pointer is None or key > pointer]
    expected = after[0] if after else 0
    got = picker.round_robin(keys, pointer)
    assert got == expected, f"round_robin({keys}, {pointer!r}) = {got!r}, expected file {expected}"
