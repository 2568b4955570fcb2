"""IOStats: exact counter arithmetic, attribution by cause and tag, snapshots and per-op figures."""

import pytest

from minidb.storage import IOCounts, IOStats, SimDevice


def test_counts_every_request_exactly():
    dev = SimDevice()
    f = dev.open("a.sst", "sst", create=True)
    f.append(b"x" * 100)
    f.write(10, b"y" * 20)
    f.read(0, 50)
    f.read(50, 7)
    f.sync()
    assert dev.stats.total() == IOCounts(reads=2, read_bytes=57, writes=2, write_bytes=120, syncs=1)
    assert dev.stats.total(kind="sst") == dev.stats.total()
    assert dev.stats.total(kind="wal") == IOCounts()


def test_cause_context_attributes_and_restores():
    dev = SimDevice()
    wal = dev.open("1.log", "wal", create=True)
    sst = dev.open("2.sst", "sst", create=True)
    wal.append(b"a" * 10)
    with dev.stats.cause("flush"):
        sst.append(b"b" * 30)
        with dev.stats.cause("compaction"):
            sst.read(0, 30)
        sst.sync()
    wal.sync()
    s = dev.stats
    assert s.total(cause="foreground") == IOCounts(writes=1, write_bytes=10, syncs=1)
    assert s.total(cause="flush") == IOCounts(writes=1, write_bytes=30, syncs=1)
    assert s.total(cause="compaction") == IOCounts(reads=1, read_bytes=30)
    assert s.current_cause == "foreground"


def test_cause_restored_after_exception():
    stats = IOStats()
    with pytest.raises(RuntimeError):
        with stats.cause("checkpoint"):
            raise RuntimeError("boom")
    assert stats.current_cause == "foreground"


def test_tags_split_counts_by_index():
    dev = SimDevice()
    f = dev.open("ibdata", "data", create=True)
    with dev.stats.tag("primary"):
        f.write(0, bytes(4096))
    with dev.stats.tag("idx_price"):
        f.write(4096, bytes(4096))
        f.read(0, 4096)
    assert dev.stats.total(tag="primary") == IOCounts(writes=1, write_bytes=4096)
    assert dev.stats.total(tag="idx_price") == IOCounts(reads=1, read_bytes=4096, writes=1, write_bytes=4096)
    assert dev.stats.labels() == [("data", "foreground", "idx_price"), ("data", "foreground", "primary")]


def test_a_cause_and_a_tag_set_together_nest_with_either_alone():
    dev = SimDevice()
    f = dev.open("ibdata", "data", create=True)
    with dev.stats.tag("primary"):
        with dev.stats.attribute("eviction", "idx_price"):
            f.write(0, bytes(4096))
            with dev.stats.cause("checkpoint"):
                f.write(4096, bytes(4096))  # the tag set with the cause stays
        f.read(0, 4096)  # both restored: the outer tag, the default cause
    assert dev.stats.labels() == [("data", "checkpoint", "idx_price"), ("data", "eviction", "idx_price"),
                                  ("data", "foreground", "primary")]
    assert (dev.stats.current_cause, dev.stats.current_tag) == ("foreground", "")


def test_a_block_restores_only_the_labels_it_set():
    """Blocks that end out of order (a generator's, around a yield) restore each its own label."""
    stats = IOStats()
    cause, tag = stats.cause("flush"), stats.tag("primary")
    cause.__enter__()
    tag.__enter__()
    cause.__exit__(None, None, None)  # the cause's block ends first
    assert (stats.current_cause, stats.current_tag) == ("foreground", "primary")
    tag.__exit__(None, None, None)
    assert (stats.current_cause, stats.current_tag) == ("foreground", "")


def test_unknown_labels_are_refused():
    stats = IOStats()
    with pytest.raises(ValueError, match="unknown IO cause 'lunch'"):
        with stats.cause("lunch"):
            pass
    with pytest.raises(ValueError, match="unknown file kind 'swap'"):
        stats.total(kind="swap")
    with pytest.raises(ValueError, match="unknown IO op"):
        stats.record("erase", "data", 1)
    with pytest.raises(ValueError, match="tag must be a string"):
        with stats.tag(3):
            pass
    with pytest.raises(ValueError, match="unknown IO cause 'lunch'"):
        stats.attribute("lunch", "primary")
    with pytest.raises(ValueError, match="tag must be a string"):
        stats.attribute("foreground", None)


def test_snapshot_difference_is_the_phase():
    dev = SimDevice()
    f = dev.open("a.log", "wal", create=True)
    f.append(b"1" * 100)
    before = dev.stats.snapshot()
    f.append(b"2" * 50)
    f.sync()
    phase = dev.stats - before
    assert phase.total() == IOCounts(writes=1, write_bytes=50, syncs=1)
    # the snapshot did not move with the device
    assert before.total() == IOCounts(writes=1, write_bytes=100)
    assert (before + phase) == dev.stats
    assert (dev.stats - dev.stats).labels() == []


def test_per_op_and_write_amp():
    c = IOCounts(reads=10, read_bytes=40960, writes=5, write_bytes=102400, syncs=2)
    figures = c.per_op(10)
    assert figures == {
        "reads_per_op": 1.0,
        "writes_per_op": 0.5,
        "rkb_per_op": 4.0,
        "wkb_per_op": 10.0,
        "syncs_per_op": 0.2,
    }
    assert c.write_amp(51200) == 2.0
    with pytest.raises(ValueError):
        c.per_op(0)
    with pytest.raises(ValueError):
        c.write_amp(0)


def test_counts_arithmetic():
    a = IOCounts(1, 2, 3, 4, 5)
    b = IOCounts(10, 20, 30, 40, 50)
    assert a + b == IOCounts(11, 22, 33, 44, 55)
    assert b - a == IOCounts(9, 18, 27, 36, 45)


def test_to_frame_is_tidy():
    dev = SimDevice()
    f = dev.open("a.log", "wal", create=True)
    f.append(b"x")
    with dev.stats.cause("recovery"):
        f.read(0, 1)
    df = dev.stats.to_frame()
    assert list(df.columns) == ["kind", "cause", "tag", "reads", "read_bytes", "writes", "write_bytes", "syncs"]
    assert len(df) == 2
    assert df.read_bytes.sum() == 1 and df.write_bytes.sum() == 1


def test_failed_io_is_not_counted():
    dev = SimDevice(capacity=10)
    f = dev.open("a.log", "wal", create=True)
    with pytest.raises(OSError):
        f.append(b"x" * 11)
    dev.fail_io(1)
    with pytest.raises(OSError):
        f.append(b"x")
    assert dev.stats.total() == IOCounts()
