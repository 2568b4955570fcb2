"""An index's MyRocks comment (``COMMENT 'cfname=...'``) places it in a column family of the LSM; the B+tree ignores
it. Parsing, placement, persistence across a reopen, and every error a user can meet."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.btree import open_btree
from minidb.lsm import open_lsm
from minidb.schema import Index, Schema, cf_name
from minidb.storage import SimDevice
from minidb.table import Table

FAMILIES = {"cf1": {"compression": "none"}, "cf2": {"compression": "lz4"}}


def schema(pk_comment="cfname=cf1", index_comment="COMMENT 'cfname=cf2'"):
    return Schema("t", [("id", "int"), ("k", "int")], "id", [("k_1", ("k",), False, index_comment)],
                  primary_comment=pk_comment)


def family_of(db, keyspace):
    return db.cfs[db.keyspace_map.entries[keyspace][0]].name


@pytest.mark.parametrize("comment, expected", [
    ("cfname=cf1", "cf1"),
    ("COMMENT 'cfname=cf1'", "cf1"),
    ("  comment 'cfname = cf_2 '  ", "cf_2"),
    ("some text;cfname=cf1;other=1", "cf1"),
    ("", None),
    ("just a note about the index", None),
])
def test_comment_forms(comment, expected):
    assert cf_name(comment) == expected


@given(st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True))
def test_any_family_name_reads_back_from_both_forms(name):
    assert cf_name(f"cfname={name}") == name
    assert cf_name(f"COMMENT 'cfname={name}'") == name


@pytest.mark.parametrize("comment, message", [
    ("cfname=", "column family name ''"),
    ("cfname=rev:cf1", "'rev:' families"),
    ("cfname=a;cfname=b", "cfname is given twice"),
])
def test_bad_comment_names_the_index(comment, message):
    with pytest.raises(ValueError, match=message) as err:
        Schema("t", [("id", "int"), ("k", "int")], "id", [Index("k_1", ("k",), comment=comment)])
    assert "index 'k_1'" in str(err.value)


def test_bad_primary_comment_names_the_primary_key():
    with pytest.raises(ValueError, match="primary key"):
        schema(pk_comment=42)


def test_schema_reports_each_index_family():
    s = schema()
    assert s.column_family() == "cf1"
    assert s.column_family("k_1") == "cf2"
    assert schema(pk_comment="").column_family() is None


def test_lsm_places_each_index_in_its_family_and_keeps_it_after_reopen():
    dev = SimDevice()
    db = open_lsm(dev, column_families=FAMILIES)
    table = Table(db, schema())
    for i in range(200):
        table.insert((i, i % 7))
    assert family_of(db, "t.primary") == "cf1"
    assert family_of(db, "t.k_1") == "cf2"
    db.close()
    db = open_lsm(dev, column_families=FAMILIES)
    table = Table(db, schema())
    assert family_of(db, "t.k_1") == "cf2"
    assert table.get(5) == (5, 5)
    assert len(table.lookup("k_1", (3,))) == len([i for i in range(200) if i % 7 == 3])
    assert db.column_family("cf1").version.total_bytes() > 0  # the close flushed each family's own files
    assert db.column_family("cf2").version.total_bytes() > 0
    assert db.column_family("default").version.total_bytes() == 0
    db.close()


def test_index_without_comment_goes_to_keyspace_cf_or_default():
    db = open_lsm(SimDevice(), column_families=FAMILIES, keyspace_cf={"t.k_1": "cf2"})
    Table(db, schema(pk_comment="", index_comment=""))
    assert family_of(db, "t.primary") == "default"
    assert family_of(db, "t.k_1") == "cf2"
    db.close()


def test_unknown_family_is_an_error_naming_the_option():
    db = open_lsm(SimDevice(), column_families={"cf1": {}})
    with pytest.raises(ValueError, match="column family 'cf2'.*column_families option"):
        Table(db, schema())
    db.close()


def test_comment_disagreeing_with_keyspace_cf_is_an_error():
    db = open_lsm(SimDevice(), column_families=FAMILIES, keyspace_cf={"t.primary": "cf2"})
    with pytest.raises(ValueError, match="keyspace_cf option maps it to 'cf2'"):
        Table(db, schema())
    db.close()


def test_existing_keyspace_in_another_family_is_an_error():
    db = open_lsm(SimDevice(), column_families=FAMILIES)
    db.create_keyspace("t.primary", column_family="cf1")
    db.create_keyspace("t.primary", column_family="cf1")  # same family: nothing to do
    with pytest.raises(ValueError, match="exists in column family 'cf1'"):
        db.create_keyspace("t.primary", column_family="cf2")
    db.close()


def test_btree_ignores_the_comment():
    db = open_btree(SimDevice(), buffer_pool_bytes=64 * 16384)
    table = Table(db, schema())
    table.insert((1, 2))
    assert db.keyspaces() == ["t.k_1", "t.primary"]
    assert table.lookup("k_1", (2,)) == [(1, 2)]
    db.close()
