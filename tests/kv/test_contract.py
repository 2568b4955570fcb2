"""The engine contract (``minidb.kv.Engine``), checked the same way against the B+tree, the LSM and the test double.

Every test here takes ``engine`` (one of the three, fresh on a simulated device) and uses only what the contract
declares; where the contract leaves a choice to the engine (what ``stats()`` holds), the test says only what is
common. Reopening after ``close`` is checked for the engines that persist (the double keeps nothing).
"""

import pytest
from hypothesis import given, strategies as st

from minidb import engines
from minidb.kv import BULK_LOAD_BATCH, WORK, Engine, WriteBatch
from minidb.storage import SimDevice
from table.kv_double import DictEngine

SMALL = {  # small sizes, so that a few hundred keys already flush, split and evict
    "btree": dict(page_size=4096, buffer_pool_bytes=16 * 4096),
    "lsm": dict(memtable_bytes=8 << 10, block_size=1024, max_bytes_for_level_base=32 << 10,
                target_file_size_base=8 << 10, block_cache_bytes=64 << 10),
}
KINDS = (*engines.NAMES, "double")


def open_kind(kind: str, device=None) -> Engine:
    device = device if device is not None else SimDevice()
    if kind == "double":
        return DictEngine(device)
    return engines.get(kind).open(device, **SMALL[kind])


@pytest.fixture(params=KINDS)
def engine(request):
    e = open_kind(request.param)
    yield e
    e.close()


def test_every_engine_is_an_engine(engine):
    assert isinstance(engine, Engine)


def test_keyspaces_are_created_explicitly_or_by_a_first_put(engine):
    assert engine.keyspaces() == []
    engine.create_keyspace("sec", unique=False)
    engine.create_keyspace("sec", unique=False)  # again, with the same option: nothing happens
    engine.put("pk", b"k", b"v")  # a keyspace that does not exist is created, unique
    assert engine.keyspaces() == ["pk", "sec"]
    assert engine.is_unique("pk") and not engine.is_unique("sec")
    with pytest.raises(ValueError, match="'sec'"):
        engine.create_keyspace("sec", unique=True)
    with pytest.raises(ValueError, match="no keyspace 'nope'; keyspaces: pk, sec"):
        engine.is_unique("nope")


def test_reading_a_keyspace_that_does_not_exist_finds_nothing(engine):
    assert engine.get("ghost", b"k") is None
    assert list(engine.scan("ghost")) == []


def test_put_get_delete_and_scan_bounds(engine):
    for i in range(10):
        engine.put("t", b"k%d" % i, b"v%d" % i)
    engine.delete("t", b"k3")
    engine.delete("t", b"absent")  # deleting an absent key is not an error
    assert engine.get("t", b"k2") == b"v2" and engine.get("t", b"k3") is None
    assert [k for k, _ in engine.scan("t", b"k2", b"k6")] == [b"k2", b"k4", b"k5"]  # lo included, hi excluded
    assert [k for k, _ in engine.scan("t", hi=b"k2")] == [b"k0", b"k1"]
    assert [k for k, _ in engine.scan("t", lo=b"k8")] == [b"k8", b"k9"]


def test_a_batch_applies_in_order(engine):
    batch = WriteBatch()
    batch.put("t", b"a", b"1")
    batch.put("t", b"a", b"2")
    batch.put("t", b"b", b"x")
    batch.delete("t", b"b")
    engine.write(batch)
    assert engine.get("t", b"a") == b"2" and engine.get("t", b"b") is None


def test_work_has_the_same_counters_in_every_engine_and_they_only_grow(engine):
    before = engine.work()
    assert set(before) == set(WORK)
    assert all(isinstance(v, int) and v >= 0 for v in before.values())
    for i in range(300):
        engine.put("t", b"%05d" % i, b"x" * 50)
    for i in range(0, 300, 7):
        engine.get("t", b"%05d" % i)
    after = engine.work()
    assert set(after) == set(WORK)
    assert all(after[name] >= before[name] for name in WORK)
    assert after["key_compares"] > before["key_compares"]
    assert after["cache_hits"] + after["cache_misses"] > before["cache_hits"] + before["cache_misses"]


