"""B+tree rollback: a tablespace or redo file replaced by an older copy of itself passes every checksum; the LSNs the
engine keeps (page 0's flushed LSN, the checkpoint LSN, the end of the replayed log against page LSNs) refuse it,
and an open that fails deletes nothing."""

import pytest

from btree.helpers import small_engine
from damage.btree_damage import groups, refused
from damage.test_logs import batch, read, replace


@pytest.mark.parametrize("options", [{}, {"key_block_size": 2, "buffer_pool_bytes": 32 * 4096}])
def test_an_older_tablespace_after_a_clean_close_is_refused(options):
    engine, dev = small_engine(**options)
    for i in range(20):
        engine.write(batch(i))
    engine.flush()
    old = read(dev, "tablespace.ibd")
    for i in range(20, 60):
        engine.write(batch(i))
    engine.close()
    replace(dev, "tablespace.ibd", old)
    refused(dev, "tablespace.ibd is older than redo-checkpoint", **options)


def test_an_older_copy_of_the_newest_redo_file_against_a_newer_checkpoint_is_refused():
    engine, dev = small_engine(redo_log_bytes=64 << 20)
    for i in range(5):
        engine.write(batch(i))
    (name,) = engine.redo.file_names()
    old = read(dev, name)
    for i in range(5, 60):
        engine.write(batch(i))
    engine.flush()  # a checkpoint past the older copy's end
    dev.crash()
    replace(dev, name, old)
    refused(dev, f"{name}: holds {len(old)} bytes, but the checkpoint LSN", redo_log_bytes=64 << 20)


def test_a_page_newer_than_the_end_of_the_log_is_refused_when_read():
    # a page written after changes the log no longer holds (a redo file cut or rolled back): InnoDB's page "in the
    # future"
    from minidb.btree import page as pg

    engine, dev = small_engine()
    for i in range(60):
        engine.write(batch(i))
    end = engine.redo.lsn
    engine.close()
    data = bytearray(read(dev, "tablespace.ibd"))
    leaf = next(p for p in range(3, len(data) // 4096)
                if data[p * 4096 + 16] == pg.INDEX_PAGE and data[p * 4096 + 17] == 0)
    page = data[leaf * 4096:(leaf + 1) * 4096]
    page[8:16] = (end + 1000).to_bytes(8, "little")
    pg.stamp_checksum(page)
    data[leaf * 4096:(leaf + 1) * 4096] = page
    replace(dev, "tablespace.ibd", bytes(data))
    refused(dev, f"page {leaf}: LSN {end + 1000} is past the end of the redo log ({end})")


def test_a_future_page_is_found_after_recovery_has_logged_its_rollback():
    # an open transaction's pages were flushed, then its last group cut from the log: recovery rolls back what is
    # left (logging new groups, so the end of the log moves past the cut page's LSN), and the page it cannot roll
    # back is still found in the future when read, not taken for a page this engine wrote
    engine, dev = small_engine()
    for i in range(40):
        engine.write(batch(i))
    engine.put("u", b"committed", b"y" * 100)  # (a page recovery reads: a new keyspace's root it would rebuild)
    txn = engine.begin()
    for i in range(0, 100, 2):
        txn.delete("t", b"%06d" % i)
    txn.put("u", b"uncommitted", b"x" * 100)  # the last group: a page of its own keyspace
    engine.flush()
    name = engine.redo.file_names()[-1]
    dev.crash()
    data = read(dev, name)
    last = groups(data)[-1][0]
    replace(dev, name, data[:last])
    refused(dev, "is past the end of the redo log", unchanged=False)  # found by the read, after the open
