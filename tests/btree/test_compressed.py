"""Compressed tablespaces (key_block_size, page_zip.pyx): the modification log and its boundary, recompression,
compression failure and the split it causes, on-disk size and IO in key blocks, both copies in the pool, the CPU
counters, reopening, torn and damaged images, crashes at every IO point, and a stateful test against a dict."""

import random

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from minidb.btree import open_btree
from minidb.btree.page_zip import max_record_bytes
from minidb.btree.tablespace import FILE
from minidb.errors import CorruptionError
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

from .test_crash_points import crash_everywhere

PAGE = 8192


def engine(device=None, kbs=4, **options):
    device = device if device is not None else SimDevice()
    options = {"page_size": PAGE, "buffer_pool_bytes": 64 * (PAGE + (kbs or 0) * 1024), "page_cleaner": None,
               "key_block_size": kbs, **options}
    return open_btree(device, **options), device


def root_zip(db, name):
    return db.pool.peek(db.trees[name].root).zip


def cmp(db):
    return db.stats(trees=False)["compression"]


# -- options ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kbs, message", [(3, "bad key_block_size 3"), (16, "bad key_block_size 16"),
                                          (True, "bad key_block_size True"), ("8", "bad key_block_size")])
def test_bad_key_block_size_names_the_option(kbs, message):
    with pytest.raises(ValueError, match=message):
        open_btree(SimDevice(), page_size=PAGE, key_block_size=kbs)


def test_bad_compression_level_names_the_option():
    with pytest.raises(ValueError, match="bad compression_level 0"):
        open_btree(SimDevice(), page_size=PAGE, key_block_size=4, compression_level=0)


def test_the_key_block_size_is_fixed_at_creation():
    db, dev = engine(kbs=4)
    db.put("t", b"k", b"v")
    db.close()
    for other in (8, None):
        with pytest.raises(ValueError, match="key_block_size .* does not match .* whose key block size is 4"):
            engine(dev, kbs=other)
    db, _ = engine(dev, kbs=4)
    assert db.get("t", b"k") == b"v"
    db.close()
    plain, dev = engine(kbs=None)
    plain.put("t", b"k", b"v")
    plain.close()
    with pytest.raises(ValueError, match="whose key block size is None"):
        engine(dev, kbs=4)


def test_rows_are_limited_to_what_two_fit_a_block():
    db, _ = engine(kbs=1, page_size=4096, buffer_pool_bytes=64 * 5120)
    limit = max_record_bytes(1024)
    db.put("t", b"k", bytes(limit - 1))
    with pytest.raises(ValueError, match=f"at most {limit} bytes"):
        db.put("t", b"k", bytes(limit))


@pytest.mark.parametrize("page_size", [4096, 16384])
def test_rows_of_the_largest_size_that_do_not_compress_still_split_to_fit(page_size):
    """Keys and values at the limit, random bytes: two of them fill a 1 KiB block, so with the room kept for a
    delete a leaf holds one, and every split still makes progress."""
    db, _ = engine(kbs=1, page_size=page_size, buffer_pool_bytes=64 * (page_size + 1024))
    limit = max_record_bytes(1024)
    rng = random.Random(3)
    rows = {rng.randbytes(limit - 16): None for _ in range(40)}
    for key in rows:
        rows[key] = rng.randbytes(16)
        db.put("t", key, rows[key])
    for key in list(rows)[::2]:
        db.delete("t", key)
        del rows[key]
    assert dict(db.scan("t")) == rows
    db.close()


# -- the modification log and recompression --------------------------------------------------------------------------
def fill_log_until(db, name, room):
    """Small puts into the root leaf until its compressed copy has at most ``room`` bytes free, in its log."""
    z = root_zip(db, name)
    i = 0
    while z.free > room:
        db.put(name, b"a%05d" % i, b"x" * 40)
        i += 1
    return z


@pytest.mark.parametrize("over", [0, 1], ids=["log-exactly-full", "one-byte-over"])
def test_modification_log_full_vs_one_byte_over(over):
    db, _ = engine(kbs=4)
    db.put("t", b"a", b"x")
    z = fill_log_until(db, "t", 600)
    before, entries = cmp(db), z.mlog_entries
    # a PUT entry is 9 bytes + key + value, and a put leaves room for one delete (7 bytes + the longest key, here
    # the 6 of b"a00000"): this one takes exactly the room left, or one byte more
    key = b"b"
    assert z.delete_reserve == 7 + 6
    db.put("t", key, b"y" * (z.free - z.delete_reserve - 9 - len(key) + over))
    after = cmp(db)
    if over:
        assert after["compress_ops"] == before["compress_ops"] + 1 == after["compress_ops_ok"] - before[
            "compress_ops_ok"] + before["compress_ops"]
        assert z.mlog_entries == 0  # recompressed: the log starts empty
    else:
        assert after["compress_ops"] == before["compress_ops"]
        assert after["mlog_appends"] == before["mlog_appends"] + 1
        assert z.free == z.delete_reserve and z.mlog_entries == entries + 1
        db.delete("t", b"a00000")  # the reserve takes the delete's entry: no compression
        assert cmp(db)["compress_ops"] == before["compress_ops"] and z.free == 0
    assert db.get("t", key) is not None
    db.close()


