"""The FilterPolicy plug point (LevelDB's interface): a plug-in is used for real by every lookup."""

import pytest

from minidb.lsm.bloom import BloomFilterPolicy
from minidb.storage import SimDevice

from .lsm_helpers import open_tiny


class ExactSet:
    """A 'perfect' filter: the sorted keys themselves. No false positives, but big."""

    name = "test.ExactSet"

    def create_filter(self, keys):
        return b"\0".join(sorted(k.hex().encode() for k in keys))

    def key_may_match(self, key, filter):
        return key.hex().encode() in filter.split(b"\0")


class AlwaysMaybe:
    """A useless filter: never rules a table out."""

    name = "test.AlwaysMaybe"

    def create_filter(self, keys):
        return b"x"

    def key_may_match(self, key, filter):
        return True


def absent_lookups(policy):
    dev = SimDevice()
    db = open_tiny(dev, filter_policy=policy, disable_auto_compactions=True, block_cache_bytes=0)
    for f in range(4):
        for i in range(f, 2000, 4):
            db.put("t", b"%06d" % i, b"v")
        db.flush()
    for i in range(1000):
        assert db.get("t", b"%06dx" % i) is None
    return db.stats()


def test_a_plug_in_filter_decides_what_is_read():
    exact, useless, bloom = (absent_lookups(p) for p in (ExactSet(), AlwaysMaybe(), BloomFilterPolicy(10)))
    probed = exact["get_tables_probed"]  # tables whose key range holds the key: ~4 per lookup
    assert probed > 3900 and useless["get_tables_probed"] == bloom["get_tables_probed"] == probed
    assert exact["blocks_read"] == 0 and exact["bloom_useful"] == probed
    assert useless["blocks_read"] == probed and useless["bloom_useful"] == 0
    assert 0 < bloom["blocks_read"] < 0.05 * probed


def test_a_filter_of_another_name_is_never_trusted():
    dev = SimDevice()
    db = open_tiny(dev, filter_policy=ExactSet())
    for i in range(2000):
        db.put("t", b"%06d" % i, b"v")
    db.close()
    db = open_tiny(dev, filter_policy=AlwaysMaybe())  # finds filter.test.ExactSet, wants filter.test.AlwaysMaybe
    assert all(db.get("t", b"%06d" % i) == b"v" for i in range(0, 2000, 7))
    assert db.stats()["bloom_checked"] == 0  # no usable filter: the data blocks answer


def test_a_policy_must_have_the_interface():
    class NoName:
        def create_filter(self, keys):
            return b""

        def key_may_match(self, key, filter):
            return True

    with pytest.raises(ValueError, match="needs a non-empty str attribute 'name'"):
        open_tiny(filter_policy=NoName())
