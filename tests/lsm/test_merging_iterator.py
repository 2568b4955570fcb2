"""MergingIterator: one sorted stream out of several, every version kept, ties to the child listed first; and the
merge loop on top of it, which keeps each user key's newest version once."""

from hypothesis import given
from hypothesis import strategies as st

from minidb.lsm.block import Block
from minidb.lsm.block_builder import BlockBuilder
from minidb.lsm.block_cache import BlockCache
from minidb.lsm.compaction_iter import merge_into_tables
from minidb.lsm.dbformat import pack_internal_key, parse_internal_key
from minidb.lsm.iterator import MergingIterator
from minidb.lsm.table_builder import TableBuilder
from minidb.lsm.table_reader import TableReader
from minidb.storage import SimDevice


def block_iter(entries):
    b = BlockBuilder(16)
    for k, v in entries:
        b.add_entry(k, v)
    return Block(b.finish_block(), "test").iterator()


@given(st.lists(st.lists(st.tuples(st.binary(min_size=0, max_size=40), st.integers(1, 50)), max_size=60),
                min_size=1, max_size=5))
def test_merge_is_the_sorted_union(children):
    runs = []
    for c in children:
        keys = sorted({pack_internal_key(k, seq, 1) for k, seq in c},
                      key=lambda ik: (parse_internal_key(ik)[0], -parse_internal_key(ik)[1]))
        runs.append([(k, b"%d" % i) for i, k in enumerate(keys)])
    merged = MergingIterator([block_iter(r) for r in runs]).entries()
    expect = sorted(((k, v, i) for i, r in enumerate(runs) for k, v in r),
                    key=lambda e: (parse_internal_key(e[0])[0], -parse_internal_key(e[0])[1], e[2]))
    assert merged == [(k, v) for k, v, _ in expect]


class Outputs:
    """Tables on a SimDevice, for merge_into_tables."""

    def __init__(self):
        self.dev, self.tables = SimDevice(), []

    def new_table(self):
        return TableBuilder(self.dev.open(f"{len(self.tables)}.sst", kind="sst", create=True))

    def finish_table(self, builder):
        self.tables.append(builder)
        builder.finish()


def test_a_key_in_two_l0_files_keeps_its_newest_version():
    newer = [(pack_internal_key(b"a", 9, 1), b"new"), (pack_internal_key(b"b", 8, 1), b"b")]
    older = [(pack_internal_key(b"a", 3, 1), b"old"), (pack_internal_key(b"c", 2, 1), b"c")]
    out = Outputs()
    # Equal user keys sort newest first whichever child holds them; then each exhausts at its own time.
    assert merge_into_tables(MergingIterator([block_iter(older), block_iter(newer)]), out) == (4, 1)
    assert out.tables[0].num_entries == 3 and out.tables[0].largest == older[1][0]
    assert out.tables[0].smallest == newer[0][0]


def entries_of(dev, name):
    """The (user key, sequence, type) of every entry of the table ``name``."""
    reader = TableReader(dev, name, 1, dev.size(name), cache=BlockCache(1 << 20), policy=None, cache_meta=False)
    return [parse_internal_key(k) for k, _ in reader.iterator().entries()]


def test_a_merge_into_the_bottommost_level_sets_every_kept_sequence_to_zero():
    newer = [(pack_internal_key(b"a", 9, 1), b"new"), (pack_internal_key(b"d", 7, 0), b"")]
    older = [(pack_internal_key(b"a", 3, 1), b"old"), (pack_internal_key(b"c", 2, 1), b"c")]
    for zero, expect in ((False, [(b"a", 9, 1), (b"c", 2, 1), (b"d", 7, 0)]),
                         (True, [(b"a", 0, 1), (b"c", 0, 1), (b"d", 7, 0)])):
        out = Outputs()
        merge_into_tables(MergingIterator([block_iter(older), block_iter(newer)]), out, zero_sequences=zero)
        (table,) = out.tables
        # Values keep their bytes, a tombstone (kept here: tombstones are not dropped) its sequence number.
        assert entries_of(out.dev, "0.sst") == expect
        assert (table.smallest_seq, table.largest_seq) == ((0, 7) if zero else (2, 9))