def test_recompression_that_fits_does_not_split_and_one_that_fails_does():
    db, _ = engine(kbs=1, page_size=4096, buffer_pool_bytes=64 * 5120)
    rng = random.Random(3)
    splits = db.counters["splits"]
    outcomes, model = set(), {}
    for i in range(400):
        before_ops, before_ok = cmp(db)["compress_ops"], cmp(db)["compress_ops_ok"]
        before_splits = db.counters["splits"]
        model[b"%05d" % i] = value = rng.randbytes(60)  # random bytes: zlib cannot shrink them
        db.put("t", b"%05d" % i, value)
        ops, ok = cmp(db)["compress_ops"] - before_ops, cmp(db)["compress_ops_ok"] - before_ok
        if ops and ok == ops:
            outcomes.add("recompressed")
        if ops > ok:  # a compression failed: this insert split a page
            assert db.counters["splits"] > before_splits
            outcomes.add("failed -> split")
        if not ops:
            assert db.counters["splits"] == before_splits  # the log took it: no split
    assert outcomes == {"recompressed", "failed -> split"}
    assert db.counters["splits"] > splits
    assert dict(db.scan("t")) == model
    db.check()
    db.close()


def test_incompressible_rows_fill_compressed_pages_less():
    """The same random rows need more pages at KEY_BLOCK_SIZE=1 than at 4: compression failures split pages that a
    byte count would call half empty (the post's 'small bandaid': savings come in whole blocks)."""
    leaves = {}
    for kbs in (1, 4):
        db, _ = engine(kbs=kbs, page_size=4096, buffer_pool_bytes=64 * (4096 + kbs * 1024))
        rng = random.Random(5)
        for i in range(600):
            db.put("t", b"%05d" % i, rng.randbytes(50))
        leaves[kbs] = db.stats()["keyspaces"]["t"]["leaf_pages"]
        db.close()
    assert leaves[1] > 2 * leaves[4]


def test_a_root_split_that_keeps_every_record_left_moves_the_roots_image_whole():
    """A compressed root leaf filled by one batch of ascending keys (a TPC-C index's load) splits with every record
    staying left. Laid out anew with its new sibling link, that page once compressed 1 byte past its block; its
    image is now copied as it is (InnoDB's page_zip_copy_recs). The keyspaces made first give the index the id
    (one of the header bytes zlib compresses) with which this load hit the edge."""
    db = open_btree(SimDevice(), page_size=16384, key_block_size=4, page_cleaner=None)
    for j in range(7):
        db.create_keyspace(f"other{j}")
    db.create_keyspace("idx", unique=False)
    batch = WriteBatch()
    # (item, warehouse 1) of a TPC-C index on two INT columns, as the key codec writes them: 10 bytes each
    keys = [b"\x0c" + (0x80000000 + i).to_bytes(4, "big") + b"\x0c\x80\x00\x00\x01" for i in range(1, 990)]
    for key in keys:
        batch.put("idx", key, b"")
    db.write(batch)
    assert db.counters["root_splits"] >= 1
    assert [k for k, _ in db.scan("idx")] == keys
    db.close()


def test_deletes_from_full_1k_blocks_never_find_their_page_grown_past_the_block():
    """Deleting from pages at the edge of 1 KiB blocks: with one record fewer a page can compress a few bytes
    larger, and this order of deletes once found a page that no longer fit (a RuntimeError mid-delete); each insert
    now leaves room for one delete, and the reserve absorbs zlib's wobble. The keyspaces made first give the index
    the id (a header byte zlib compresses) with which this order hit the edge."""
    db = open_btree(SimDevice(), page_size=8192, key_block_size=1, page_cleaner=None)
    for j in range(5):
        db.create_keyspace(f"other{j}")
    db.create_keyspace("idx", unique=False)
    keys = [b"\x10" + (0x8000000000000000 + k).to_bytes(8, "big") + b"\x10\x80" + bytes(6) + b"\x01"
            for k in range(682)]  # (k, 1) as the key codec writes two ints
    for key in keys:
        db.put("idx", key, b"")
    gone = random.Random(10).sample(range(682), 333)
    for k in gone:
        db.delete("idx", keys[k])
    assert [k for k, _ in db.scan("idx")] == [keys[k] for k in sorted(set(range(682)) - set(gone))]
    db.close()