def test_last_write_memory_holds_at_least_the_batch(engine):
    assert engine.last_write_memory() == 0
    batch = WriteBatch()
    for i in range(20):
        batch.put("t", b"key%d" % i, b"v" * 30)
    engine.write(batch)
    assert engine.last_write_memory() >= batch.nbytes
    assert engine.last_write_memory() <= 3 * batch.nbytes  # the batch, at most one copy, and bookkeeping


def test_begin_starts_a_transaction_that_commits_as_one_and_rolls_back(engine):
    with engine.begin(max_rows=100) as txn:
        for i in range(20):
            txn.put("t", b"key%02d" % i, b"v")
        assert txn.get("t", b"key05") == b"v"
    assert txn.chunks == 1 and txn.stats.operations == 20 and txn.peak_bytes > 0
    txn = engine.begin()
    txn.delete("t", b"key00")
    txn.put("t", b"new", b"x")
    txn.rollback()
    assert engine.get("t", b"key00") == b"v" and engine.get("t", b"new") is None


def test_stats_is_a_dict_and_flush_keeps_the_data(engine):
    engine.put("t", b"k", b"v")
    engine.flush()
    assert isinstance(engine.stats(), dict)
    assert engine.get("t", b"k") == b"v"


@pytest.mark.parametrize("kind", engines.NAMES)
def test_a_closed_database_reopens_with_its_keyspaces_and_data(kind):
    device = SimDevice()
    e = open_kind(kind, device)
    e.create_keyspace("sec", unique=False)
    e.put("pk", b"k", b"v")
    e.close()
    e = open_kind(kind, device)
    assert e.keyspaces() == ["pk", "sec"] and not e.is_unique("sec") and e.get("pk", b"k") == b"v"
    e.close()


def test_a_running_engine_has_no_background_error_and_resume_changes_nothing(engine):
    engine.put("pk", b"k", b"v")
    assert engine.background_error is None and not engine.stopped
    engine.resume()
    assert engine.background_error is None and engine.get("pk", b"k") == b"v"


PAIRS = st.dictionaries(st.binary(min_size=1, max_size=4), st.binary(max_size=12), max_size=80)


@pytest.mark.parametrize("kind", KINDS)
@given(data=PAIRS)
def test_a_bulk_load_reads_back_sorted_whatever_the_order_of_its_pairs(kind, data):
    engine = open_kind(kind)
    written = engine.bulk_load("idx", reversed(list(data.items())), unique=False)
    assert list(engine.scan("idx")) == sorted(data.items())
    assert not engine.is_unique("idx") and (written == 0) == (not data)
    engine.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_bulk_load_survives_a_reopen(kind):
    device = SimDevice()
    e = open_kind(kind, device)
    e.bulk_load("idx", [(b"%04d" % i, b"v") for i in range(300)])
    e.close()
    if kind == "double":
        return  # the double keeps nothing across a reopen
    e = open_kind(kind, device)
    assert len(list(e.scan("idx"))) == 300 and not e.is_unique("idx")
    e.close()


def test_a_bulk_load_refuses_a_repeated_key_before_writing_anything(engine):
    with pytest.raises(ValueError, match="bulk load into keyspace 'idx': key 6b appears twice"):
        engine.bulk_load("idx", [(b"k", b"1"), (b"j", b"0"), (b"k", b"2")])
    assert list(engine.scan("idx")) == []


@pytest.mark.parametrize("n, batches", [(BULK_LOAD_BATCH - 1, 1), (BULK_LOAD_BATCH, 1), (BULK_LOAD_BATCH + 1, 2)])
def test_the_default_bulk_load_writes_one_batch_per_bulk_load_batch_entries(n, batches):
    engine = DictEngine(SimDevice())
    assert engine.bulk_load("idx", [(b"%05d" % i, b"") for i in range(n)]) == batches
    assert len(list(engine.scan("idx"))) == n


def test_the_default_bulk_load_replaces_what_a_failed_load_left():
    engine = DictEngine(SimDevice())
    engine.bulk_load("idx", [(b"stale", b"x"), (b"a", b"old")])
    engine.bulk_load("idx", [(b"a", b"1"), (b"b", b"2")])
    assert list(engine.scan("idx")) == [(b"a", b"1"), (b"b", b"2")]


