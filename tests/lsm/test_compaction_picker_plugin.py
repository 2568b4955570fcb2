"""The leveled picker's plug point (compaction_picker.py): a plugged-in picker decides as the engine would, and its
answers are checked."""

from __future__ import annotations

import random
from bisect import bisect_right

import pytest

from minidb.kv import WriteBatch
from minidb.lsm import open_lsm
from minidb.storage import SimDevice

KIB = 1 << 10
OPTIONS = dict(memtable_bytes=16 * KIB, max_bytes_for_level_base=64 * KIB, max_bytes_for_level_multiplier=4,
               num_levels=4, target_file_size_base=8 * KIB, compaction_pri="round_robin", wal_sync="none")


class Picker:
    """Round-robin leveled picking written from the contract alone."""

    def level_scores(self, level_bytes, l0_files, targets, l0_trigger, base):
        return [max(l0_files / l0_trigger, level_bytes[0] / base)] + [
            0.0 if t == float("inf") else b / t for b, t in zip(level_bytes[1:-1], targets[1:-1])]

    def levels_to_compact(self, scores):
        return sorted((lv for lv, s in enumerate(scores) if s >= 1), key=lambda lv: (-scores[lv], lv))

    def round_robin(self, largest, pointer):
        i = 0 if pointer is None else bisect_right(largest, pointer)
        return i if i < len(largest) else 0


def load(**options) -> tuple[int, list[int]]:
    """Device bytes written by a random load, and files per level at the end."""
    device = SimDevice()
    engine = open_lsm(device, **OPTIONS, **options)
    rng = random.Random(5)
    for _ in range(600):
        batch = WriteBatch()
        for _ in range(10):
            batch.put("primary", b"k%08d" % rng.randrange(10**8), b"v" * 100)
        engine.write(batch)
    engine.close()
    return device.stats.total().write_bytes, [len(f) for f in engine.column_family("default").version.levels]


def test_a_picker_following_the_contract_picks_what_the_engine_picks():
    assert load(compaction_picker=Picker()) == load()


class Broken(Picker):
    def __init__(self, **answers):
        self.answers = answers

    def __getattribute__(self, name):
        answers = object.__getattribute__(self, "answers")
        if name in answers:
            return lambda *args: answers[name]
        return object.__getattribute__(self, name)


@pytest.mark.parametrize("answers, message", [
    (dict(level_scores=[1.0]), "level_scores returned \\[1.0\\]; it must return 3 numbers"),
    (dict(level_scores=[5, -1, 0]), "numbers >= 0"),
    (dict(levels_to_compact=[2]), "levels_to_compact.*returned \\[2\\]; it must return levels .* score is >= 1"),
    (dict(round_robin=99), "round_robin.*returned 99; it must return an index"),
])
def test_bad_answers_are_refused_with_the_function_named(answers, message):
    with pytest.raises(ValueError, match=message):
        load(compaction_picker=Broken(**answers))


def test_bad_picker_options():
    with pytest.raises(ValueError, match="needs a function level_scores"):
        open_lsm(SimDevice(), compaction_picker=object(), compaction_pri="round_robin")
    with pytest.raises(ValueError, match="compaction_pri='round_robin'"):
        open_lsm(SimDevice(), compaction_picker=Picker())
    with pytest.raises(ValueError, match="compaction='leveled'"):
        open_lsm(SimDevice(), compaction_picker=Picker(), compaction="universal", compaction_pri="round_robin")