# -- IO, size, pool and CPU -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kbs", [8, 4, 2])
def test_pages_go_to_disk_as_key_blocks(kbs):
    db, dev = engine(kbs=kbs, doublewrite=True)
    rng = random.Random(kbs)
    for i in range(3000):
        db.put("t", rng.randbytes(8), b"row %d " % i * 6)
    db.flush()
    io = dev.stats.total(kind="data")
    assert io.writes and io.write_bytes == io.writes * kbs * 1024
    dbl = dev.stats.total(kind="doublewrite")
    assert dbl.write_bytes % (kbs * 1024) == 0 and dbl.write_bytes == io.write_bytes
    pages = db.stats(trees=False)["space"]["pages"]
    assert dev.size(FILE) == pages * kbs * 1024  # the size is a whole number of key blocks
    db.close()


def test_the_pool_holds_both_copies_and_evicts_the_uncompressed_frame_first():
    pool_bytes = 20 * (PAGE + 4096)
    db, dev = engine(kbs=4, buffer_pool_bytes=pool_bytes)
    for i in range(4000):
        db.put("t", b"%06d" % i, b"value %d" % i * 5)
    c = cmp(db)
    frames, kept = len(db.pool), c["pool_compressed_only_pages"]
    assert all(f.zip is not None for f in db.pool.frames())
    assert c["pool_uncompressed_bytes"] == frames * PAGE
    assert c["pool_compressed_bytes"] == (frames + kept) * 4096
    # frames were evicted and their compressed copies kept, up to a tenth of the pool, taking frames' room
    assert kept == int(0.1 * pool_bytes) // 4096
    assert db.pool.capacity == (pool_bytes - kept * 4096) // (PAGE + 4096) < 20
    assert c["pool_uncompressed_bytes"] + c["pool_compressed_bytes"] <= pool_bytes
    # the most recently evicted pages come back from their kept copies: expanded, not read
    recent = list(db.pager.zip_only)[-2:]
    reads = dev.stats.total(kind="data").reads
    for page_no in recent:
        db.pager.fetch(page_no, "t")
        db.pager.release()
    assert dev.stats.total(kind="data").reads == reads
    assert cmp(db)["compressed_only_hits"] == c["compressed_only_hits"] + 2
    assert dict(db.scan("t")) == {b"%06d" % i: b"value %d" % i * 5 for i in range(4000)}
    db.close()


def test_compression_work_is_counted_for_the_cpu_model():
    db, dev = engine(kbs=4, buffer_pool_bytes=16 * (PAGE + 4096))
    for i in range(3000):
        db.put("t", b"%06d" % i, b"value %d" % i * 5)
    db.flush()
    for i in range(0, 3000, 7):
        assert db.get("t", b"%06d" % i) == b"value %d" % i * 5
    c = cmp(db)
    work = db.work()
    assert work["zlib_compress_bytes"] == c["compressed_in_bytes"] > 0
    assert work["zlib_decompress_bytes"] == c["decompressed_out_bytes"] > 0  # evicted pages were read back
    assert c["uncompress_ops"] > 0
    plain, _ = engine(kbs=None)
    plain.put("t", b"k", b"v")
    assert plain.work()["zlib_compress_bytes"] == 0
    db.close()
    plain.close()


def test_same_seed_same_counts():
    def run():
        db, dev = engine(kbs=4, buffer_pool_bytes=16 * (PAGE + 4096))
        rng = random.Random(9)
        for i in range(1500):
            db.put("t", rng.randbytes(6), rng.randbytes(20) + b"z" * 30)
        db.close()
        return cmp_after(dev), dev.stats.total(kind="data")

    def cmp_after(dev):
        db, _ = engine(dev, kbs=4, buffer_pool_bytes=16 * (PAGE + 4096))
        out = cmp(db)
        db.close()
        return out
    assert run() == run()


