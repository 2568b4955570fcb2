"""``minidb stats``: an engine's statistics after a load, or of a database kept in a directory."""

import json

import pytest

from minidb import open_btree, open_lsm
from minidb.storage import DirDevice

from .conftest import assert_usage_error


def test_lsm_text_ends_with_the_compaction_stats_table(cli):
    code, out, err = cli("stats", "--engine", "lsm", "--rows", "2e4", "--scale", "tiny")
    assert code == 0, err
    assert out.startswith("** lsm after loading 20,000 insert-benchmark rows")
    table = out[out.index("** Compaction Stats [default] **"):]
    header = table.splitlines()[1].split()
    assert header[:4] == ["Level", "Files", "Size", "Score"] and "W-Amp" in header and "KeyDrop" in header
    assert any(line.split()[0] == "Sum" for line in table.splitlines()[3:])
    assert "Device IO by file kind and cause" in out


def test_lsm_json_counts_what_was_loaded(cli):
    code, out, _ = cli("stats", "--engine", "lsm", "--rows", "5000", "--json")
    report = json.loads(out)
    assert code == 0 and report["engine"] == "lsm"
    assert report["stats"]["puts"] == 4 * 5000  # a primary and three secondary index entries per row
    levels = report["compaction_stats"]["default"]
    assert levels[-1]["Level"] == "Sum"
    assert sum(level["Files"] for level in levels[:-1]) == report["stats"]["sst_files"]
    assert {"kind", "cause", "writes", "write_bytes"} <= set(report["io"][0])


def test_btree_json_shows_each_tree(cli):
    code, out, _ = cli("stats", "--engine", "btree", "--rows", "3000", "--json", "--cache", "8MiB")
    report = json.loads(out)
    assert code == 0 and report["engine"] == "btree"
    trees = report["stats"]["keyspaces"]
    assert len(trees) == 4  # primary + 3 secondary indexes
    assert all(t["records"] == 3000 and t["height"] >= 1 for t in trees.values())
    assert report["stats"]["buffer_pool"]["frames"] == 8 * 1024**2 // 16384


def test_btree_text_has_a_tree_table(cli):
    code, out, _ = cli("stats", "--engine", "btree", "--rows", "2000")
    assert code == 0
    assert "Trees" in out and "leaf_fill_mean" in out and "buffer_pool.hits" in out
    assert "purchases_index.primary" in out


@pytest.mark.parametrize("engine, opener", [("lsm", open_lsm), ("btree", open_btree)])
def test_dir_opens_the_database_there_and_recognises_its_engine(cli, tmp_path, engine, opener):
    device = DirDevice(tmp_path)
    db = opener(device)
    db.create_keyspace("ks")
    for i in range(300):
        db.put("ks", i.to_bytes(4, "big"), b"x" * 50)
    db.flush()
    db.close()
    device.close()
    code, out, err = cli("stats", "--dir", tmp_path, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["engine"] == engine
    if engine == "lsm":
        assert report["stats"]["sst_files"] >= 1
    else:
        assert report["stats"]["keyspaces"]["ks"]["records"] == 300
    code, out, _ = cli("stats", "--dir", tmp_path)
    assert code == 0 and out.startswith(f"** {engine} database in {tmp_path}")


def test_dir_without_a_database_is_an_error(cli, tmp_path):
    assert_usage_error(cli("stats", "--dir", tmp_path), "no minidb database there", str(tmp_path))
    assert_usage_error(cli("stats", "--dir", tmp_path / "missing"), "no such directory")


@pytest.mark.parametrize("argv, fragment", [
    (["stats", "--rows", "1e"], "bad count"),
    (["stats", "--rows", "0"], "argument --rows: bad count '0': must be between 1 and"),
    (["stats", "--unit", "PB"], "invalid choice: 'PB'"),
    (["stats", "--cache", "lots"], "bad size 'lots'"),
])
def test_bad_arguments_exit_2_with_one_line(cli, argv, fragment):
    assert_usage_error(cli(*argv), fragment)


def test_help(cli):
    code, out, _ = cli("stats", "--help")
    assert code == 0 and "--dir DIR" in out
