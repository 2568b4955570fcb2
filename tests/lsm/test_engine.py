"""The engine through the common key-value interface, on both device implementations."""

import pytest

from minidb.errors import ReadOnlyError
from minidb.kv import Engine, WriteBatch
from minidb.lsm import LSMEngine, open_lsm
from minidb.storage import DirDevice, SimDevice

from .lsm_helpers import TINY, insert_benchmark_batches


@pytest.fixture(params=["sim", "dir"])
def device(request, tmp_path):
    dev = SimDevice() if request.param == "sim" else DirDevice(tmp_path / "db")
    yield dev
    if isinstance(dev, DirDevice):
        dev.close()


def test_the_kv_interface_and_a_reopen(device):
    db = open_lsm(device, **TINY)
    assert isinstance(db, Engine) and isinstance(db, LSMEngine)
    for b in insert_benchmark_batches(3000):
        db.write(b)
    db.delete("pk", (7).to_bytes(8, "big"))
    db.put("pk", (8).to_bytes(8, "big"), b"changed")
    assert db.keyspaces() == ["k1", "k2", "k3", "pk"]
    assert db.get("pk", (7).to_bytes(8, "big")) is None
    assert db.get("nope", b"x") is None and list(db.scan("nope")) == []
    rows = list(db.scan("pk", (5).to_bytes(8, "big"), (10).to_bytes(8, "big")))
    assert [int.from_bytes(k, "big") for k, _ in rows] == [5, 6, 8, 9] and rows[2][1] == b"changed"
    assert len(list(db.scan("k1"))) == 3000
    db.close()
    kinds = {label[0] for label in device.stats.labels()}
    assert kinds == {"wal", "sst", "manifest"}  # every IO is labelled with its file's kind
    db = open_lsm(device, **TINY)
    assert db.get("pk", (8).to_bytes(8, "big")) == b"changed" and len(list(db.scan("k2"))) == 3000
    db.close()
    with pytest.raises(ValueError, match="closed"):
        db.get("pk", b"x")


def test_compressed_databases_are_smaller():
    sizes = {}
    for codec in ("none", "lz4", "zstd"):
        db = open_lsm(SimDevice(), compression=codec, **TINY)
        for i in range(5000):
            db.put("t", b"%08d" % i, b"order %d status shipped to customer %d; " % (i, i % 97) * 2)
        db.flush()
        sizes[codec] = db.stats()["sst_bytes"]
    assert sizes["lz4"] < 0.7 * sizes["none"] and sizes["zstd"] < sizes["lz4"]


def test_keyspace_flags_and_bad_keys():
    dev = SimDevice()
    db = open_lsm(dev, **TINY)
    db.create_keyspace("by_email", unique=True)
    db.create_keyspace("by_city", unique=False)
    db.put("implicit", b"k", b"v")
    db.close()
    db = open_lsm(dev, **TINY)
    assert db.is_unique("by_email") and not db.is_unique("by_city") and db.is_unique("implicit")
    with pytest.raises(ValueError, match="no keyspace .nope.; keyspaces: "):
        db.is_unique("nope")
    with pytest.raises(ValueError, match="non-empty bytes"):
        db.put("t", b"", b"v")
    with pytest.raises(ValueError, match="non-empty bytes"):
        db.get("t", b"")


def test_resume_without_an_error_is_a_no_op_and_read_only_blocks_every_write():
    dev = SimDevice()
    db = open_lsm(dev, **TINY)
    db.resume()
    db.put("t", b"a", b"1")
    dev.capacity = dev.used + 12 * 1024  # room for a memtable's WAL records, not also for its SST
    with pytest.raises(ReadOnlyError):
        for i in range(2000):
            db.put("t", b"%05d" % i, b"x" * 50)
    assert db.stats()["read_only"] and "flush of column family 'default' failed" in db.stats()["background_error"]
    assert db.background_error == db.stats()["background_error"]  # the contract's property says the same
    for op in (lambda: db.put("t", b"z", b"1"), lambda: db.delete("t", b"a"), db.flush, db.compact_range,
               lambda: db.create_keyspace("new")):
        with pytest.raises(ReadOnlyError, match="resume"):
            op()
    db.write(WriteBatch())  # an empty batch writes nothing: no error
    assert db.get("t", b"a") == b"1"
    dev.capacity = None
    db.resume()
    db.put("t", b"z", b"1")
    assert not db.stats()["read_only"] and db.background_error is None


def test_runs_are_deterministic():
    """The same workload gives the same IO counts and the same simulated time (DESIGN: any machine, any run)."""
    from minidb.sim import Clock
    from minidb.storage import preset

    results = []
    for _ in range(2):
        dev = SimDevice()
        clock = Clock(preset("slow-ssd"))
        db = open_lsm(dev, clock=clock, **TINY)
        for b in insert_benchmark_batches(4000, batch_rows=50):
            clock.advance(1e-4)
            db.write(b)
        db.close()
        results.append((dev.stats.to_frame().to_dict(), clock.now, db.stats()["stall_seconds"]))
    assert results[0] == results[1]
