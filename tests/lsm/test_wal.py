"""The WAL: one record per batch, sync policies, torn tails versus corruption, and failed writes."""

import errno

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.errors import CorruptionError, ReadOnlyError
from minidb.kv import WriteBatch
from minidb.lsm.log_format import BLOCK_SIZE
from minidb.lsm.log_reader import Drop, Record, scan
from minidb.lsm.log_writer import LogWriter
from minidb.sim import Clock
from minidb.storage import SimDevice, preset

from .lsm_helpers import open_tiny

BIG = dict(memtable_bytes=1 << 20)  # nothing is flushed: every write stays in the WAL


def wal_files(dev):
    return [n for n in dev.list() if n.endswith(".log")]


def batch(i, n=5):
    b = WriteBatch()
    for j in range(n):
        b.put("t", b"%05d-%d" % (i, j), b"v%d" % i)
    return b


@given(st.lists(st.binary(max_size=3 * BLOCK_SIZE), max_size=12))
def test_log_records_round_trip_across_blocks(payloads):
    w = LogWriter()
    data = b""
    for p in payloads:
        chunk, offset = w.encode(p)
        w.commit(offset)
        data += chunk
    assert [r.payload for r in scan(data)] == payloads


def test_damage_is_followed_by_the_next_intact_record():
    w = LogWriter()
    data = b""
    for i in range(40):
        chunk, offset = w.encode(bytes([i]) * 3000)
        w.commit(offset)
        data += chunk
    bad = bytearray(data)
    bad[20] ^= 1  # inside the first record's data: its length still holds, the reader looks on after it
    events = scan(bytes(bad))
    assert isinstance(events[0], Drop) and events[0].offset == 0
    assert [e.payload[0] for e in events[1:]] == list(range(1, 40))
    bad = bytearray(data)
    bad[4] ^= 0xFF  # the first fragment's length: the reader looks for the next intact fragment, byte by byte
    events = scan(bytes(bad))
    records = [e for e in events if isinstance(e, Record)]
    assert isinstance(events[0], Drop) and events[0].offset == 0
    assert [r.payload[0] for r in records] == list(range(1, 40))  # nothing after the damage is hidden
    assert isinstance(scan(data[:-5])[-1], Drop)  # a truncated tail is a drop too


@pytest.mark.parametrize("policy,syncs", [("write", 12), (("every", 4), 3), ("none", 0)])
def test_sync_policies(policy, syncs):
    dev = SimDevice()
    db = open_tiny(dev, wal_sync=policy, **BIG)
    before = dev.stats.total(kind="wal")
    for i in range(12):
        db.write(batch(i))
    after = dev.stats.total(kind="wal") - before
    assert after.writes == 12 + 1  # one append per batch, whatever its size, and the mark of the MANIFEST edit
    # that created the batches' keyspace (wal.py)
    assert after.syncs == syncs


def test_synced_writes_survive_a_crash_and_unsynced_may_not():
    dev = SimDevice()
    db = open_tiny(dev, wal_sync=("every", 5), **BIG)
    for i in range(12):
        db.write(batch(i))
    dev.crash()
    db = open_tiny(dev, wal_sync=("every", 5), **BIG)
    present = [i for i in range(12) if db.get("t", b"%05d-0" % i) is not None]
    assert present == list(range(10))  # batches 0..9 were synced; 10 and 11 were not


@pytest.mark.parametrize("seed", range(6))
def test_torn_tail_recovers_a_prefix_of_whole_batches(seed):
    dev = SimDevice()
    db = open_tiny(dev, wal_sync="none", **BIG)
    for i in range(30):
        db.write(batch(i, n=40))  # ~1 KiB per batch: a torn crash keeps random sectors of the tail
    dev.crash(torn=True, seed=seed)
    db = open_tiny(dev, wal_sync="none", **BIG)
    keys = [db.get("t", b"%05d-%d" % (i, j)) is not None for i in range(30) for j in range(40)]
    n = sum(keys)
    assert keys == [True] * n + [False] * (len(keys) - n)  # a prefix, batch-atomic
    assert n % 40 == 0


def test_corruption_of_synced_records_is_reported():
    dev = SimDevice()
    db = open_tiny(dev, wal_sync="write", **BIG)
    for i in range(10):
        db.write(batch(i))
    (name,) = wal_files(dev)
    f = dev.open(name, kind="wal")
    f.write(40, bytes([f.read(40, 1)[0] ^ 0xFF]))  # flip a byte in the first record
    f.sync()
    dev.crash()
    with pytest.raises(CorruptionError, match=rf"WAL {name} offset 0"):
        open_tiny(dev, wal_sync="write", **BIG)


def test_a_failed_append_is_not_applied_and_the_wal_is_usable_after_resume():
    dev = SimDevice()
    db = open_tiny(dev, **BIG)
    db.write(batch(0))
    dev.fail_io(1, ops=("write",), err=errno.ENOSPC)
    with pytest.raises(OSError) as info:
        db.write(batch(1))
    assert info.value.errno == errno.ENOSPC
    assert db.get("t", b"00001-0") is None
    with pytest.raises(ReadOnlyError, match=f"WAL write to {db.wal_files.writer.name} failed"):  # a hard error, as in RocksDB
        db.write(batch(2))
    db.resume()
    db.write(batch(2))
    dev.crash()
    db = open_tiny(dev, **BIG)
    assert [db.get("t", b"%05d-0" % i) is not None for i in range(3)] == [True, False, True]


def test_a_failed_sync_cuts_the_record_off_again():
    dev = SimDevice()
    db = open_tiny(dev, **BIG)
    db.write(batch(0))
    dev.fail_io(1, ops=("sync",))
    with pytest.raises(OSError) as info:
        db.write(batch(1))
    assert info.value.record_kept is False
    assert db.get("t", b"00001-0") is None
    db.resume()
    db.write(batch(2))
    db.close()
    db = open_tiny(dev, **BIG)
    assert [db.get("t", b"%05d-0" % i) is not None for i in range(3)] == [True, False, True]


def test_when_the_record_cannot_be_cut_off_it_is_applied():
    dev = SimDevice()
    db = open_tiny(dev, **BIG)
    db.write(batch(0))  # creates the keyspace (a MANIFEST write) before the faults are armed
    dev.fail_io(1, ops=("sync",))
    dev.fail_io(1, ops=("truncate",))
    with pytest.raises(OSError) as info:
        db.write(batch(1))
    assert info.value.record_kept is True
    assert db.get("t", b"00001-0") == b"v1"  # in the WAL and the memtable, like RocksDB after an IO error
    db.resume()
    db.write(batch(2))
    db.close()
    db = open_tiny(dev, **BIG)
    assert db.get("t", b"00001-0") == b"v1" and db.get("t", b"00002-0") == b"v2"


def test_damage_in_a_wal_that_has_a_successor_is_corruption():
    # With a device model, flushes take simulated time; the client never advances the clock, so sealed memtables
    # wait for their flush and their WALs stay on the device.
    dev = SimDevice()
    opts = dict(wal_sync="none", memtable_bytes=4096, max_immutable_memtables=3)
    db = open_tiny(dev, clock=Clock(preset("slow-ssd")), **opts)
    for i in range(3):
        db.write(batch(i, n=150))  # each batch fills a memtable: the next write seals it and starts a new WAL
    logs = wal_files(dev)
    assert len(logs) == 3
    f = dev.open(logs[0], kind="wal")
    f.write(50, bytes([f.read(50, 1)[0] ^ 1]))
    f.sync()
    dev.crash()
    with pytest.raises(CorruptionError, match="synced in full before a newer one"):
        open_tiny(dev, **opts)
