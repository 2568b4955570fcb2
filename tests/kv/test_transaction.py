"""minidb.transaction (seed 000): changes buffered until commit, double-buffered while an LSM's commit copies them
into the memtable, bounded by a memory or row limit, and kept small by commit in the middle; on either engine."""

import pytest
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from minidb import engines
from minidb.kv import BatchTooLarge
from minidb.storage import SimDevice
from minidb.transaction import Transaction
from test_contract import open_kind

BIG = {  # the memtable and the pool take a whole transaction
    "lsm": dict(memtable_bytes=64 << 20, block_size=1024, block_cache_bytes=64 << 10),
    "btree": dict(page_size=4096, buffer_pool_bytes=32 << 20),
}


@pytest.fixture(params=engines.NAMES)
def db(request):
    engine = engines.get(request.param).open(SimDevice(), **BIG[request.param])
    yield engine
    engine.close()


def rows(txn, n, start=0):
    for i in range(start, start + n):
        txn.put("t", b"%08d" % i, b"v" * 100)


def test_lsm_memory_grows_with_the_transaction_and_doubles_at_commit():
    db = engines.get("lsm").open(SimDevice(), **BIG["lsm"])
    sizes = []
    for n in (1_000, 4_000):
        txn = Transaction(db)
        rows(txn, n)
        sizes.append(txn.nbytes)
        txn.commit()
        # The batch is still held while its copy lands in the memtable: about twice the batch at the peak.
        assert 1.9 * sizes[-1] <= txn.peak_bytes <= 2.6 * sizes[-1]
    assert sizes[1] == pytest.approx(4 * sizes[0], rel=0.01)
    assert db.stats()["commit_peak_bytes"] == max(db.last_write_memory(), db.stats()["commit_peak_bytes"])


def test_btree_peak_memory_is_the_batch(db):
    txn = Transaction(db)
    rows(txn, 500)
    held = txn.nbytes
    txn.commit()
    assert held <= txn.peak_bytes <= 2.6 * held


def test_a_memory_limit_gives_a_clear_error(db):
    txn = Transaction(db, max_bytes=50_000)
    with pytest.raises(BatchTooLarge, match="over its limit of 50000 bytes \\(max_bytes"):
        rows(txn, 1_000)
    held = txn.nbytes
    assert held <= 50_000
    txn.rollback()
    assert db.get("t", b"00000000") is None


def test_a_row_limit_allows_n_changes_and_refuses_the_next(db):
    txn = Transaction(db, max_rows=10)
    rows(txn, 10)  # N changes: fine
    with pytest.raises(BatchTooLarge, match=r"11 changes, over its limit of 10 \(max_rows, our rocksdb_max_row_locks"):
        rows(txn, 1, start=10)
    txn.commit()
    assert db.get("t", b"%08d" % 9) == b"v" * 100 and db.get("t", b"%08d" % 10) is None


def test_commit_in_the_middle_bounds_memory(db):
    whole = Transaction(db)
    rows(whole, 20_000)
    whole.commit()
    chunked = Transaction(db, commit_in_the_middle=1_000)
    rows(chunked, 20_000, start=20_000)
    chunked.commit()
    assert chunked.chunks == 20
    assert chunked.peak_bytes < whole.peak_bytes / 15
    assert db.get("t", b"%08d" % 39_999) == b"v" * 100


@pytest.mark.parametrize("limit", [dict(max_bytes=30_000), dict(max_rows=250)])
def test_commit_in_the_middle_also_commits_at_a_limit(db, limit):
    txn = Transaction(db, commit_in_the_middle=10**6, **limit)
    rows(txn, 2_000)  # would need ~240 KB: committed in chunks of at most 30 KB (250 rows) instead of failing
    txn.commit()
    assert txn.chunks >= 8 and txn.stats.commits == txn.chunks and txn.stats.operations == 2_000
    assert txn.peak_bytes <= 2.6 * 30_000


