"""Graded tests of exercise 02 inside the B+tree engine: a table loaded with your split policy.

The engine asks your ``choose_split`` and ``separator`` at every leaf split (and checks each answer). After the
load, every key must be found, the engine's structural check (``engine.check()``: key order, separators, levels,
links, page accounting) must pass, and the leaves must be as full as the insert pattern allows: about the fill
factor for a load in key order, about ln 2 ~ 0.69 for a load in random order (Yao, "On random 2-3 trees", 1978).
"""

from __future__ import annotations

import math
import random

import pytest

from minidb.storage import SimDevice

btree = pytest.importorskip("minidb.btree")
if not hasattr(btree, "open_btree"):
    pytest.skip("the B+tree engine (minidb.btree.open_btree) is not built yet", allow_module_level=True)

KEYSPACE = "primary"
PAGE_SIZE = 4096
ROWS = 20000  # about 400 leaves of 4 KiB: enough for the mean fill to settle within a percent
FILL_TOLERANCE = 0.03  # a load in key order fills leaves to the fill factor, give or take this
RANDOM_FILL = (0.62, 0.78)  # random loads: ln 2 ~ 0.69 on average, give or take the spread of a finite load


def load(policy, keys: list[bytes], value_of, fill_factor: float = 15 / 16) -> dict:
    """Put ``keys`` in this order with ``policy``; check every key and the tree; return the keyspace's stats."""
    engine = btree.open_btree(SimDevice(), page_size=PAGE_SIZE, buffer_pool_bytes=4 << 20,
                              fill_factor=fill_factor, split_policy=policy)
    try:
        for key in keys:
            engine.put(KEYSPACE, key, value_of(key))
        lost = [key for key in keys if engine.get(KEYSPACE, key) != value_of(key)]
        assert not lost, f"{len(lost)} of {len(keys)} keys are not found after the load, e.g. {lost[0]!r}"
        engine.check()
        scanned = [key for key, _ in engine.scan(KEYSPACE)]
        assert scanned == sorted(keys), "a scan does not return every key once, in order"
        return engine.stats()["keyspaces"][KEYSPACE]
    finally:
        engine.close()


@pytest.mark.points(3)
@pytest.mark.parametrize("fill_factor", [15 / 16, 0.75])
def test_key_order_load_fills_to_the_fill_factor(leaf_split, fill_factor):
    """Rows inserted in key order (a PK-order load) leave the leaves filled to the fill factor."""
    keys = [b"k%08d" % i for i in range(ROWS)]
    stats = load(leaf_split.SplitPolicy(), keys, lambda key: b"v" * 60, fill_factor)
    fill = stats["leaf_fill_mean"]
    assert abs(fill - fill_factor) <= FILL_TOLERANCE, (
        f"mean leaf fill {fill:.3f} after a load in key order with fill_factor={fill_factor:.4f} "
        f"({stats['leaf_pages']} leaves)"
    )


@pytest.mark.points(4)
def test_random_load_fills_leaves_to_ln2(leaf_split):
    """Rows of varied sizes inserted in random order leave the leaves about ln 2 full."""
    rng = random.Random(7)
    keys = [b"user#%010d" % rng.randrange(10**10) for _ in range(ROWS)]
    keys = list(dict.fromkeys(keys))  # distinct keys, in random order
    sizes = {key: rng.randrange(10, 200) for key in keys}
    stats = load(leaf_split.SplitPolicy(), keys, lambda key: b"x" * sizes[key])
    fill = stats["leaf_fill_mean"]
    assert RANDOM_FILL[0] <= fill <= RANDOM_FILL[1], (
        f"mean leaf fill {fill:.3f} after a random load ({stats['leaf_pages']} leaves); "
        f"splitting the bytes in half gives about ln 2 = {math.log(2):.3f}"
    )
