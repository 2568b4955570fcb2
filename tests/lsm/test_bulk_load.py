"""Bulk load (MyRocks' CREATE INDEX): sorted entries written straight into SST files and ingested by one MANIFEST
edit; a full disk fails the statement, not the engine."""

import errno

import pytest

from minidb.lsm import open_lsm
from minidb.storage import SimDevice

from .lsm_helpers import TINY


def pairs(n):
    return [(b"%06d" % ((i * 7919) % n), b"v%d" % i) for i in range(n)]  # every key once, out of order


def loaded(dev=None):
    dev = dev if dev is not None else SimDevice()
    db = open_lsm(dev, **TINY)
    for i in range(300):
        db.put("pk", b"%06d" % i, b"x" * 50)
    return db, dev


def test_entries_land_sorted_in_sst_files_of_the_last_level_with_their_io_counted():
    db, dev = loaded()
    before = dev.stats.snapshot()
    wal_before = dev.stats.total(kind="wal").write_bytes
    files = db.bulk_load("idx", pairs(500))
    io = (dev.stats - before)
    assert files >= 2  # cut at target_file_size_base
    assert io.total(kind="sst", cause="foreground").write_bytes > 500 * 8
    # no row through the WAL, no memtable: the WAL only got a mark (31 bytes) after each MANIFEST edit
    assert dev.stats.total(kind="wal").write_bytes - wal_before == 31 * io.total(kind="manifest").writes
    cf = db.column_family("default")
    seq = db.stats()["last_sequence"]  # an ingested file carries one sequence number, the next one
    ingested = [f for f in cf.version.levels[cf.version.num_levels - 1] if f.smallest_seq == f.largest_seq == seq]
    assert len(ingested) == files and sum(f.num_entries for f in ingested) == 500
    assert list(db.scan("idx")) == sorted(pairs(500))
    db.close()
    db = open_lsm(dev, **TINY)
    assert list(db.scan("idx")) == sorted(pairs(500)) and len(list(db.scan("pk"))) == 300


def test_a_full_disk_fails_the_statement_deletes_its_files_and_the_engine_goes_on():
    db, dev = loaded()
    files = set(dev.list())
    dev.capacity = dev.used + 3000
    with pytest.raises(OSError) as info:
        db.bulk_load("idx", pairs(2000))
    assert info.value.errno == errno.ENOSPC
    assert not db.stats()["read_only"]
    assert {n for n in dev.list() if n.endswith(".sst")} <= files  # the partial outputs were deleted
    assert list(db.scan("idx")) == []
    dev.capacity = None
    db.put("pk", b"999999", b"y")  # the engine kept running
    db.bulk_load("idx", pairs(2000))  # and the build can be run again
    assert len(list(db.scan("idx"))) == 2000


def test_bad_input_is_a_clear_error():
    db, _ = loaded()
    with pytest.raises(ValueError, match="key 000001 appears twice".replace("000001", b"000001".hex())):
        db.bulk_load("idx", [(b"000001", b"a"), (b"000001", b"b")])
    with pytest.raises(ValueError, match="which holds data"):
        db.bulk_load("pk", pairs(10))
    assert db.bulk_load("empty", []) == 0


def test_an_index_over_existing_data_goes_above_the_files_it_overlaps():
    db, _ = loaded()
    for i in range(50):
        db.put("idx", b"%06d" % i, b"old")
        db.delete("idx", b"%06d" % i)
    db.flush()
    db.bulk_load("idx", pairs(100))  # the keyspace exists and is empty (its tombstones are in L0)
    assert list(db.scan("idx")) == sorted(pairs(100))