OPS = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.binary(min_size=1, max_size=3),
                         st.one_of(st.none(), st.binary(max_size=20))), max_size=60)


@pytest.mark.parametrize("kind", KINDS)
@given(batches=st.lists(OPS, max_size=6))
def test_any_sequence_of_batches_reads_back_as_a_dict_model(kind, batches):
    engine = open_kind(kind)
    model: dict[str, dict[bytes, bytes]] = {"a": {}, "b": {}}
    for ops in batches:
        batch = WriteBatch()
        for ks, key, value in ops:
            if value is None:
                batch.delete(ks, key)
                model[ks].pop(key, None)
            else:
                batch.put(ks, key, value)
                model[ks][key] = value
        engine.write(batch)
    for ks, data in model.items():
        assert list(engine.scan(ks)) == sorted(data.items())
        for key, value in data.items():
            assert engine.get(ks, key) == value
    engine.close()


@pytest.mark.parametrize("kind,log", [("btree", "redo"), ("lsm", "wal")])
def test_under_group_commit_commits_wait_until_sync_log_writes_and_syncs_the_log_once(kind, log):
    device = SimDevice()
    engine = open_kind(kind, device)
    engine.put("t", b"init", b"")  # creates the keyspace (the LSM's MANIFEST edit) before the counts start
    engine.set_group_commit(True)
    before = device.stats.total(kind=log)
    for i in range(6):
        engine.put("t", b"%d" % i, b"v")
        assert engine.get("t", b"%d" % i) == b"v"  # applied at once, durable at the group's sync_log
    waiting = device.stats.total(kind=log) - before
    assert (waiting.writes, waiting.syncs) == (0, 0)
    engine.sync_log()
    synced = device.stats.total(kind=log) - before
    assert (synced.writes, synced.syncs) == (1, 1)
    engine.sync_log()  # nothing waits: no IO
    assert device.stats.total(kind=log) - before == synced


def value(op: int) -> bytes:
    return (b"v%d-" % op).ljust(200, b".")


@pytest.mark.parametrize("kind", engines.NAMES)
@given(ops=st.lists(st.one_of(st.integers(0, 40), st.just("sync")), max_size=120))
def test_under_group_commit_a_crash_keeps_a_prefix_of_the_writes_through_the_last_sync_log(kind, ops):
    # A server's group commit acknowledges a commit only after its group's sync_log: a crash then keeps every write
    # up to the last sync_log, and at most some later ones, in order (a log flushed early by its own needs).
    device = SimDevice()
    engine = open_kind(kind, device)
    engine.put("t", b"init", b"")
    engine.sync_log()
    engine.set_group_commit(True)
    written, synced = [], 0
    for op in ops:
        if op == "sync":
            engine.sync_log()
            synced = len(written)
        else:
            engine.put("t", b"%04d" % len(written), value(op))  # 200 bytes: the LSM seals memtables
            written.append(op)
    device.crash()
    engine = open_kind(kind, device)
    kept = [engine.get("t", b"%04d" % i) for i in range(len(written))]
    n = sum(v is not None for v in kept)
    assert kept[:n] == [value(op) for op in written[:n]] and synced <= n
    assert all(v is None for v in kept[n:])


@pytest.mark.parametrize("kind,log,policy", [("btree", "redo", "none"), ("lsm", "wal", "none"),
                                             ("btree", "redo", ("every", 3)), ("lsm", "wal", ("every", 3))])
def test_group_commit_leaves_a_policy_that_does_not_sync_every_commit_alone(kind, log, policy):
    # MySQL's flush stage syncs an engine's log only where the engine would sync at every commit
    # (innodb_flush_log_at_trx_commit=1): with sync on commit disabled, as in seed 000, it adds no sync.
    device = SimDevice()
    option = "redo_sync" if kind == "btree" else "wal_sync"
    engine = engines.get(kind).open(device, **SMALL[kind], **{option: policy})
    engine.put("t", b"init", b"")
    engine.set_group_commit(True)
    before = device.stats.total(kind=log)
    for i in range(6):
        engine.put("t", b"%d" % i, b"v")
        engine.sync_log()
    assert (device.stats.total(kind=log) - before).syncs == (0 if policy == "none" else 2)
