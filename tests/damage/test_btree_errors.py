"""B+tree errors by meaning (the README's list): a checkpoint naming a page size that page 0 does not confirm is
damage, a wrong ``page_size`` the caller's mistake; a full disk on the redo log is ``NoSpaceError``, and the stopped
engine says so before anything else."""

import struct

import pytest

from minidb.crc import crc32
from minidb.errors import CorruptionError

from btree.helpers import contents, small_engine
from damage.test_logs import batch, read, replace


def test_a_checkpoint_naming_another_page_size_is_corruption_and_a_wrong_option_a_value_error():
    engine, dev = small_engine()
    engine.write(batch(0))
    engine.close()
    bigger = dict(buffer_pool_bytes=16 * 8192, redo_log_bytes=64 * 8192)  # (16 frames and 64 pages of either size)
    with pytest.raises(ValueError, match="page_size 8192 does not match .* 4096-byte pages"):
        small_engine(dev, page_size=8192, **bigger)
    data = bytearray(read(dev, "redo-checkpoint"))
    for block in (0, 512):
        struct.pack_into("<I", data, block + 24, 8192)
        struct.pack_into("<I", data, block + 28, crc32(bytes(data[block:block + 28])))
    replace(dev, "redo-checkpoint", bytes(data))
    with pytest.raises(CorruptionError, match="redo-checkpoint names 8192-byte pages"):
        small_engine(dev, page_size=4096, **bigger)  # not the caller's mistake: page 0 says 4096
    with pytest.raises(CorruptionError, match="tablespace.ibd page 0"):
        small_engine(dev, page_size=8192, **bigger)  # the checkpoint's size, which the tablespace contradicts


def test_a_full_disk_on_the_redo_log_is_no_space_and_a_stopped_engine_says_so_first():
    from minidb.errors import EngineStopped, NoSpaceError

    engine, dev = small_engine()
    for i in range(10):
        engine.write(batch(i))
    txn = engine.begin()
    txn.put("t", b"x", b"1")
    dev.capacity = dev.used + 10
    with pytest.raises(NoSpaceError):
        for i in range(100):
            txn.put("t", b"y%04d" % i, b"v" * 200)
    for call in (lambda: engine.put("t", b"z", b"1"), lambda: txn.put("t", b"z", b"1"), engine.begin):
        with pytest.raises(EngineStopped):  # not "a transaction is open": the engine stopped
            call()
    dev.capacity = None
    engine.resume()
    assert len(contents(engine)["t"]) == 10 * 5  # the open transaction was rolled back, nothing else lost
