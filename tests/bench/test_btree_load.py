"""The B+tree load benchmark's shape: its buffer pool holds the whole tree at every row count."""

from benchmarks.bench_btree_load import MIN_POOL_BYTES, POOL_BYTES_PER_ROW, load_minidb, pool_bytes


def test_pool_grows_with_the_rows_past_its_floor():
    floor_rows = MIN_POOL_BYTES // POOL_BYTES_PER_ROW
    assert pool_bytes(1) == pool_bytes(floor_rows) == MIN_POOL_BYTES
    assert pool_bytes(floor_rows + 1) == MIN_POOL_BYTES + POOL_BYTES_PER_ROW
    assert pool_bytes(10_000_000) == 10_000_000 * POOL_BYTES_PER_ROW


def test_the_tree_takes_well_under_the_pool_bytes_a_row_and_no_page_is_read():
    _, info = load_minidb(rows=20_000, batch=1000, seed=1, page_size=16384)
    assert info["page_reads"] == 0
    # Twice the room the tree takes (its leaves fill up as it grows, so a small load is the worst case).
    assert info["tree_bytes_per_row"] * 2 <= POOL_BYTES_PER_ROW
