"""What depends on an engine's name is the registry's (minidb/engines.py): its repair tools, the options a copied
database reopens with, and the features experiments ask about instead of the name."""

import dataclasses
import re
from pathlib import Path

import pytest

from minidb import engines
from minidb.verify.salvage import Salvaged
from minidb.storage import SimDevice

SMALL = {"btree": dict(page_size=4096, buffer_pool_bytes=16 * 4096), "lsm": dict(memtable_bytes=4 << 10)}


def database(name: str, **options) -> SimDevice:
    """A closed database of engine ``name`` (with ``options``) holding 200 keys in keyspace "pk"."""
    device = SimDevice()
    engine = engines.get(name).open(device, **{**SMALL[name], **options})
    for i in range(200):
        engine.put("pk", b"%04d" % i, b"v" * 30)
    engine.close()
    return device


@pytest.mark.parametrize("name", engines.NAMES)
def test_each_engine_verifies_and_salvages_its_own_files(name):
    device = database(name)
    reports = engines.get(name).verify_files(device)
    assert reports and all(r.ok for r in reports)
    assert {r.name for r in reports} <= set(device.list())
    out = Salvaged()
    engines.get(name).salvage_files(device, out)
    assert len(out.data["pk"]) == 200


@pytest.mark.parametrize("name, made, options", [
    ("btree", {}, {"page_size": 4096, "key_block_size": None}),
    ("btree", {"key_block_size": 2, "buffer_pool_bytes": 32 * 4096}, {"page_size": 4096, "key_block_size": 2}),
    ("lsm", {}, {})])
def test_a_copied_database_reopens_with_the_options_it_was_made_with(name, made, options):
    assert engines.get(name).reopen_options(database(name, **made)) == options


def test_an_engine_without_repair_tools_says_so():
    bare = dataclasses.replace(engines.get("lsm"), name="bare", verifier=None, salvager=None)
    with pytest.raises(ValueError, match="engine 'bare' has no verifier"):
        bare.verify_files(SimDevice())
    with pytest.raises(ValueError, match="engine 'bare' has no salvager"):
        bare.salvage_files(SimDevice(), Salvaged())


def test_features_name_what_experiments_ask_of_an_engine():
    lsm, btree = engines.get("lsm"), engines.get("btree")
    for feature in ("memtable_bytes", "bits_per_key", "wal_recovery_mode", "listeners"):
        assert lsm.supports(feature) and not btree.supports(feature)


def test_no_module_outside_the_registry_and_the_engines_opens_an_engine_by_its_opener():
    """Adding an engine touches the registry only: nothing else calls ``open_lsm``/``open_btree``."""
    package = Path(engines.__file__).parent
    allowed = {package / "engines.py", package / "__init__.py"}
    calls = re.compile(r"\bopen_(lsm|btree)\(")
    offenders = [str(path.relative_to(package)) for path in package.rglob("*.py")
                 if path not in allowed and path.parent.name not in ("lsm", "btree")
                 and calls.search(path.read_text())]
    assert offenders == []


def test_an_engines_short_name_is_its_title_before_the_parentheses():
    assert [engines.get(n).short for n in engines.NAMES] == ["B+tree", "LSM"]
