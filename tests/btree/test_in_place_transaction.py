"""The B+tree's in-place transactions (minidb/btree/in_place.py): flat memory, undo in the log, rollback and crash
recovery taking back what did not commit, the limits at their boundaries, and commit in the middle's price."""

import random

import pytest
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from minidb.btree import PageCleanerOptions
from minidb.btree.in_place import InPlaceTransaction
from minidb.errors import DeviceCrashed
from minidb.kv import BatchTooLarge
from minidb.storage import SimDevice
from minidb.transaction import Transaction

from .helpers import contents, small_engine

VALUE = b"v" * 100


def rows(txn, n, start=0, value=VALUE):
    for i in range(start, start + n):
        txn.put("t", b"%08d" % i, value)


def test_begin_gives_the_in_place_kind():
    engine, _ = small_engine()
    assert isinstance(engine.begin(), InPlaceTransaction)


def test_memory_stays_flat_whatever_the_size():
    engine, _ = small_engine()
    peaks = []
    for n, start in ((100, 0), (3_000, 100)):
        txn = engine.begin()
        rows(txn, n, start)
        assert txn.nbytes == 0
        txn.commit()
        peaks.append(txn.peak_bytes)
    # One change and its undo record, at most: 8-byte key, 100-byte value, their headers.
    assert peaks[0] == peaks[1] and peaks[0] < 2 * (8 + 100 + 8) + 64
    buffered = Transaction(engine)
    rows(buffered, 3_000, 10_000)
    buffered.commit()
    assert buffered.peak_bytes > 100 * peaks[1]


def test_reads_see_changes_at_once_and_rollback_takes_them_back():
    engine, _ = small_engine()
    for i in range(50):
        engine.put("t", b"%08d" % i, b"old")
    before = contents(engine)
    txn = engine.begin()
    rows(txn, 2_000)  # overwrites the 50, inserts the rest: splits, pages evicted before commit
    txn.delete("t", b"%08d" % 7)
    assert txn.get("t", b"%08d" % 7) is None and engine.get("t", b"%08d" % 1_999) == VALUE
    assert sum(1 for _ in txn.scan("t")) == 1_999
    txn.rollback()
    assert contents(engine) == before
    engine.check()
    assert engine.stats(trees=False)["rollbacks"] == 1


def test_rollback_takes_back_buffered_changes_that_a_read_merged():
    engine, _ = small_engine()
    engine.create_keyspace("s", unique=False)
    rng = random.Random(3)
    keys = [b"%08d" % rng.randrange(10**8) for _ in range(3_000)]
    for i in range(0, 3_000, 500):
        batch_txn = Transaction(engine)
        for key in keys[i:i + 500]:
            batch_txn.put("s", key, b"old")
        batch_txn.commit()
    before = contents(engine)
    buffered = engine.stats(trees=False)["change_buffer"]
    txn = engine.begin()
    for key in keys[:1_500]:
        txn.put("s", key, b"new")  # most leaves are not in the pool: the changes go to the change buffer
    cb = engine.stats(trees=False)["change_buffer"]
    assert cb["buffered"] > buffered["buffered"]
    for key in keys[:1_500:50]:
        assert txn.get("s", key) == b"new"  # reading the leaf merges the transaction's own entries into it
    assert engine.stats(trees=False)["change_buffer"]["merged"] > cb["merged"]
    txn.rollback()
    assert contents(engine) == before
    engine.check()


def test_a_read_merging_older_changes_does_not_end_the_transaction_in_the_log():
    engine, device = small_engine()
    engine.create_keyspace("s", unique=False)
    rng = random.Random(4)
    keys = [b"%08d" % rng.randrange(10**8) for _ in range(4_000)]
    for i in range(0, 4_000, 500):  # the later batches find leaves that left the pool: their entries are buffered
        load = Transaction(engine)
        for key in keys[i:i + 500]:
            load.put("s", key, b"old")
        load.commit()
    engine.create_keyspace("t")
    before = {"s": {key: b"old" for key in keys}, "t": {}}  # (a scan would merge every buffered entry)
    merged = engine.stats(trees=False)["change_buffer"]["merged"]
    txn = engine.begin()
    rows(txn, 200)
    for key in keys[2_000::20]:
        engine.get("s", key)  # merges entries buffered before the transaction, in groups of their own
    assert engine.stats(trees=False)["change_buffer"]["merged"] > merged
    rows(txn, 200, start=200)
    device.crash()
    engine, _ = small_engine(device)
    assert contents(engine) == before
    engine.check()


def test_the_undo_is_written_to_the_log_and_counted():
    def redo_bytes(make_txn):
        engine, device = small_engine(buffer_pool_bytes=1024 * 4096)  # the buffered batch is one mtr: no undo
        before = device.stats.total(kind="redo").write_bytes
        txn = make_txn(engine)
        rows(txn, 500)
        txn.commit()
        return device.stats.total(kind="redo").write_bytes - before
    # In place, every change's group carries its undo record, at least the 8-byte key it names.
    assert redo_bytes(lambda e: e.begin()) - redo_bytes(lambda e: Transaction(e)) >= 500 * 8


