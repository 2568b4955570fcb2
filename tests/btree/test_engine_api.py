"""The engine as a minidb.kv.Engine: options, argument checks, keyspaces, batches, scans, stats, check(), and the
page cleaner's schedule."""

import pytest

from minidb.btree import BTreeEngine, PageCleanerOptions, open_btree
from minidb.btree import engine as engine_module
from minidb.btree.page import Page
from minidb.errors import CorruptionError, DeviceCrashed
from minidb.kv import Engine, WriteBatch
from minidb.sim import Clock
from minidb.storage import SimDevice

from .helpers import small_engine


@pytest.mark.parametrize("options, message", [
    (dict(page_size=2048), "bad page_size 2048: must be one of 4096, 8192, 16384"),
    (dict(buffer_pool_bytes="big"), "bad buffer_pool_bytes 'big'"),
    (dict(fill_factor=0.3), r"bad fill_factor 0.3: must be a number >= 0.5 and <= 1.0"),
    (dict(merge_threshold=0.9), "bad merge_threshold 0.9"),
    (dict(doublewrite="yes"), "bad doublewrite 'yes': must be True or False"),
    (dict(change_buffer=1), "bad change_buffer 1"),
    (dict(change_buffer_max_size=0.9), "bad change_buffer_max_size 0.9"),
    (dict(redo_sync="always"), r"bad redo_sync 'always': must be 'commit', \('every', N\)"),
    (dict(redo_sync=("every", 0)), r"bad redo_sync \('every', 0\)"),
    (dict(redo_log_bytes=1000), "bad redo_log_bytes 1000"),
    (dict(page_cleaner="on"), "bad page_cleaner 'on'"),
    (dict(split_policy=object()), r"bad option split_policy=<object object at .*>: a SplitPolicy needs a function "
                                  r"choose_split\(\)"),
    (dict(clock=1.0), "bad clock 1.0"),
])
def test_wrong_options_name_the_option_and_value(options, message):
    with pytest.raises(ValueError, match=message):
        open_btree(SimDevice(), **options)


def test_page_cleaner_options_are_checked():
    with pytest.raises(ValueError, match="bad page_cleaner.io_capacity 0: must be an int >= 1"):
        PageCleanerOptions(io_capacity=0)
    with pytest.raises(ValueError, match="page_cleaner.dirty_pct_lwm 95 must not exceed"):
        PageCleanerOptions(dirty_pct_lwm=95)


def test_unknown_option_and_bad_device():
    with pytest.raises(ValueError, match=r"unknown B\+tree option page_sise=4096"):
        open_btree(SimDevice(), page_sise=4096)
    with pytest.raises(ValueError, match="bad device"):
        open_btree("a-directory-name")


def test_it_is_an_engine():
    engine, _ = small_engine()
    assert isinstance(engine, BTreeEngine) and isinstance(engine, Engine)


@pytest.mark.parametrize("call, message", [
    (lambda e: e.put("t", b"", b"v"), "a key must be non-empty bytes"),
    (lambda e: e.put("t", "k", b"v"), "a key must be non-empty bytes"),
    (lambda e: e.put("t", b"k", "v"), "a value must be bytes"),
    (lambda e: e.put("__x", b"k", b"v"), "names starting with '__' are reserved"),
    (lambda e: e.put("", b"k", b"v"), "a keyspace name must be a non-empty string"),
    (lambda e: e.put("t", b"k", b"v" * 2100), r"row of 2101 bytes \(key 1 \+ value 2100\) is larger than half a page: "
                                                r"at most 2022 bytes"),
    (lambda e: e.put("t", b"k" * 2010, b""), "key of 2010 bytes is longer than the 2006 bytes"),
    (lambda e: e.create_keyspace("t", unique="no"), "bad unique 'no'"),
    (lambda e: e.write([("t", b"k", b"v")]), "write\\(\\) takes a WriteBatch"),
    (lambda e: list(e.scan("t", lo=5)), "scan bounds must be bytes or None"),
])
def test_bad_arguments(call, message):
    engine, _ = small_engine()
    with pytest.raises(ValueError, match=message):
        call(engine)


