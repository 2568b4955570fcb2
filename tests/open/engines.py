"""Both engines, opened small, for the tests of opening: each test runs once per engine.

(A module rather than conftest.py, so that test modules can import it.)
"""

from minidb.btree import open_btree
from minidb.kv import WriteBatch
from minidb.lsm import open_lsm

LSM = dict(memtable_bytes=8 << 10, block_size=1024, max_bytes_for_level_base=32 << 10,
           target_file_size_base=8 << 10, block_cache_bytes=64 << 10)
BTREE = dict(page_size=4096, buffer_pool_bytes=16 * 4096, redo_log_bytes=64 * 4096, page_cleaner=None)
OPENERS = {"lsm": (open_lsm, LSM), "btree": (open_btree, BTREE)}
MARKER = {"lsm": "CURRENT", "btree": "redo-checkpoint"}  # the file that makes a device a database


def open_engine(kind: str, device, **options):
    """Engine ``kind`` on ``device`` with the small options, overridden by ``options``."""
    opener, small = OPENERS[kind]
    return opener(device, **{**small, **options})


def load(engine, n: int, start: int = 0, per_batch: int = 50) -> dict:
    """Write rows ``start .. start+n-1`` into keyspace "t" in batches; return them as a dict."""
    rows = {}
    for lo in range(start, start + n, per_batch):
        batch = WriteBatch()
        for i in range(lo, min(lo + per_batch, start + n)):
            key, value = b"k%06d" % i, b"v%06d" % i * 8
            batch.put("t", key, value)
            rows[key] = value
        engine.write(batch)
    return rows


def files(device) -> dict[str, bytes]:
    """Every file of ``device`` with its bytes: two snapshots are equal iff nothing was created, written,
    renamed or deleted in between."""
    out = {}
    for name in device.list():
        f = device.open(name, kind="data")
        out[name] = f.read(0, f.size)
        f.close()
    return out