def test_one_writer_while_a_transaction_is_open():
    engine, _ = small_engine()
    txn = engine.begin()
    txn.put("t", b"a", b"1")
    for call in (lambda: engine.put("t", b"b", b"2"), lambda: engine.delete("t", b"a"), engine.begin,
                 lambda: engine.create_keyspace("u")):
        with pytest.raises(ValueError, match=r"a transaction is open on this B\+tree engine \(engine.begin\(\)\)"):
            call()
    txn.commit()
    engine.put("t", b"b", b"2")  # the engine takes writes again
    assert engine.get("t", b"a") == b"1"


@pytest.mark.parametrize("n", [9, 10])
def test_a_row_limit_allows_n_changes_and_refuses_the_next(n):
    engine, _ = small_engine()
    txn = engine.begin(max_rows=10)
    rows(txn, n)
    if n == 10:
        with pytest.raises(BatchTooLarge, match=r"11 changes, over its limit of 10 \(max_rows, our rocksdb_max_row"):
            rows(txn, 1, start=n)
    else:
        rows(txn, 1, start=n)
    txn.commit()
    assert sum(1 for _ in engine.scan("t")) == 10


@pytest.mark.parametrize("extra", [0, 1])
def test_a_memory_limit_bounds_one_change(extra):
    engine, _ = small_engine()
    limit = 8 + 100 + 8  # key, value, per-change overhead: exactly one change of ``rows``
    txn = engine.begin(max_bytes=limit)
    rows(txn, 3)
    if extra:
        with pytest.raises(BatchTooLarge, match=rf"117 bytes, over its limit of {limit} bytes \(max_bytes"):
            rows(txn, 1, start=3, value=VALUE + b"x")
    txn.commit()
    assert sum(1 for _ in engine.scan("t")) == 3


def test_close_rolls_back_an_open_transaction():
    engine, device = small_engine()
    txn = engine.begin()
    rows(txn, 300)
    engine.close()
    engine, _ = small_engine(device)
    assert engine.get("t", b"%08d" % 0) is None and engine.recovery.get("rolled_back", 0) == 0
    with pytest.raises(ValueError, match="already committed or rolled back"):
        txn.put("t", b"a", b"1")


def test_an_error_in_the_middle_rolls_the_transaction_back():
    engine, device = small_engine()
    engine.put("t", b"a", b"kept")
    txn = engine.begin()
    rows(txn, 2_000)  # the first leaves have left the 16-page pool
    device.fail_io(1, ops=("read",))
    with pytest.raises(OSError):
        txn.put("t", b"%08d" % 0, b"new")  # its leaf must be read back: the read fails
    with pytest.raises(ValueError, match="rolled back when the engine recovered from an error"):
        txn.put("t", b"b", b"1")
    assert contents(engine) == {"t": {b"a": b"kept"}}
    engine.put("t", b"b", b"1")  # the engine keeps running
    engine.check()