def test_a_batch_with_one_bad_row_applies_nothing():
    engine, _ = small_engine()
    batch = WriteBatch()
    batch.put("t", b"a", b"1")
    batch.put("t", b"b", b"x" * 5000)
    with pytest.raises(ValueError, match="write op 1: keyspace 't': row of 5001 bytes"):
        engine.write(batch)
    assert engine.keyspaces() == [] and engine.get("t", b"a") is None


def test_batches_are_atomic_ordered_and_create_keyspaces():
    engine, _ = small_engine()
    batch = WriteBatch()
    batch.put("a", b"k", b"1")
    batch.put("a", b"k", b"2")
    batch.delete("b", b"nothing")
    batch.put("b", b"x", b"y")
    batch.delete("a", b"gone")
    engine.write(batch)
    assert engine.keyspaces() == ["a", "b"]
    assert engine.get("a", b"k") == b"2" and engine.get("b", b"x") == b"y"
    assert engine.is_unique("a")
    engine.write(WriteBatch())  # an empty batch is fine
    with pytest.raises(ValueError, match="no keyspace 'zz'; keyspaces: a, b"):
        engine.is_unique("zz")


def test_a_failure_after_a_page_change_but_before_its_redo_record_rolls_the_batch_back(monkeypatch):
    """A change reaches a page (its undo noted) and the operation fails before the change's redo record: the
    failure handler must roll the batch back, as for a failure after it, or the pool would keep a change that
    neither the log nor a reopen knows."""
    device = SimDevice()
    db = open_btree(device, page_cleaner=None)
    db.put("t", b"a", b"value-a")
    real = engine_module.apply_ops

    def change_then_fail(ops, i, trees, mtr, pool, limit):
        frame = db.pager.fetch(trees["t"].root, "t")
        mtr.undo_before(frame, trees["t"].index_id, b"a")
        at = frame.buf.index(b"value-a")
        frame.buf[at:at + 7] = b"VALUE-A"  # the change, made in place: its redo record would come next
        raise RuntimeError("injected between a page change and its redo record")

    monkeypatch.setattr(engine_module, "apply_ops", change_then_fail)
    with pytest.raises(RuntimeError, match="injected"):
        db.put("t", b"a", b"value-b")
    monkeypatch.setattr(engine_module, "apply_ops", real)
    assert db.get("t", b"a") == b"value-a"
    db.put("t", b"c", b"value-c")
    db.close()
    again = open_btree(device, page_cleaner=None)
    assert dict(again.scan("t")) == {b"a": b"value-a", b"c": b"value-c"}


def test_reads_of_missing_keyspaces_and_scan_bounds():
    engine, _ = small_engine()
    assert engine.get("none", b"k") is None and list(engine.scan("none")) == []
    for i in range(100):
        engine.put("t", b"%03d" % i, b"%d" % i)
    assert [k for k, _ in engine.scan("t", b"010", b"013")] == [b"010", b"011", b"012"]
    assert list(engine.scan("t", b"050", b"050")) == [] and list(engine.scan("t", b"060", b"050")) == []
    assert len(list(engine.scan("t", hi=b"010"))) == 10 and len(list(engine.scan("t", lo=b"090"))) == 10


def test_a_scan_continues_correctly_while_the_tree_changes():
    engine, _ = small_engine(buffer_pool_bytes=64 * 4096)
    for i in range(0, 4000, 2):
        engine.put("t", b"%05d" % i, b"x" * 30)
    seen = []
    for k, _ in engine.scan("t"):
        seen.append(k)
        if len(seen) % 100 == 0:  # splits and merges under the cursor
            n = int(k)
            for j in range(n - 50, n + 300):
                engine.put("t", b"%05d" % j, b"y" * 30)
    assert seen == sorted(set(seen)) and len(seen) > 2000


def test_closed_and_crashed_engines_refuse_work():
    engine, device = small_engine()
    engine.put("t", b"k", b"v")
    engine.close()
    with pytest.raises(ValueError, match="the B\\+tree engine is closed"):
        engine.get("t", b"k")
    engine, _ = small_engine(device)
    device.crash_at_io(1)
    with pytest.raises(DeviceCrashed):
        engine.put("t", b"k2", b"v")
    with pytest.raises(DeviceCrashed, match="reopen the database with open_btree"):
        engine.get("t", b"k")
    engine.close()  # a dead engine closes without writing
    assert small_engine(device)[0].get("t", b"k") == b"v"


