"""Crash at every IO point of a small workload (also with torn writes): no synced write is lost, and the MANIFEST
always describes a consistent file set (every named file exists, nothing unnamed is left behind)."""

import re

import pytest

from minidb.errors import DeviceCrashed
from minidb.kv import WriteBatch
from minidb.lsm import open_lsm
from minidb.storage import SimDevice

OPTS = dict(memtable_bytes=1024, block_size=256, max_bytes_for_level_base=4096, target_file_size_base=1024,
            max_bytes_for_level_multiplier=3, level0_file_num_compaction_trigger=2, wal_sync="write",
            column_families={"cf1": {"compaction": "universal"}}, keyspace_cf={"u": "cf1"})


def batches():
    """20 batches over two families, with overwrites and deletes; enough for flushes and compactions."""
    out = []
    for i in range(20):
        b = WriteBatch()
        for j in range(8):
            k = b"%03d" % ((i * 7 + j * 13) % 60)
            if (i + j) % 5 == 0:
                b.delete("t", k)
            else:
                b.put("t", k, b"%d-%d" % (i, j) * 4)
            b.put("u", k, b"u%d" % i * 5)
        out.append(b)
    return out


def apply(model, batch):
    for ks, k, v in batch.ops:
        if v is None:
            model.pop((ks, k), None)
        else:
            model[(ks, k)] = v


def workload(dev, acked):
    """Run the workload, appending to ``acked`` each batch once its write returned."""
    db = open_lsm(dev, **OPTS)
    for i, b in enumerate(batches()):
        db.write(b)
        acked.append(i)
        if i == 12:
            db.compact_range()
    db.close()


def contents(db):
    return {(ks, k): v for ks in ("t", "u") for k, v in db.scan(ks)}


def check_consistent(dev, db):
    """Every file the MANIFEST names exists, and nothing else of ours is on the device (but SSTs a torn last
    MANIFEST edit may have named: recovery keeps those, as they are not provably obsolete)."""
    named = set()
    for name in db.column_families():
        cf = db.column_family(name)
        cf.version.check()
        named |= {f"{f.number:06d}.sst" for _, f in cf.version.all_files()}
    ssts = {n for n in dev.list() if n.endswith(".sst")}
    assert ssts >= named
    if not db.vs.tail_dropped:
        assert ssts == named
    assert len([n for n in dev.list() if n.startswith("MANIFEST-")]) == 1
    assert not [n for n in dev.list() if not re.match(r"^(\d{6}\.(sst|log)|MANIFEST-\d{6}|CURRENT)$", n)]


@pytest.mark.parametrize("torn", [False, True])
def test_crash_at_every_io_point(torn):
    all_batches = batches()
    n = 0
    while True:
        n += 1
        dev = SimDevice()
        dev.crash_at_io(n, torn=torn, seed=n)  # writes, syncs, truncates, renames and deletes
        acked = []
        try:
            workload(dev, acked)
        except DeviceCrashed:
            pass
        else:
            break  # the workload has fewer IO points than n: every point was tried
        db = open_lsm(dev, **OPTS)
        got = contents(db)
        model = {}
        for i in acked:
            apply(model, all_batches[i])
        if got != model:
            # The batch in flight when the crash hit may or may not have made it, but only as a whole.
            nxt = len(acked)
            assert nxt < len(all_batches), f"crash at IO point {n}: extra data"
            apply(model, all_batches[nxt])
            assert got == model, f"crash at IO point {n} (torn={torn}): acknowledged writes lost or mangled"
        check_consistent(dev, db)
        db.close()
    assert n > 150


def test_crash_during_recovery():
    """A crash while recovering from a crash: recovery is itself crash-safe."""
    all_batches = batches()
    for first in range(20, 245, 25):
        dev = SimDevice()
        dev.crash_at_io(first)
        acked = []
        with pytest.raises(DeviceCrashed):
            workload(dev, acked)
        n = 0
        while True:
            n += 1
            dev.crash_at_io(n, torn=True, seed=n)
            try:
                db = open_lsm(dev, **OPTS)
            except DeviceCrashed:
                continue
            dev.clear_faults()
            break
        model = {}
        for i in acked:
            apply(model, all_batches[i])
        got = contents(db)
        if got != model:
            apply(model, all_batches[len(acked)])
            assert got == model, f"crash at {first}, then at recovery IO point {n}"
        check_consistent(dev, db)
        db.close()
