"""The B+tree refuses what no checksum can see: a tablespace or redo file rolled back to an older copy, redo groups
crafted with their checksum recomputed, a checkpoint naming another page size; it never hangs on them, and an open
that fails deletes nothing."""

import multiprocessing
import struct

import pytest

from minidb.btree.redo_log import FILE_HEADER_SIZE, GROUP, group_at
from minidb.crc import crc32
from minidb.errors import CorruptionError

from btree.helpers import contents, small_engine
from damage.test_logs import batch, read, replace


def files(dev):
    return {name: read(dev, name) for name in dev.list()}


def refused(dev, match, unchanged=True, **options):
    """Opening and reading every key raises CorruptionError matching ``match`` (in a child with a time limit: never
    a hang), and changes no file (``unchanged``: the open itself finds the damage, not a later read)."""
    before = files(dev)
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)

    def attempt(conn):
        try:
            engine, _ = small_engine(dev, **options)
            conn.send(f"opened and read {sum(map(len, contents(engine).values()))} keys")
        except CorruptionError as exc:
            conn.send(("detected", str(exc), files(dev)))
        except BaseException as exc:
            conn.send(f"{type(exc).__name__}: {exc}")

    proc = ctx.Process(target=attempt, args=(child,))
    proc.start()
    got = parent.recv() if parent.poll(30) else "hang"
    proc.kill()
    proc.join()
    assert isinstance(got, tuple), got
    _, message, after = got
    assert match in message, message
    assert after == before or not unchanged  # not one file deleted, cut or written


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


def crashed_with_groups():
    """A crashed B+tree whose newest redo file holds several groups after the checkpoint: (device, file name)."""
    engine, dev = small_engine(redo_log_bytes=64 << 20)
    for i in range(30):
        engine.write(batch(i))
    name = engine.redo.file_names()[-1]
    dev.crash()
    return dev, name


def groups(data):
    pos, lsn, out = FILE_HEADER_SIZE, struct.unpack_from("<Q", data, 12)[0], []
    while (n := group_at(data, pos, lsn)) is not None:
        out.append((pos, n))
        pos, lsn = pos + GROUP.size + n, lsn + GROUP.size + n
    return out


def craft(dev, name, which, change):
    """Change the body of group ``which`` of file ``name`` with ``change(body)`` and recompute its header to match
    (length, crc, the COMMIT bit): a forgery, not damage."""
    data = bytearray(read(dev, name))
    pos, n = groups(bytes(data))[which]
    body = bytearray(data[pos + GROUP.size:pos + GROUP.size + n])
    change(body)
    data[pos + GROUP.size:pos + GROUP.size + len(body)] = body
    unsynced = struct.unpack_from("<I", data, pos + 20)[0] & 0x7FFFFFFF
    struct.pack_into("<I", data, pos + 4, len(body))
    struct.pack_into("<II", data, pos + 16, crc32(bytes(body)), unsynced | (0x80000000 if body[-1] == 255 else 0))
    replace(dev, name, bytes(data[:pos + GROUP.size + len(body)]) + bytes(data[pos + GROUP.size + n:]))


@pytest.mark.parametrize("which", [-1, -3])
def test_commit_turned_to_continue_with_its_crc_recomputed_is_refused(which):
    # the group header repeats COMMIT: the last group's flip would otherwise roll back an acknowledged batch
    dev, name = crashed_with_groups()
    data = read(dev, name)
    pos, n = groups(data)[which]
    assert data[pos + GROUP.size + n - 1] == 255
    data = bytearray(data)
    data[pos + GROUP.size + n - 1] = 254
    struct.pack_into("<I", data, pos + 16, crc32(bytes(data[pos + GROUP.size:pos + GROUP.size + n])))
    replace(dev, name, bytes(data))
    refused(dev, name)


def test_a_page_number_past_the_tablespace_is_refused_without_growing_the_pool():
    dev, name = crashed_with_groups()
    craft(dev, name, -1, lambda body: body.__setitem__(slice(1, 5), (0xFFFFFFF0).to_bytes(4, "little")))
    refused(dev, "page 4294967280 is past the tablespace's")


def test_a_group_of_continue_alone_is_refused():
    dev, name = crashed_with_groups()

    def only_continue(body):
        body[:] = bytes([254])

    craft(dev, name, -1, only_continue)
    refused(dev, "a group of CONTINUE alone")


def test_a_record_that_leaves_its_page_malformed_is_refused():
    # a FIELD record writing a page's record count: the page's heap no longer adds up
    from minidb.btree import redo_records as rr

    dev, name = crashed_with_groups()
    data = read(dev, name)
    pos, n = groups(data)[-1]
    page = struct.unpack_from("<I", data, pos + GROUP.size + 1)[0]  # the page of its first record
    field = bytes([rr.FIELD]) + struct.pack("<IHB", page, 24, 2) + (0).to_bytes(2, "little")

    def prepend(body):
        body[:0] = field

    craft(dev, name, -1, prepend)
    refused(dev, f"page {page} is malformed after replay")


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