def test_stats_report_trees_pool_space_and_io():
    engine, _ = small_engine()
    engine.create_keyspace("s", unique=False)
    for i in range(3000):
        engine.put("t", b"%06d" % i, b"x" * 50)
        engine.put("s", b"%06d" % (i * 7919 % 3000), b"")
    s = engine.stats()
    t = s["keyspaces"]["t"]
    assert t["height"] == 2 and t["records"] == 3000 and len(t["leaf_fill"]) == t["leaf_pages"]
    assert 0.9 < t["leaf_fill_mean"] < 0.95 and s["keyspaces"]["s"]["unique"] is False
    assert s["space"]["pages"] == s["space"]["used_pages"] + s["space"]["free_pages"]
    assert s["space"]["tablespace_bytes"] % 4096 == 0
    assert s["buffer_pool"]["frames"] == 16 and s["splits"] > 0
    assert s["redo"]["lsn"] >= s["redo"]["checkpoint_lsn"]
    assert sum(t["page_writes"].values()) > 0
    assert s["change_buffer"]["enabled"] and s["doublewrite"]
    assert "height" not in engine.stats(trees=False)["keyspaces"]["t"]


def test_check_finds_broken_order_and_links():
    engine, _ = small_engine(buffer_pool_bytes=64 * 4096)
    for i in range(2000):
        engine.put("t", b"%05d" % i, b"x" * 30)
    assert engine.check()["keyspaces"]["t"]["records"] == 2000
    tree = engine.trees["t"]
    tree.try_seek(b"01000")
    leaf = Page(tree.leaf_frame.buf)
    leaf.insert_at(leaf.nrecs, b"00000", b"out of place")  # behind the page's greater keys
    with pytest.raises(CorruptionError, match=r"index 't', page \d+: keys out of order"):
        engine.check()
    leaf.delete_at(leaf.nrecs - 1)
    leaf.next = 12345
    with pytest.raises(CorruptionError, match=r"level-0 links are prev=\d+ next=12345, expected"):
        engine.check()


def test_page_cleaner_runs_every_n_commits_and_can_be_off():
    runs = {}
    for cleaner in (PageCleanerOptions(every_commits=10), None):
        engine, device = small_engine(buffer_pool_bytes=64 * 4096, page_cleaner=cleaner)
        for i in range(1000):
            engine.put("t", b"%06d" % (i * 7919 % 100000), b"x" * 100)
        runs[cleaner is None] = (engine.stats(trees=False)["page_cleaner"],
                                 device.stats.total(cause="page-cleaner").writes)
    stats, writes = runs[False]
    assert stats["runs"] == 99 and writes > 0 and stats["flush_list_pages"] > 0
    assert runs[True] == (None, 0)


def test_with_a_clock_the_page_cleaner_runs_once_per_simulated_second():
    clock = Clock()
    engine, _ = small_engine(buffer_pool_bytes=64 * 4096, page_cleaner=PageCleanerOptions(every_commits=1),
                             clock=clock)
    for i in range(500):
        engine.put("t", b"%06d" % i, b"x" * 100)
    assert engine.stats(trees=False)["page_cleaner"]["runs"] == 0  # no simulated time passed
    for i in range(500):
        clock.advance(0.25)
        engine.put("t", b"%06d" % (i + 500), b"x" * 100)
    assert engine.stats(trees=False)["page_cleaner"]["runs"] == 125


def test_the_serial_work_is_the_redo_log_bytes_copied_and_checksummed():
    engine, device = small_engine()
    before = engine.serial_work()
    batch = WriteBatch()
    for i in range(50):
        batch.put("pk", i.to_bytes(8, "big"), b"v" * 40)
    engine.write(batch)
    after = engine.serial_work()
    grown = after["copy_bytes"] - before["copy_bytes"]
    assert grown == after["crc32_bytes"] - before["crc32_bytes"] == engine.redo.lsn - before["copy_bytes"] > 50 * 40
    assert set(after) == {"copy_bytes", "crc32_bytes"}
