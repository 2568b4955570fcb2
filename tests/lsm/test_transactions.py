"""Transactions (seed 000): buffered until commit, double-buffered while the commit copies them into the memtable,
bounded by a memory limit, and kept small by commit in the middle."""

import pytest

from minidb.kv import BatchTooLarge

from .lsm_helpers import open_tiny

BIG = dict(memtable_bytes=64 << 20)  # the memtable takes the whole transaction


def rows(txn, n, start=0):
    for i in range(start, start + n):
        txn.put("t", b"%08d" % i, b"v" * 100)


def test_memory_grows_with_the_transaction_and_doubles_at_commit():
    db = open_tiny(**BIG)
    sizes = []
    for n in (1_000, 4_000):
        txn = db.transaction()
        rows(txn, n)
        sizes.append(txn.nbytes)
        txn.commit()
        # The batch is still held while its copy lands in the memtable: about twice the batch at the peak.
        assert 1.9 * sizes[-1] <= txn.peak_bytes <= 2.6 * sizes[-1]
    assert sizes[1] == pytest.approx(4 * sizes[0], rel=0.01)
    assert db.stats()["commit_peak_bytes"] == max(db.last_commit_memory, db.stats()["commit_peak_bytes"])


def test_a_memory_limit_gives_a_clear_error():
    db = open_tiny(**BIG)
    txn = db.transaction(max_bytes=50_000)
    with pytest.raises(BatchTooLarge, match="over its limit of 50000 bytes"):
        rows(txn, 1_000)
    held = txn.nbytes
    assert held <= 50_000
    txn.rollback()
    assert db.get("t", b"00000000") is None


def test_commit_in_the_middle_bounds_memory():
    db = open_tiny(**BIG)
    whole = db.transaction()
    rows(whole, 20_000)
    whole.commit()
    chunked = db.transaction(commit_in_the_middle=1_000)
    rows(chunked, 20_000, start=20_000)
    chunked.commit()
    assert chunked.chunks == 20
    assert chunked.peak_bytes < whole.peak_bytes / 15
    assert db.get("t", b"%08d" % 39_999) == b"v" * 100


def test_commit_in_the_middle_also_commits_at_the_memory_limit():
    db = open_tiny(**BIG)
    txn = db.transaction(max_bytes=30_000, commit_in_the_middle=10**6)
    rows(txn, 2_000)  # would need ~240 KB: committed in chunks of at most 30 KB instead of failing
    txn.commit()
    assert txn.chunks >= 8
    assert txn.peak_bytes <= 2.6 * 30_000


def test_rollback_undoes_only_the_open_chunk():
    db = open_tiny(**BIG)
    txn = db.transaction(commit_in_the_middle=100)
    rows(txn, 250)
    txn.rollback()
    assert db.get("t", b"%08d" % 199) == b"v" * 100  # committed chunks are durable, as with MyRocks' option
    assert db.get("t", b"%08d" % 200) is None


def test_reads_see_the_transactions_own_changes():
    db = open_tiny()
    db.put("t", b"a", b"old")
    txn = db.transaction()
    txn.put("t", b"a", b"new")
    txn.delete("t", b"b")
    assert txn.get("t", b"a") == b"new" and db.get("t", b"a") == b"old"
    assert txn.get("t", b"b") is None
    txn.commit()
    assert db.get("t", b"a") == b"new"
    with pytest.raises(ValueError, match="finished"):
        txn.put("t", b"c", b"x")


def test_context_manager_commits_or_rolls_back():
    db = open_tiny()
    with db.transaction() as txn:
        txn.put("t", b"x", b"1")
    assert db.get("t", b"x") == b"1"
    with pytest.raises(RuntimeError):
        with db.transaction() as txn:
            txn.put("t", b"y", b"1")
            raise RuntimeError("client error")
    assert db.get("t", b"y") is None
    with pytest.raises(ValueError, match="commit_in_the_middle"):
        db.transaction(commit_in_the_middle=0)
