"""The compaction viewer and what it stands on: engine listeners and compact_level0."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.commands.lsm_shape.viewer import EVENT_COLUMNS, ShapeRecorder, render, watch
from minidb.sim import Clock
from minidb.storage import preset

from .lsm_helpers import insert_benchmark_batches, open_tiny


class Counting:
    """A listener that counts what it is told."""

    def __init__(self):
        self.flushes = self.compactions = 0

    def on_flush_completed(self, engine, job):
        assert job.kind == "flush" and not engine.cfs[job.cf.id].flushing  # installed before it is told
        self.flushes += 1

    def on_compaction_completed(self, engine, job):
        assert job.kind == "compaction"
        self.compactions += 1


def load(db, rows=6000):
    for b in insert_benchmark_batches(rows, batch_rows=50):
        db.write(b)
    return db.stats()


def test_listeners_hear_of_every_installed_flush_and_compaction():
    listener = Counting()
    db = open_tiny(listeners=(listener,))
    s = load(db)
    assert s["flushes"] > 3 and s["compactions"] > 0
    assert listener.flushes == s["flushes"]
    assert listener.compactions == s["compactions"] + s["trivial_moves"]


def test_a_listener_only_looks_the_io_is_the_same_with_and_without():
    plain = open_tiny(clock=Clock(preset("nvme")))
    watched = open_tiny(clock=Clock(preset("nvme")), listeners=[ShapeRecorder()])
    load(plain), load(watched)
    assert plain.device.stats.total() == watched.device.stats.total()
    assert plain.clock.now == watched.clock.now


@pytest.mark.parametrize("bad", [(object(),), "not a tuple", (Counting, 1)])
def test_a_listener_without_hooks_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="listeners"):
        open_tiny(listeners=bad)


def test_compact_level0_empties_the_memtables_and_l0_and_keeps_every_key():
    db = open_tiny(level0_file_num_compaction_trigger=8, level0_slowdown_writes_trigger=20,
                   level0_stop_writes_trigger=30)
    load(db, 3000)
    before = db.stats()
    assert before["l0_files"] > 0 and db.cfs[0].mem.entries > 0
    expected = dict(db.scan("pk"))
    db.compact_level0()
    after = db.stats()
    assert after["l0_files"] == 0 and db.cfs[0].mem.entries == 0 and after["immutable_memtables"] == 0
    assert dict(db.scan("pk")) == expected
    gets = after["gets"]
    for key in list(expected)[::97]:
        assert db.get("pk", key) == expected[key]
    s = db.stats()
    assert s["get_tables_probed"] - after["get_tables_probed"] <= (s["gets"] - gets) * (db.cfs[0].version.num_levels)


def test_compact_level0_with_nothing_in_l0_compacts_nothing():
    db = open_tiny()
    db.put("pk", b"a", b"1")
    db.compact_level0()  # flushes the one key: one L0 file, merged down
    s = db.stats()
    assert s["l0_files"] == 0 and s["compactions"] == 1
    db.compact_level0()  # L0 and the memtable are empty: nothing to do
    assert db.stats()["compactions"] == 1 and db.get("pk", b"a") == b"1"


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 300), st.binary(max_size=20) | st.none()), min_size=1, max_size=400),
       st.sampled_from(["leveled", "universal"]))
def test_compact_level0_matches_a_dict_model(ops, style):
    db = open_tiny(memtable_bytes=1024, compaction=style)
    model = {}
    for i, (k, v) in enumerate(ops):
        key = k.to_bytes(2, "big")
        if v is None:
            db.delete("pk", key)
            model.pop(key, None)
        else:
            db.put("pk", key, v)
            model[key] = v
        if i % 97 == 96:
            db.compact_level0()
    db.compact_level0()
    assert db.stats()["l0_files"] == 0 or style == "universal"
    assert dict(db.scan("pk")) == model


@pytest.fixture(scope="module")
def log():
    return watch(6000)


def test_watch_records_every_job_and_the_final_shape(log):
    events = log.events()
    assert list(events.columns) == list(EVENT_COLUMNS)
    assert events.event.tolist() == list(range(1, len(events) + 1))
    assert (events.kind == "flush").sum() >= 3 and (events.kind != "flush").sum() >= 1
    assert events.time.is_monotonic_increasing
    levels = log.levels()
    assert len(levels) == len(events) * log.num_levels
    flushes = events[events.kind == "flush"]
    assert (flushes.output_level == 0).all() and (flushes.input_files == 0).all()
    comp = events[events.kind == "compaction"]
    assert (comp.output_level > comp.start_level).all() and comp.reason.isin(["level0", "level-size"]).all()
    # after a flush L0 holds one more file than after the job before it
    files = levels[levels.level == "L0"].set_index("event").files
    for e in flushes.event:
        if e > 1:
            assert files[e] == files[e - 1] + 1


def test_watch_is_deterministic(log):
    assert watch(6000).events().equals(log.events())


def test_render_says_what_and_why(log):
    text = render(log, limit=3)
    assert text.count("\n#") == 2 and text.startswith("#1 at ")
    assert "flush -> L0" in text and "why: the memtable filled up" in text and "write-amp so far" in text
    assert render(log, every=2).count("why:") == len(log.rows) // 2
    with pytest.raises(ValueError, match="every"):
        render(log, every=0)


def test_universal_reasons_are_universal_pickers():
    events = watch(20_000, compaction="universal").events()
    picked = set(events[events.kind != "flush"].reason)
    assert picked and picked <= {"size-amp", "size-ratio", "sorted-runs"}


def test_too_few_rows_to_flush_is_a_clear_error():
    with pytest.raises(ValueError, match="never filled a memtable"):
        watch(10)
