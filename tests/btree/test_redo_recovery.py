"""The redo log and recovery: sync policies, the write-ahead rule, checkpoints, replay, reopen checks."""

import struct

import pytest

from minidb.btree import open_btree
from minidb.btree.redo_log import CHECKPOINT_FILE, LOG_FILES
from minidb.btree.tablespace import FILE as TABLESPACE
from minidb.errors import CorruptionError, DeviceCrashed
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

from .helpers import contents, small_engine


def batch_of(i, n=5):
    """Batch i: keys 5i..5i+4, each with a 100-byte value naming the batch."""
    batch = WriteBatch()
    for j in range(n):
        batch.put("t", b"%06d" % (i * n + j), (b"value-%d-" % i).ljust(100, b"."))
    return batch


def test_every_acknowledged_commit_survives_a_crash_with_sync_on_commit():
    engine, device = small_engine()
    for i in range(200):
        engine.write(batch_of(i))
    device.crash()
    engine, _ = small_engine(device)
    assert len(list(engine.scan("t"))) == 1000
    assert engine.recovery["groups"] > 0 and engine.recovery["records_applied"] > 0
    engine.check()


def test_recovery_replays_from_the_checkpoint_only():
    engine, device = small_engine(buffer_pool_bytes=64 * 4096)
    for i in range(50):
        engine.write(batch_of(i))
    engine.flush()  # sharp checkpoint: nothing before it needs replay
    for i in range(50, 60):
        engine.write(batch_of(i))
    device.crash()
    engine, _ = small_engine(device, buffer_pool_bytes=64 * 4096)
    assert engine.recovery["groups"] == 10
    assert len(list(engine.scan("t"))) == 300


def test_clean_close_needs_no_recovery_and_keeps_keyspaces_and_options():
    engine, device = small_engine()
    engine.create_keyspace("sec", unique=False)
    engine.put("t", b"k", b"v")
    engine.put("sec", b"s", b"")
    engine.close()
    engine.close()  # harmless
    engine, _ = small_engine(device)
    assert engine.recovery["groups"] == 0
    assert engine.keyspaces() == ["sec", "t"]
    assert not engine.is_unique("sec") and engine.is_unique("t")
    assert engine.get("t", b"k") == b"v"
    with pytest.raises(ValueError, match="keyspace 'sec' exists with unique=False"):
        engine.create_keyspace("sec")


def test_sync_policies_count_redo_syncs():
    syncs = {}
    for policy in ("commit", ("every", 10), "none"):
        engine, device = small_engine(buffer_pool_bytes=256 * 4096, redo_sync=policy, redo_log_bytes=4 << 20)
        before = device.stats.snapshot()  # the log stays in one file: one sync per synced commit
        for i in range(100):
            engine.write(batch_of(i))
        syncs[str(policy)] = (device.stats - before).total(kind="redo").syncs
    assert syncs == {"commit": 100, "('every', 10)": 10, "none": 0}


def test_without_sync_a_crash_loses_a_suffix_of_commits_never_a_part_of_one():
    engine, device = small_engine(buffer_pool_bytes=256 * 4096, redo_sync=("every", 7))
    for i in range(50):
        engine.write(batch_of(i))
    device.crash()
    engine, _ = small_engine(device, buffer_pool_bytes=256 * 4096, redo_sync=("every", 7))
    keys = sorted(k for k, _ in engine.scan("t"))
    assert len(keys) == 49 * 5  # synced at commits 7, 14, ..., 49
    assert keys == [b"%06d" % i for i in range(len(keys))]


def test_write_ahead_rule_every_page_write_is_covered_by_durable_redo(monkeypatch):
    # A log large enough that no redo file fills up: a full file is synced before the next starts, which would
    # make the log durable without any eviction asking for it.
    engine, device = small_engine(redo_sync="none", redo_log_bytes=256 << 20)
    seen = []
    original = engine.tablespace.write_page

    def checked_write(page_no, data):
        lsn = struct.unpack_from("<Q", data, 8)[0]
        seen.append(lsn)
        assert lsn <= engine.redo.synced_lsn, f"page {page_no} LSN {lsn} written before the redo was durable"
        original(page_no, data)

    monkeypatch.setattr(engine.tablespace, "write_page", checked_write)
    for i in range(600):
        engine.write(batch_of(i))
    assert len(seen) > 50  # evictions happened, each forcing the log to disk first
    assert device.stats.total(kind="redo", cause="eviction").syncs > 0


def test_checkpoints_bound_the_redo_log_and_delete_old_files():
    engine, device = small_engine(redo_log_bytes=64 * 4096)  # 256 KiB in files of 8 KiB
    for i in range(2000):
        engine.write(batch_of(i))
    assert engine.counters["checkpoints"] > 2
    assert engine.redo.age <= engine.redo.capacity
    files = device.list("redo-0")
    assert 1 <= len(files) <= LOG_FILES + 2 and files[0] != "redo-00000001.log"
    assert device.stats.total(kind="data", cause="checkpoint").writes > 0
    device.crash()
    engine, _ = small_engine(device)
    assert len(list(engine.scan("t"))) == 10000