@pytest.mark.parametrize("done", [999, 1000, 2_500])
def test_a_crash_keeps_the_chunks_committed_in_the_middle(done):
    engine, device = small_engine()
    txn = engine.begin(commit_in_the_middle=1_000)
    rows(txn, done)
    device.crash()
    engine, _ = small_engine(device)
    # A chunk commits when the change after it comes: 999 changes commit nothing, 1,000 nothing yet either.
    assert sum(1 for _ in engine.scan("t")) == ((done - 1) // 1_000) * 1_000
    engine.check()


def test_a_flush_while_a_transaction_is_open_keeps_its_undo():
    engine, device = small_engine()
    engine.put("t", b"a", b"kept")
    txn = engine.begin()
    rows(txn, 1_000)
    engine.flush()  # a sharp checkpoint: every page written, its uncommitted changes too
    assert engine.redo.checkpoint_lsn <= engine.transactions.from_lsn
    device.crash()
    engine, _ = small_engine(device)
    assert contents(engine) == {"t": {b"a": b"kept"}}
    engine.check()


def test_a_crash_takes_back_a_transaction_bigger_than_the_log():
    engine, device = small_engine()  # a 256 KiB redo log: the transaction writes several times that
    txn = engine.begin()
    rows(txn, 3_000)
    assert engine.redo.age > engine.redo.capacity
    device.crash()
    engine, _ = small_engine(device)
    assert contents(engine) == {"t": {}} and engine.recovery["rolled_back"] > 2_000
    engine.check()


OPTIONS = dict(page_cleaner=PageCleanerOptions(every_commits=3, io_capacity=4, change_buffer_merge_pages=2))


STEPS = 16  # transactions in the workload
STRIDE = 23  # the crash test tries every STRIDE-th IO point (a prime, so all phases of the workload get hit)


def workload(engine, states):
    """Transactions of puts and deletes on a unique and a non-unique keyspace, some rolled back, reading as they
    go; ``states`` gets the expected content after each commit."""
    rng = random.Random(5)
    model = {"p": {}, "s": {}}
    for step in range(STEPS):
        txn = engine.begin()
        mine = {name: dict(m) for name, m in model.items()}
        for _ in range(rng.randrange(1, 60)):
            name, key = rng.choice("ps"), b"%04d" % rng.randrange(400)
            if rng.random() < 0.8:
                value = bytes([65 + step % 26]) * rng.randrange(0, 900)  # enough redo for checkpoints
                txn.put(name, key, value)
                mine[name][key] = value
            else:
                txn.delete(name, key)
                mine[name].pop(key, None)
            if rng.random() < 0.1:
                assert txn.get(name, key) == mine[name].get(key)
        if step % 4 == 3:
            txn.rollback()
        else:
            states.append(mine)  # from here the commit may be durable: either state may be found
            txn.commit()
            model = mine


def test_a_crash_at_many_io_points_recovers_whole_transactions():
    n, rolled_back = 1, 0
    while True:
        device = SimDevice()
        engine, _ = small_engine(device, **OPTIONS)
        engine.create_keyspace("s", unique=False)
        engine.create_keyspace("p")
        device.crash_at_io(n, seed=n)
        states = [{"p": {}, "s": {}}]
        try:
            workload(engine, states)
            break
        except DeviceCrashed:
            pass
        engine, _ = small_engine(device, **OPTIONS)
        got = contents(engine)
        assert got in states[-2:], f"crash at IO point {n}: not the state after a whole number of transactions"
        engine.check()
        rolled_back += engine.recovery["rolled_back"] > 0
        n += STRIDE
    assert n > 300 and rolled_back > 10


class InPlaceMachine(RuleBasedStateMachine):
    """In-place transactions against a dict model: changes seen at once, rollback and crash take back the open
    transaction, committed chunks stay; values are large enough for checkpoints to meet open transactions."""

    @initialize(middle=st.sampled_from([None, 3]))
    def open(self, middle):
        self.device = SimDevice()
        self.middle = middle
        self.engine, _ = small_engine(self.device)
        self.committed: dict[bytes, bytes] = {}
        self.seen: dict[bytes, bytes] = {}
        self.rows = 0  # changes in the open chunk
        self.txn = None

    @precondition(lambda self: self.txn is None)
    @rule()
    def begin(self):
        self.txn = self.engine.begin(commit_in_the_middle=self.middle)

    @precondition(lambda self: self.txn is not None)
    @rule(key=st.integers(0, 40), size=st.one_of(st.none(), st.integers(0, 900)))
    def change(self, key, size):
        if self.middle is not None and self.rows == self.middle:
            self.committed, self.rows = dict(self.seen), 0  # the chunk commits before this change
        key = b"%03d" % key
        if size is None:
            self.txn.delete("t", key)
            self.seen.pop(key, None)
        else:
            self.txn.put("t", key, bytes([size % 251]) * size)
            self.seen[key] = bytes([size % 251]) * size
        self.rows += 1

    @precondition(lambda self: self.txn is not None)
    @rule()
    def commit(self):
        self.txn.commit()
        self.committed, self.rows, self.txn = dict(self.seen), 0, None

    @precondition(lambda self: self.txn is not None)
    @rule()
    def rollback(self):
        self.txn.rollback()
        self.seen, self.rows, self.txn = dict(self.committed), 0, None

    @rule()
    def crash_and_reopen(self):
        self.device.crash()
        self.engine, _ = small_engine(self.device)
        self.seen, self.rows, self.txn = dict(self.committed), 0, None
        self.engine.check()

    @invariant()
    def reads_match_the_model(self):
        if hasattr(self, "engine"):
            assert dict(self.engine.scan("t")) == self.seen


InPlaceMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=40, deadline=None)
test_in_place_machine = InPlaceMachine.TestCase


@pytest.mark.parametrize("changes", [4, 5, 11])  # one chunk; one chunk and the next begun; three chunks
def test_the_bytes_counted_are_every_changes_once_across_chunks(changes):
    # commit_in_the_middle=5 and a row limit of 5: the logical bytes summed over the chunks are each change's key
    # and value once, however many chunks they fell in (a count kept from one chunk to the next would double them)
    for knobs in ({"commit_in_the_middle": 5}, {"commit_in_the_middle": 5, "max_rows": 5}):
        engine, _ = small_engine()
        txn = engine.begin(**knobs)
        sizes = []
        for i in range(changes):
            value = b"x" * (10 * i + 1)
            txn.put("t", b"%08d" % i, value)
            sizes.append(8 + len(value))
        txn.delete("t", b"%08d" % 0)
        sizes.append(8)
        txn.commit()
        assert txn.stats.logical_bytes == sum(sizes) and txn.stats.operations == changes + 1
        assert txn.chunks == -(-(changes + 1) // 5)