def test_rollback_undoes_only_the_open_chunk(db):
    txn = Transaction(db, commit_in_the_middle=100)
    rows(txn, 250)
    txn.rollback()
    assert db.get("t", b"%08d" % 199) == b"v" * 100  # committed chunks are durable, as with MyRocks' option
    assert db.get("t", b"%08d" % 200) is None


def test_reads_and_scans_see_the_transactions_own_changes(db):
    db.put("t", b"a", b"old")
    db.put("t", b"c", b"kept")
    txn = Transaction(db)
    txn.put("t", b"a", b"new")
    txn.put("t", b"b", b"mine")
    txn.delete("t", b"c")
    assert txn.get("t", b"a") == b"new" and db.get("t", b"a") == b"old"
    assert list(txn.scan("t")) == [(b"a", b"new"), (b"b", b"mine")]
    assert list(txn.scan("t", lo=b"b")) == [(b"b", b"mine")]
    txn.commit()
    assert db.get("t", b"a") == b"new" and db.get("t", b"c") is None
    with pytest.raises(ValueError, match="already committed or rolled back"):
        txn.put("t", b"c", b"x")


def test_context_manager_commits_or_rolls_back(db):
    with Transaction(db) as txn:
        txn.put("t", b"x", b"1")
    assert db.get("t", b"x") == b"1"
    with pytest.raises(RuntimeError):
        with Transaction(db) as txn:
            txn.put("t", b"y", b"1")
            raise RuntimeError("client error")
    assert db.get("t", b"y") is None


@pytest.mark.parametrize("option", ["commit_in_the_middle", "max_rows", "max_bytes"])
@pytest.mark.parametrize("value", [0, True, 1.5])
def test_bad_knobs_are_named(db, option, value):
    with pytest.raises(ValueError, match=f"bad {option}="):
        Transaction(db, **{option: value})


class TransactionMachine(RuleBasedStateMachine):
    """A transaction with commit in the middle every ``CHUNK`` changes, against a model of what is committed and
    what is staged, on each engine in turn."""

    CHUNK = 5

    @initialize(kind=st.sampled_from((*engines.NAMES, "double")))
    def open(self, kind):
        self.db = open_kind(kind)
        self.committed: dict[bytes, bytes] = {}  # what the engine holds
        self.staged: dict[bytes, bytes | None] = {}  # the open chunk's changes, in order (None: deleted)
        self.changes = 0  # changes in the open chunk
        self.txn = Transaction(self.db, commit_in_the_middle=self.CHUNK)

    def _chunk_done(self):
        for key, value in self.staged.items():
            if value is None:
                self.committed.pop(key, None)
            else:
                self.committed[key] = value
        self.staged, self.changes = {}, 0

    @rule(key=st.binary(min_size=1, max_size=2), value=st.one_of(st.none(), st.binary(max_size=8)))
    def change(self, key, value):
        if self.changes == self.CHUNK:
            self._chunk_done()  # the transaction commits the full chunk before this change
        if value is None:
            self.txn.delete("t", key)
        else:
            self.txn.put("t", key, value)
        self.staged[key] = value
        self.changes += 1

    @rule()
    def commit_and_begin(self):
        self.txn.commit()
        self._chunk_done()
        self.txn = Transaction(self.db, commit_in_the_middle=self.CHUNK)

    @rule()
    def rollback_and_begin(self):
        self.txn.rollback()
        self.staged, self.changes = {}, 0
        self.txn = Transaction(self.db, commit_in_the_middle=self.CHUNK)

    @invariant()
    def reads_match_the_model(self):
        seen = {**self.committed, **self.staged}
        seen = {k: v for k, v in seen.items() if v is not None}
        assert list(self.txn.scan("t")) == sorted(seen.items())
        assert list(self.db.scan("t")) == sorted(self.committed.items())
        for key in list(seen)[:3]:
            assert self.txn.get("t", key) == seen[key]

    def teardown(self):
        if hasattr(self, "db"):
            self.db.close()


TransactionMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=30)
test_transaction_machine = TransactionMachine.TestCase