def test_crash_during_recovery_is_recovered_again():
    engine, device = small_engine()
    for i in range(300):
        engine.write(batch_of(i))
    device.crash()
    for n in (1, 5, 20):
        device.crash_at_io(n, ops=("write", "sync", "truncate", "delete"))
        try:
            small_engine(device)
        except DeviceCrashed:
            pass
        device.clear_faults()
    engine, _ = small_engine(device)
    assert len(list(engine.scan("t"))) == 1500
    engine.check()


def test_torn_last_group_is_cut_and_the_log_goes_on():
    engine, device = small_engine(redo_sync="none")
    for i in range(10):
        engine.write(batch_of(i))
    engine.redo.sync()
    engine.write(batch_of(10))  # appended, not synced
    device.crash(torn=True, seed=3)
    engine, _ = small_engine(device)
    n = len(list(engine.scan("t")))
    assert n in (50, 55)
    engine.write(batch_of(11))
    device.crash()
    engine, _ = small_engine(device)
    assert len(list(engine.scan("t"))) == n + 5


def test_reopening_with_another_page_size_is_refused():
    engine, device = small_engine()
    engine.put("t", b"k", b"v")
    engine.close()
    with pytest.raises(ValueError, match="page_size 8192 does not match the database .* 4096-byte pages"):
        open_btree(device, page_size=8192)


def test_a_corrupt_page_raises_corruption_error_naming_file_and_page():
    engine, device = small_engine(doublewrite=False)  # with doublewrite, recovery would repair it (see there)
    for i in range(2000):
        engine.put("t", b"%06d" % i, b"x" * 50)
    engine.close()
    leaf = engine.trees["t"].root  # read it from the closed engine's catalog: the root page number
    f = device.open(TABLESPACE, "data")
    page = bytearray(f.read(leaf * 4096, 4096))
    page[2000] ^= 0xFF
    f.write(leaf * 4096, bytes(page))
    f.sync()
    with pytest.raises(CorruptionError, match=rf"tablespace.ibd page {leaf}: checksum mismatch"):
        engine, _ = small_engine(device, doublewrite=False)
        engine.get("t", b"000001")


def test_a_corrupt_checkpoint_file_is_reported():
    engine, device = small_engine()
    engine.close()
    f = device.open(CHECKPOINT_FILE, "redo")
    f.write(0, bytes(f.size))
    f.sync()
    with pytest.raises(CorruptionError, match="redo-checkpoint: neither checkpoint block is valid"):
        small_engine(device)


def test_recovery_reads_are_attributed_to_recovery():
    engine, device = small_engine(buffer_pool_bytes=256 * 4096, redo_sync="commit")
    for i in range(100):
        engine.write(batch_of(i))
    device.crash()
    before = device.stats.snapshot()
    small_engine(device, buffer_pool_bytes=256 * 4096)
    io = device.stats - before
    assert io.total(cause="recovery").reads > 0
    assert io.total(cause="foreground").reads == 0


def test_a_database_in_a_directory_reopens_from_its_files(tmp_path):
    from minidb.storage import DirDevice

    device = DirDevice(tmp_path / "db")
    engine = open_btree(device, page_size=4096, buffer_pool_bytes=64 * 4096)
    for i in range(50):
        engine.write(batch_of(i))
    engine.close()
    device.close()
    device = DirDevice(tmp_path / "db")
    engine = open_btree(device, page_size=4096, buffer_pool_bytes=64 * 4096)
    assert contents(engine)["t"][b"000000"].startswith(b"value-0-")
    assert len(contents(engine)["t"]) == 250
    device.close()


def test_sim_device_is_the_default_persistence_for_tests():
    device = SimDevice()
    engine = open_btree(device, page_size=8192, buffer_pool_bytes=64 * 8192)
    engine.put("t", b"a", b"1")
    engine.close()
    assert open_btree(device, page_size=8192).get("t", b"a") == b"1"


def test_the_log_is_written_in_512_byte_blocks_the_last_one_written_again_by_the_next_write():
    from minidb.btree.redo_log import BLOCK

    engine, device = small_engine(buffer_pool_bytes=256 * 4096)  # no page leaves the pool: only commits write redo
    engine.write(batch_of(0))
    f = engine.redo.files[-1][2]
    for i in range(1, 4):
        end, before = engine.redo._end, device.stats.total(kind="redo")
        engine.write(batch_of(i))
        io = device.stats.total(kind="redo") - before
        added = engine.redo._end - end
        assert f.size % BLOCK == 0 and f.size - engine.redo._end < BLOCK  # the last block filled out with zeros
        assert io.writes == 1 and io.write_bytes == f.size - (end - end % BLOCK)  # from the block holding the end
        assert io.write_bytes >= max(added, BLOCK)
    device.crash()
    engine, _ = small_engine(device, buffer_pool_bytes=256 * 4096)  # the zeros after the last group are its end
    assert len(list(engine.scan("t"))) == 4 * 5 and engine.recovery["groups"] > 0
    f, end, before = engine.redo.files[-1][2], engine.redo._end, device.stats.total(kind="redo")
    assert end % BLOCK, "the recovered log ends inside a block (else the test shows nothing)"
    engine.write(batch_of(4))
    io = device.stats.total(kind="redo") - before
    assert io.writes == 1 and io.write_bytes == f.size - (end - end % BLOCK)  # the first write after the open too
    device.crash()
    engine, _ = small_engine(device, buffer_pool_bytes=256 * 4096)
    assert len(list(engine.scan("t"))) == 5 * 5
