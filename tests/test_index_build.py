"""CREATE INDEX on both engines: the index holds every row, survives a reopen, and a failed build changes nothing
the schema shows."""

import errno

import pytest

from minidb.btree import open_btree
from minidb.errors import TableFullError
from minidb.index_build import create_index
from minidb.lsm import open_lsm
from minidb.storage import SimDevice
from minidb.schema import Schema
from minidb.table import Table

SCHEMA = Schema("t", [("id", "int"), ("k", "int"), ("c", "str")], primary_key=("id",))
OPENERS = {
    "lsm": lambda d: open_lsm(d, memtable_bytes=16 << 10, target_file_size_base=16 << 10),
    "btree": lambda d: open_btree(d, page_size=4096, buffer_pool_bytes=32 * 4096, page_cleaner=None),
}


def loaded(engine_name, n=500):
    dev = SimDevice()
    table = Table(OPENERS[engine_name](dev), SCHEMA)
    for i in range(n):
        table.insert((i, (i * 37) % 101, "c" * 40))
    return table, dev


@pytest.mark.parametrize("engine_name", OPENERS)
def test_the_index_finds_every_row_and_survives_a_reopen(engine_name):
    table, dev = loaded(engine_name)
    indexed = create_index(table, ("k", ("k",)))
    assert [r.id for r in indexed.lookup("k", 5)] == sorted(i for i in range(500) if (i * 37) % 101 == 5)
    assert sum(1 for _ in indexed.index_scan("k")) == 500
    indexed.engine.close()
    again = Table(OPENERS[engine_name](dev), indexed.schema)
    assert sum(1 for _ in again.index_scan("k")) == 500


@pytest.mark.parametrize("engine_name", OPENERS)
def test_a_build_the_disk_cannot_hold_fails_with_enospc_and_can_be_run_again(engine_name):
    table, dev = loaded(engine_name, 2000)
    dev.capacity = dev.used + 2048
    with pytest.raises(OSError) as info:
        create_index(table, ("k", ("k",)))
    assert info.value.errno == errno.ENOSPC
    if engine_name == "btree":
        assert isinstance(info.value, TableFullError)
    assert table.schema.indexes == ()
    dev.capacity = None
    indexed = create_index(table, ("k", ("k",)))
    assert sum(1 for _ in indexed.index_scan("k")) == 2000
