"""Column families: own memtables, levels, options and stats; one shared WAL; keyspaces mapped by keyspace_cf."""

import pytest

from minidb.kv import WriteBatch
from minidb.storage import SimDevice

from .lsm_helpers import TINY, open_tiny

CFS = dict(column_families={"cf1": {"compression": "none"},
                            "cf2": {"compression": "lz4", "bottommost_compression": "zstd", "bits_per_key": 0}},
           keyspace_cf={"rows": "cf1", "idx": "cf2"})


def fill(db, n=3000):
    for s in range(0, n, 100):
        b = WriteBatch()
        for i in range(s, s + 100):
            b.put("rows", b"%08d" % i, b"row-%d;" % (i % 7) * 10)
            b.put("idx", b"%08d" % (n - i), b"idx-value;" * 5)
            b.put("misc", b"%08d" % i, b"m")
        db.write(b)


def test_each_family_has_its_own_files_options_and_stats():
    dev = SimDevice()
    db = open_tiny(dev, **CFS)
    fill(db)
    db.flush()
    assert db.column_families() == ["default", "cf1", "cf2"]
    cf1, cf2, default = db.column_family("cf1"), db.column_family("cf2"), db.column_family("default")
    comp = {name: {db.tables.get(db.column_family(name), f).properties["compression"]
                   for _, f in db.column_family(name).version.all_files()} for name in ("cf1", "cf2")}
    assert comp["cf1"] == {"none"} and comp["cf2"] <= {"lz4", "zstd"} and "zstd" in comp["cf2"]
    assert cf2.version.total_bytes() < cf1.version.total_bytes()  # compressed vs not, similar logical bytes
    assert cf2.policy is None and cf1.policy is not None  # bits_per_key=0: cf2 builds no filter
    for name, cf in (("cf1", cf1), ("cf2", cf2), ("default", default)):
        df = db.compaction_stats(cf=name)
        assert df["Size"].iloc[-1] == cf.version.total_bytes()
        assert name in db.compaction_stats_text(cf=name).splitlines()[0]
    with pytest.raises(ValueError, match="unknown column family 'nope'"):
        db.compaction_stats(cf="nope")


def test_keyspaces_are_prefixed_inside_their_family():
    db = open_tiny(**CFS)
    db.put("rows", b"k", b"1")
    db.put("rows2", b"k", b"2")  # unlisted: default family
    db.put("idx", b"k", b"3")
    assert db.keyspaces() == ["idx", "rows", "rows2"]
    assert [db.get(ks, b"k") for ks in ("rows", "rows2", "idx")] == [b"1", b"2", b"3"]
    db.flush()
    cf1 = db.column_family("cf1")
    (f,) = [f for _, f in cf1.version.all_files()]
    prefix = db.keyspace_map.entries["rows"][1]
    assert len(prefix) == 4 and f.smallest_user == prefix + b"k"  # MyRocks-style index id prefix
    assert list(db.scan("rows")) == [(b"k", b"1")]


def test_one_wal_serves_every_family_and_lives_until_all_have_flushed():
    dev = SimDevice()
    opts = dict(CFS, column_families={"cf1": {"memtable_bytes": 1 << 20}, "cf2": {}})
    db = open_tiny(dev, **opts)
    db.put("rows", b"early", b"in cf1's big memtable")  # cf1 will not flush for a long time
    for i in range(3000):
        db.put("misc", b"%06d" % i, b"x" * 30)  # default flushes many times meanwhile
    assert db.stats()["flushes"] > 3
    logs = [n for n in dev.list() if n.endswith(".log")]
    assert len(logs) > 1  # the first WAL still holds cf1's unflushed write
    dev.crash()
    db = open_tiny(dev, **opts)
    assert db.get("rows", b"early") == b"in cf1's big memtable"
    assert db.get("misc", b"002999") == b"x" * 30
    assert len([n for n in dev.list() if n.endswith(".log")]) > 1  # replayed into memtables, kept until a flush
    db.flush()
    assert len([n for n in dev.list() if n.endswith(".log")]) == 1  # the flush made the old WALs obsolete


def test_a_batch_across_families_is_atomic():
    dev = SimDevice()
    db = open_tiny(dev, wal_sync="none", **CFS)
    b = WriteBatch()
    b.put("rows", b"a", b"1")
    b.put("idx", b"a", b"2")
    db.write(b)
    db.close()
    db = open_tiny(dev, **CFS)
    assert db.get("rows", b"a") == b"1" and db.get("idx", b"a") == b"2"


def test_the_stored_mapping_wins_over_a_changed_option():
    dev = SimDevice()
    db = open_tiny(dev, **CFS)
    db.put("rows", b"a", b"1")
    db.close()
    with pytest.raises(ValueError, match="keyspace 'rows' is stored in column family 'cf1', not 'cf2'"):
        open_tiny(dev, column_families=CFS["column_families"], keyspace_cf={"rows": "cf2"})
    db = open_tiny(dev, **TINY)  # no options about families: they are reopened with the defaults
    assert db.get("rows", b"a") == b"1" and "cf1" in db.column_families()
