"""The doublewrite buffer: page writes cost twice the bytes, and torn home pages are repaired at recovery."""

import types

import pytest

from minidb.btree import page as pg
from minidb.btree.doublewrite import FILE as DOUBLEWRITE
from minidb.btree.torn_page_repair import DefaultRepair
from minidb.btree.tablespace import FILE as TABLESPACE
from minidb.errors import CorruptionError, DeviceCrashed

from .helpers import create_insert_benchmark_schema, insert_benchmark_batches, small_engine


def load(doublewrite):
    engine, device = small_engine(doublewrite=doublewrite, buffer_pool_bytes=32 * 4096)
    create_insert_benchmark_schema(engine)
    for batch in insert_benchmark_batches(3000, 3):
        engine.write(batch)
    engine.flush()
    return engine, device


def test_doublewrite_doubles_page_write_bytes():
    _, on = load(True)
    _, off = load(False)
    data_on, data_off = on.stats.total(kind="data"), off.stats.total(kind="data")
    assert data_on.write_bytes == data_off.write_bytes > 0  # the same pages are written either way
    assert on.stats.total(kind="doublewrite").write_bytes == data_on.write_bytes
    assert off.stats.total(kind="doublewrite").write_bytes == 0
    page_bytes_on = data_on.write_bytes + on.stats.total(kind="doublewrite").write_bytes
    assert page_bytes_on == 2 * data_off.write_bytes
    assert on.stats.total(kind="data").syncs > off.stats.total(kind="data").syncs  # a sync per batch


def test_doublewrite_bytes_are_tagged_per_index():
    engine, device = load(True)
    for name in ("primary", "idx_a"):
        assert (device.stats.total(kind="doublewrite", tag=name).write_bytes
                == device.stats.total(kind="data", tag=name).write_bytes > 0)
    io = engine.stats(trees=False)["io"]["idx_a"]
    assert sum(io["doublewrite_bytes"].values()) == device.stats.total(kind="doublewrite", tag="idx_a").write_bytes


def slots(device):
    f = device.open(DOUBLEWRITE, "doublewrite")
    data = f.read(0, f.size)
    return [pg.Page(bytearray(data[i:i + 4096])).page_no for i in range(0, len(data), 4096)
            if not pg.is_zero(data[i:i + 4096])]


def tear(device, page_no):
    """Damage the second half of a home page (after the fact, not by a crash)."""
    f = device.open(TABLESPACE, "data")
    f.write(page_no * 4096 + 2048, b"\xaa" * 2048)
    f.sync()


def crash_during_home_write(engine, device, nth):
    """Make the engine's next page flush crash, tearing every unsynced write, at its ``nth`` home page write
    (after the doublewrite copies of the batch were synced)."""
    original = engine.tablespace.write_page
    count = [0]

    def write_page(page_no, data):
        count[0] += 1
        if count[0] == nth:
            device.crash_at_io(1, ops=("write",), torn=True, seed=nth)
        original(page_no, data)

    engine.tablespace.write_page = write_page
    with pytest.raises(DeviceCrashed):
        engine.flush()


def test_pages_torn_by_a_crash_are_restored_from_their_doublewrite_copies():
    engine, device = load(True)
    for batch in insert_benchmark_batches(300, 3, start=3000):
        engine.write(batch)  # committed and synced, the pages dirty in the pool
    expected = {name: dict(engine.scan(name)) for name in engine.keyspaces()}
    crash_during_home_write(engine, device, 6)
    engine, _ = small_engine(device, buffer_pool_bytes=32 * 4096)
    assert len(engine.recovery["doublewrite_restored"]) > 0
    assert {name: dict(engine.scan(name)) for name in engine.keyspaces()} == expected
    engine.check()


def test_an_old_copy_is_never_used_to_repair_a_page():
    engine, device = load(True)
    engine.close()  # closed cleanly: every copy in the area predates the checkpoint
    victim = next(p for p in slots(device) if p > 2)
    tear(device, victim)
    with pytest.raises(CorruptionError, match=rf"tablespace.ibd page {victim}: checksum mismatch"):
        engine, _ = small_engine(device, buffer_pool_bytes=32 * 4096)  # it may be needed at open already
        engine.check()


def test_without_doublewrite_the_torn_page_is_reported_not_read():
    engine, device = load(False)
    tree = engine.trees["primary"]
    engine.close()
    tear(device, tree.root)
    engine, _ = small_engine(device, doublewrite=False, buffer_pool_bytes=32 * 4096)
    with pytest.raises(CorruptionError, match=rf"tablespace.ibd page {tree.root}: checksum mismatch"):
        engine.get("primary", b"\0" * 8)


def crashed_during_a_home_write():
    """A loaded database crashed while writing a page home: (its device, what each keyspace held)."""
    engine, device = load(True)
    for batch in insert_benchmark_batches(300, 3, start=3000):
        engine.write(batch)
    expected = {name: dict(engine.scan(name)) for name in engine.keyspaces()}
    crash_during_home_write(engine, device, 6)
    return device, expected


def test_turning_doublewrite_off_still_repairs_from_the_old_area_then_drops_it():
    device, expected = crashed_during_a_home_write()
    engine, _ = small_engine(device, doublewrite=False, buffer_pool_bytes=32 * 4096)
    assert engine.recovery["doublewrite_restored"] and not device.exists(DOUBLEWRITE)
    assert {name: dict(engine.scan(name)) for name in engine.keyspaces()} == expected
    engine.check()


class MisplacingRepair(DefaultRepair):
    """Hands back page 3's copy as page 4's: the engine must refuse to write it there."""

    def newest_copies(self, slots, checkpoint_lsn):
        copies = super().newest_copies(slots, checkpoint_lsn)
        return {page_no + 1: image for page_no, image in copies.items()}


def test_a_plugged_repair_repairs_like_the_default():
    device, expected = crashed_during_a_home_write()
    engine, _ = small_engine(device, buffer_pool_bytes=32 * 4096, torn_page_repair=DefaultRepair())
    assert engine.recovery["doublewrite_restored"]
    assert {name: dict(engine.scan(name)) for name in engine.keyspaces()} == expected


def test_a_repair_that_misplaces_a_copy_is_refused():
    device, _ = crashed_during_a_home_write()
    with pytest.raises(ValueError, match="would be written over another page"):
        small_engine(device, buffer_pool_bytes=32 * 4096, torn_page_repair=MisplacingRepair())


def test_a_repair_without_the_three_functions_is_refused():
    with pytest.raises(ValueError, match="bad option torn_page_repair=.* needs a function needs_repair"):
        small_engine(torn_page_repair=types.SimpleNamespace(page_is_intact=bool, newest_copies=dict))
