"""B+tree redo groups forged with their checksum recomputed: replay checks what each group does (its pages, the
pages it leaves, COMMIT repeated in its header), so a forgery is CorruptionError naming the file, never a hang
(every open runs in a child with a time limit) and never a silent rollback of an acknowledged batch."""

import struct

import pytest

from minidb.btree.redo_log import GROUP
from minidb.crc import crc32

from damage.btree_damage import craft, crashed_with_groups, groups, refused
from damage.test_logs import read, replace


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