# -- damage, torn pages, crashes --------------------------------------------------------------------------------------
def test_a_damaged_image_is_reported_not_read():
    db, dev = engine(kbs=4, buffer_pool_bytes=16 * (PAGE + 4096))
    for i in range(2000):
        db.put("t", b"%06d" % i, b"value %d" % i * 5)
    db.close()
    victim = 5
    with dev.open(FILE, "data") as f:
        image = bytearray(f.read(victim * 4096, 4096))
        image[100] ^= 0xFF
        f.write(victim * 4096, bytes(image))
        f.sync()
    db, _ = engine(dev, kbs=4, buffer_pool_bytes=16 * (PAGE + 4096))
    with pytest.raises(CorruptionError, match=f"{FILE} page {victim}: checksum mismatch in its 4096-byte compressed"):
        list(db.scan("t"))


@pytest.mark.parametrize("torn", [False, True], ids=["clean-crash", "torn-crash"])
def test_crash_at_every_io_point_recovers_compressed(torn):
    points, outcomes = crash_everywhere(torn=torn, doublewrite=True, key_block_size=1,
                                        buffer_pool_bytes=16 * (4096 + 1024))
    assert points > 350 and outcomes["corruption"] == 0
    assert outcomes["rolled_back"] > 0


# -- stateful: a compressed tablespace behaves as a dict ---------------------------------------------------------------
class CompressedMachine(RuleBasedStateMachine):
    """Puts (compressible and not), deletes, reads, clean reopens and crashes against a dict model."""

    kbs = 4

    @initialize()
    def start(self):
        self.db, self.dev = engine(kbs=self.kbs, buffer_pool_bytes=16 * (PAGE + self.kbs * 1024),
                                   redo_sync="commit")
        self.model = {}

    keys = st.integers(0, 300).map(lambda i: b"k%05d" % i)
    values = st.one_of(st.binary(min_size=0, max_size=300),
                       st.integers(0, 600).map(lambda n: b"compressible " * (n // 13)))

    @rule(key=keys, value=values)
    def put(self, key, value):
        self.db.put("t", key, value)
        self.model[key] = value

    @rule(key=keys)
    def delete(self, key):
        self.db.delete("t", key)
        self.model.pop(key, None)

    @rule(key=keys)
    def get(self, key):
        assert self.db.get("t", key) == self.model.get(key)

    @rule()
    def reopen(self):
        self.db.close()
        self.db, _ = engine(self.dev, kbs=self.kbs, buffer_pool_bytes=16 * (PAGE + self.kbs * 1024))

    @precondition(lambda self: self.model)
    @rule(torn=st.booleans())
    def crash(self, torn):
        self.dev.crash(torn=torn)
        self.db, _ = engine(self.dev, kbs=self.kbs, buffer_pool_bytes=16 * (PAGE + self.kbs * 1024))

    @invariant()
    def same_as_model(self):
        if hasattr(self, "db"):
            assert dict(self.db.scan("t")) == self.model

    def teardown(self):
        if hasattr(self, "db"):
            self.db.check()


class CompressedMachine8(CompressedMachine):
    kbs = 8


STATEFUL = settings(max_examples=12, stateful_step_count=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
TestCompressedKeyBlock4 = CompressedMachine.TestCase
TestCompressedKeyBlock4.settings = STATEFUL
TestCompressedKeyBlock8 = CompressedMachine8.TestCase
TestCompressedKeyBlock8.settings = STATEFUL


def test_verify_and_repair_read_compressed_tablespaces(tmp_path, capsys):
    from minidb import DirDevice
    from minidb.cli import main

    src, out = tmp_path / "db", tmp_path / "repaired"
    dev = DirDevice(src)
    db, _ = engine(dev, kbs=4, buffer_pool_bytes=16 * (PAGE + 4096))
    rows = {b"%06d" % i: b"value %d" % i * 5 for i in range(3000)}
    for k, v in rows.items():
        db.put("t", k, v)
    db.close()
    dev.close()
    assert main(["verify", str(src)]) == 0
    assert "never written" in capsys.readouterr().out
    with open(src / FILE, "r+b") as f:  # damage one compressed image
        f.seek(7 * 4096 + 200)
        byte = f.read(1)[0]
        f.seek(7 * 4096 + 200)
        f.write(bytes((byte ^ 0x10,)))
    assert main(["verify", str(src)]) == 1
    assert "page 7: checksum mismatch in its 4096-byte compressed image" in capsys.readouterr().out
    main(["repair", str(src), "--out", str(out)])
    dev = DirDevice(out)
    db, _ = engine(dev, kbs=4, buffer_pool_bytes=16 * (PAGE + 4096))  # the repair keeps the key block size
    got = dict(db.scan("t"))
    assert got and all(rows[k] == v for k, v in got.items())
    db.close()
    dev.close()
