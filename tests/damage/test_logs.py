"""Damage to the logs (LSM WAL and MANIFEST, B+tree redo) is detected; a torn tail is not taken for damage."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.btree.redo_log import FILE_HEADER_SIZE, GROUP, GROUP_MAGIC
from minidb.errors import CorruptionError
from minidb.kv import WriteBatch
from minidb.lsm.log_reader import Drop, Record, scan, torn
from minidb.lsm.log_writer import LogWriter
from minidb.storage import SimDevice

from btree.helpers import contents, small_engine
from lsm.lsm_helpers import open_tiny


def batch(i, n=5):
    b = WriteBatch()
    for j in range(n):
        b.put("t", b"%06d" % (i * n + j), (b"value-%d-" % i).ljust(100, b"."))
    return b


def poke(dev, name, offset, data):
    """Overwrite bytes of a file on a (crashed or closed) device, durably."""
    f = dev.open(name, kind="wal")
    f.write(offset, data)
    f.sync()
    f.close()


def read(dev, name):
    f = dev.open(name, kind="wal")
    try:
        return f.read(0, f.size)
    finally:
        f.close()


# -- the LSM's logs -----------------------------------------------------------------------------------------------

def lsm_with_wal(n=10):
    """A crashed LSM whose one WAL holds ``n`` synced batches (nothing flushed): (device, WAL name)."""
    dev = SimDevice()
    db = open_tiny(dev, memtable_bytes=1 << 20, wal_sync="write")
    for i in range(n):
        db.write(batch(i))
    dev.crash()
    return dev, db.wal_files.writer.name


def test_a_damaged_wal_header_before_synced_batches_is_detected_not_taken_for_the_end():
    dev, wal = lsm_with_wal()
    record = len(read(dev, wal)) // 10  # records are all the same size
    poke(dev, wal, 3 * record + 4, b"\xff\xff")  # the 4th record's length: the reader used to skip the whole block
    with pytest.raises(CorruptionError, match=wal):
        open_tiny(dev, memtable_bytes=1 << 20)


@pytest.mark.parametrize("damage,outcome", [("bitflip", "detected"), ("zero-sector", "torn"), ("cut", "torn")])
def test_the_last_wal_record_torn_is_a_tail_but_flipped_is_damage(damage, outcome):
    dev, wal = lsm_with_wal()
    data = read(dev, wal)
    record = len(data) // 10
    if damage == "bitflip":
        poke(dev, wal, len(data) - 3, bytes([data[-3] ^ 4]))
    elif damage == "zero-sector":
        start = (len(data) - 1) // 512 * 512  # the last sector, lost: zeros (it starts inside the last record)
        assert start > len(data) - record
        poke(dev, wal, start, bytes(len(data) - start))
    else:
        f = dev.open(wal, kind="wal")
        f.truncate(len(data) - record // 2)
        f.close()
    if outcome == "detected":
        with pytest.raises(CorruptionError, match="not a torn write"):
            open_tiny(dev, memtable_bytes=1 << 20)
    else:
        db = open_tiny(dev, memtable_bytes=1 << 20)
        assert len(list(db.scan("t"))) == 9 * 5  # all but the torn last batch


def test_a_damaged_manifest_edit_before_later_edits_is_detected():
    dev = SimDevice()
    db = open_tiny(dev, memtable_bytes=2048, wal_sync="write")
    for i in range(40):
        db.write(batch(i))  # several flushes: several edits in this open's MANIFEST
    db.close()
    manifest = next(n for n in dev.list() if n.startswith("MANIFEST-"))
    assert len(read(dev, manifest)) < 32768  # all in the file's only block, where a skip used to hide the rest
    poke(dev, manifest, 4, b"\xff\xff")  # the first edit's length
    with pytest.raises(CorruptionError, match=manifest):
        open_tiny(dev, memtable_bytes=2048)


def test_torn_tells_a_cut_or_zeroed_tail_from_a_flipped_bit():
    w = LogWriter()
    data = b""
    for i in range(3):
        chunk, offset = w.encode(bytes([65 + i]) * 700)
        w.commit(offset)
        data += chunk
    last = len(data) - 707
    assert torn(data[:-1], last)  # the record cut by the end of the file
    cut = (len(data) - 1) // 512 * 512
    assert cut > last
    assert torn(data[:cut] + bytes(len(data) - cut), last)  # its last sector's share lost: zero
    assert not torn(data[:-20] + bytes(20), last)  # zeros that are not a whole sector's share: damage
    flipped = bytearray(data)
    flipped[-5] ^= 1
    assert not torn(bytes(flipped), last)  # complete, non-zero: damage
    # scan marks its drops so that a caller (a WAL recovery mode) can decide: where, at the tail or not, torn or not
    drop = scan(bytes(flipped))[-1]
    assert isinstance(drop, Drop) and (drop.offset, drop.tail, drop.torn) == (last, True, False)
    middle = bytearray(data)
    middle[10] ^= 1
    drop = scan(bytes(middle))[0]
    assert isinstance(drop, Drop) and (drop.offset, drop.tail) == (0, False)


# -- the B+tree's redo ----------------------------------------------------------------------------------------------

def btree_with_redo_files():
    """A crashed B+tree with several redo files after its checkpoint: (device, redo file names, contents)."""
    engine, dev = small_engine(buffer_pool_bytes=256 * 4096)
    i = 0
    while len(engine.redo.file_names()) < 3 or engine.redo.files[-1][2].size < FILE_HEADER_SIZE + 3000:
        engine.write(batch(i))  # until the last file holds several groups
        i += 1
    names = engine.redo.file_names()
    want = contents(engine)
    dev.crash()
    # The last write's zero padding (redo_log.py's log blocks) is cut off, so that the file ends with its last
    # group, where the cases below damage it.
    data, end = read(dev, names[-1]), FILE_HEADER_SIZE
    while end + GROUP.size <= len(data) and int.from_bytes(data[end:end + 4], "little") == GROUP_MAGIC:
        end += GROUP.size + int.from_bytes(data[end + 4:end + 8], "little")
    f = dev.open(names[-1], kind="redo")
    f.truncate(end)
    f.close()
    return dev, names, want


def test_damage_in_a_middle_redo_file_is_detected_and_no_file_is_deleted():
    dev, names, _ = btree_with_redo_files()
    poke(dev, names[1], FILE_HEADER_SIZE + GROUP.size + 10, b"\x00\x01")
    with pytest.raises(CorruptionError, match=names[1]):
        small_engine(dev, buffer_pool_bytes=256 * 4096)
    assert all(dev.exists(n) for n in names)  # later files used to be deleted as "after the end of the log"


def test_a_missing_middle_redo_file_is_detected():
    dev, names, _ = btree_with_redo_files()
    dev.delete(names[1])
    with pytest.raises(CorruptionError, match=f"{names[1]} is missing"):
        small_engine(dev, buffer_pool_bytes=256 * 4096)


def test_a_zeroed_group_before_synced_groups_is_detected_even_if_it_looks_torn():
    dev, names, _ = btree_with_redo_files()
    poke(dev, names[-1], 512, bytes(512))  # a sector of the last file lost, as a torn write would lose it
    with pytest.raises(CorruptionError, match="synced"):
        small_engine(dev, buffer_pool_bytes=256 * 4096)


def test_a_lost_header_of_the_last_redo_file_holding_groups_is_detected_and_the_file_kept():
    dev, names, _ = btree_with_redo_files()
    poke(dev, names[-1], 0, bytes(FILE_HEADER_SIZE))  # looks torn, but synced groups follow it
    with pytest.raises(CorruptionError, match="bad redo file header"):
        small_engine(dev, buffer_pool_bytes=256 * 4096)
    assert dev.exists(names[-1])


@pytest.mark.parametrize("damage", ["bitflip", "cut"])
def test_the_last_redo_group_cut_is_a_tail_but_flipped_is_damage(damage):
    dev, names, want = btree_with_redo_files()
    data = read(dev, names[-1])
    if damage == "bitflip":
        poke(dev, names[-1], len(data) - 3, bytes([data[-3] ^ 4]))
        with pytest.raises(CorruptionError, match="not a torn write"):
            small_engine(dev, buffer_pool_bytes=256 * 4096)
    else:
        f = dev.open(names[-1], kind="redo")
        f.truncate(len(data) - 10)
        f.close()
        engine, _ = small_engine(dev, buffer_pool_bytes=256 * 4096)
        got = contents(engine)["t"]
        assert len(got) == len(want["t"]) - 5  # the last batch, cut, is gone; nothing else
        assert all(want["t"][k] == v for k, v in got.items())


def test_a_huge_sequence_number_with_a_valid_checksum_is_corruption_not_overflow():
    dev, wal = lsm_with_wal(1)
    record = scan(read(dev, wal))[0]
    payload = bytearray(record.payload)
    payload[0:8] = (2**64 - 5).to_bytes(8, "little")  # the batch's first sequence number
    chunk, _ = LogWriter(0).encode(bytes(payload))
    f = dev.open(wal, kind="wal")
    f.truncate(0)
    f.write(0, chunk)
    f.sync()
    f.close()
    with pytest.raises(CorruptionError, match="past the 7-byte maximum"):
        open_tiny(dev, memtable_bytes=1 << 20)


def test_a_file_replaced_by_a_directory_is_corruption(tmp_path):
    from minidb.storage import DirDevice

    (tmp_path / "doublewrite.dblwr").mkdir()
    with pytest.raises(CorruptionError, match="is a directory"):
        DirDevice(tmp_path).open("doublewrite.dblwr", "doublewrite", create=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=5000), min_size=2, max_size=12), st.data())
def test_damage_before_the_last_record_is_never_a_tail_and_hides_no_record(payloads, data):
    w = LogWriter()
    chunks = []
    for p in payloads:
        chunk, offset = w.encode(p)
        w.commit(offset)
        chunks.append(chunk)
    log = b"".join(chunks)
    victim = data.draw(st.integers(min_value=0, max_value=len(payloads) - 2), label="record damaged")
    start = sum(map(len, chunks[:victim]))
    pos = data.draw(st.integers(min_value=start, max_value=start + len(chunks[victim]) - 1), label="byte")
    bad = bytearray(log)
    bad[pos] ^= data.draw(st.integers(min_value=1, max_value=255), label="xor")
    events = scan(bytes(bad))
    drops = [e for e in events if isinstance(e, Drop)]
    assert drops and not drops[0].tail  # reported, and not as a tail: later records are there to prove it
    later = [e.payload for e in events if isinstance(e, Record) and e.start > pos]
    assert later[-(len(payloads) - victim - 1):] == payloads[victim + 1:]  # every record after the damage seen


# -- boundaries: where a fragment or group ends ---------------------------------------------------------------------

def three_records(sizes=(700, 700, 700)):
    w = LogWriter()
    chunks = []
    for i, n in enumerate(sizes):
        chunk, offset = w.encode(bytes([65 + i]) * n)
        w.commit(offset)
        chunks.append(chunk)
    return b"".join(chunks), len(chunks[-1])


@pytest.mark.parametrize("overhang, is_torn", [(0, False), (1, True)])
def test_a_damaged_last_fragment_ending_exactly_at_the_end_of_the_file_is_damage_one_byte_past_is_torn(overhang,
                                                                                                         is_torn):
    data, last = three_records()
    start = len(data) - last
    bad = bytearray(data)
    bad[start + 4:start + 6] = (last - 7 + overhang).to_bytes(2, "little")  # its length: up to, or one past, the end
    bad[-1] ^= 1  # and a flipped payload byte, so the crc fails either way
    assert torn(bytes(bad), start) is is_torn
    drop = scan(bytes(bad))[-1]
    assert isinstance(drop, Drop) and (drop.offset, drop.tail, drop.torn) == (start, True, is_torn)


@pytest.mark.parametrize("fill, found", [(0, True), (1, False)])
def test_an_intact_fragment_ending_exactly_on_its_block_boundary_is_found_after_damage(fill, found):
    # record 2 fills the first 32 KiB block to its last byte; damage to record 1 must not hide it. One byte more and
    # its fragment would cross the boundary, which no intact fragment does (the writer splits it instead).
    from minidb.lsm.log_format import BLOCK_SIZE, HEADER_SIZE

    first = 1000
    second = BLOCK_SIZE - 2 * HEADER_SIZE - first
    data, _ = three_records((first, second, 500))
    assert data[BLOCK_SIZE - 1 - 0] == 66  # the block's last byte is record 2's
    bad = bytearray(data)
    bad[HEADER_SIZE + 10] ^= 1  # record 1's payload
    if fill:  # the same bytes, but record 2's header claims one byte more (crc recomputed): it crosses the block
        from minidb.crc import crc32

        at = HEADER_SIZE + first
        bad[at + 4:at + 6] = (second + 1).to_bytes(2, "little")
        bad[at:at + 4] = crc32(bytes(bad[at + HEADER_SIZE:at + HEADER_SIZE + second + 1]),
                               crc32(bytes(bad[at + 6:at + 7]))).to_bytes(4, "little")
    events = scan(bytes(bad))
    assert isinstance(events[0], Drop) and not events[0].tail
    payloads = [e.payload for e in events if isinstance(e, Record)]
    assert (bytes([66]) * second in payloads) is found
    assert payloads[-1] == bytes([67]) * 500  # the record after the block is always found


@pytest.mark.parametrize("overhang, outcome", [(0, "not a torn write"), (1, "torn")])
def test_a_damaged_last_redo_group_ending_exactly_at_the_end_of_the_file_is_damage_one_byte_past_is_torn(overhang,
                                                                                                         outcome):
    dev, names, want = btree_with_redo_files()
    data = bytearray(read(dev, names[-1]))
    ends = [FILE_HEADER_SIZE]
    while ends[-1] < len(data):
        ends.append(ends[-1] + GROUP.size + int.from_bytes(data[ends[-1] + 4:ends[-1] + 8], "little"))
    last = ends[-2]
    assert ends[-1] == len(data)
    data[last + 4:last + 8] = (len(data) - last - GROUP.size + overhang).to_bytes(4, "little")  # up to, or past, the end
    data[last + GROUP.size + 3] ^= 1  # and a flipped body byte, so the crc fails either way
    poke(dev, names[-1], 0, bytes(data))
    if outcome == "torn":
        engine, _ = small_engine(dev, buffer_pool_bytes=256 * 4096)  # the last group is dropped as torn
        assert len(contents(engine)["t"]) < len(want["t"])
    else:
        with pytest.raises(CorruptionError, match="not a torn write"):
            small_engine(dev, buffer_pool_bytes=256 * 4096)


def test_a_redo_file_starting_at_the_same_lsn_as_the_one_before_it_is_refused():
    # the file before holds no group: a file is never started while the one before is empty, so equal start LSNs
    # mean a copied or misplaced file; one LSN more is refused too (it is not where the chain goes on)
    import struct

    from minidb.btree.redo_log import FILE_HEADER, FILE_MAGIC, VERSION, file_name
    from minidb.crc import crc32

    engine, dev = small_engine()
    engine.write(batch(0))
    (only,) = engine.redo.file_names()
    start = struct.unpack_from("<Q", read(dev, only), 12)[0]
    dev.crash()
    for delta, message in ((0, "not after"), (1, "holds 0 bytes of groups")):
        data = read(dev, only)
        empty = FILE_HEADER.pack(FILE_MAGIC, VERSION, start)
        empty = (empty + crc32(empty).to_bytes(4, "little")).ljust(FILE_HEADER_SIZE, b"\0")
        renamed = FILE_HEADER.pack(FILE_MAGIC, VERSION, start + delta)
        renamed = renamed + crc32(renamed).to_bytes(4, "little") + data[FILE_HEADER.size + 4:]
        copy = SimDevice()
        for name in dev.list():
            body = {only: empty}.get(name, read(dev, name))
            poke_new(copy, name, body)
        poke_new(copy, file_name(int(only[5:-4]) + 1), renamed)
        with pytest.raises(CorruptionError, match=message):
            small_engine(copy)


def poke_new(dev, name, data):
    f = dev.open(name, kind="wal", create=True)
    f.write(0, data)
    f.sync()
    f.close()


def replace(dev, name, data):
    """Replace file ``name`` (if any) by one holding ``data``, durably."""
    if dev.exists(name):
        dev.delete(name)
    poke_new(dev, name, data)
