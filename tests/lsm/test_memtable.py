"""The memtable keeps internal keys sorted (user key ascending, sequence descending) and answers point lookups."""

from functools import cmp_to_key

from hypothesis import given
from hypothesis import strategies as st

from minidb.lsm.db_iter import user_entries
from minidb.lsm.dbformat import compare_internal_keys, pack_internal_key, parse_internal_key, seek_key
from minidb.lsm.memtable import MemTable

keys = st.binary(min_size=1, max_size=12)
ops = st.lists(st.tuples(keys, st.one_of(st.none(), st.binary(max_size=20))), max_size=300)


@given(ops)
def test_iteration_order_and_lookups_match_a_model(operations):
    mem = MemTable()
    model = {}
    expected = []
    for seq, (key, value) in enumerate(operations, start=1):
        if value is None:
            mem.delete(seq, key)
        else:
            mem.put(seq, key, value)
        model[key] = value
        expected.append(pack_internal_key(key, seq, 0 if value is None else 1))
    got = [k for k, _ in mem.iterator().entries()]
    assert got == sorted(expected, key=cmp_to_key(compare_internal_keys))
    for key, value in model.items():
        assert mem.get(key) == (True, value)
    assert mem.get(b"\xff" * 13) == (False, None)
    assert len(mem) == len(operations)


# Runs of ascending keys take the append shortcut (past the last entry: no search); random keys between the runs
# land in the middle and split leaves in half. 31-33 appends cross the 32-slot leaf's boundary.
runs = st.lists(st.one_of(st.integers(min_value=1, max_value=70), keys), max_size=40)


@given(runs)
def test_appends_and_random_inserts_stay_sorted(plan):
    mem = MemTable()
    expected, seq, top = [], 0, 0
    for step in plan:
        batch = [b"\xfe" + (top + i).to_bytes(4, "big") for i in range(step)] if isinstance(step, int) else [step]
        top += step if isinstance(step, int) else 0
        for key in batch:
            seq += 1
            mem.put(seq, key, b"v")
            expected.append(pack_internal_key(key, seq, 1))
    got = [k for k, _ in mem.iterator().entries()]
    assert got == sorted(expected, key=cmp_to_key(compare_internal_keys))
    for key in {parse_internal_key(k)[0] for k in expected}:
        assert mem.get(key) == (True, b"v")


def test_newest_version_wins_and_tombstones_hide():
    mem = MemTable()
    mem.put(1, b"a", b"old")
    mem.put(2, b"a", b"new")
    mem.delete(3, b"b")
    mem.put(4, b"ab", b"x")
    assert mem.get(b"a") == (True, b"new")
    assert mem.get(b"b") == (True, None)  # found, deleted: older sources must not be asked
    assert mem.get(b"c") == (False, None)
    assert [parse_internal_key(k) for k, _ in mem.iterator().entries()] == [
        (b"a", 2, 1), (b"a", 1, 1), (b"ab", 4, 1), (b"b", 3, 0)]
    assert (mem.entries, mem.deletes, mem.first_seq, mem.last_seq) == (4, 1, 1, 4)


def test_size_accounting_grows_with_entries():
    mem = MemTable()
    assert mem.nbytes > 0  # the empty tree's root node
    empty = mem.nbytes
    for i in range(10_000):
        mem.put(i + 1, i.to_bytes(8, "big"), b"v" * 50)
    # Each entry costs its key, trailer, value and header, plus its share of tree nodes.
    per_entry = (mem.nbytes - empty) / 10_000
    assert 8 + 8 + 50 + 8 <= per_entry <= 8 + 8 + 50 + 8 + 48


def test_big_values_get_chunks_of_their_own():
    mem = MemTable()
    mem.put(1, b"big", b"x" * 200_000)
    mem.put(2, b"small", b"y")
    assert mem.get(b"big") == (True, b"x" * 200_000)
    assert mem.get(b"small") == (True, b"y")


def test_iterator_survives_inserts_between_moves():
    """Inserts split leaves under a live iterator; it finds its place again and sees later keys."""
    mem = MemTable()
    for i in range(0, 4000, 2):
        mem.put(i + 1, i.to_bytes(4, "big"), b"")
    it = user_entries(mem.iterator(), seek_key(b""), b"\xff" * 5, 0)
    seen = []
    for n, (key, _) in enumerate(it):
        seen.append(key)
        if n < 1000:
            ahead = 2 * n + 501  # well ahead of the cursor: the scan must still meet it
            mem.put(10_000 + n, ahead.to_bytes(4, "big"), b"")
    expected = sorted({i.to_bytes(4, "big") for i in range(0, 4000, 2)}
                      | {(2 * n + 501).to_bytes(4, "big") for n in range(1000)})
    assert seen == expected
