"""Shared by the B+tree damage tests: open a damaged database in a child with a time limit and see it refused
without a file changed; find and forge redo groups (a forgery recomputes the checksum, so only structure can tell)."""

import multiprocessing
import struct

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
