"""Property: a SimDevice and a DirDevice given the same operations hold the same bytes and count the same IO."""

import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.storage import DirDevice, SimDevice

NAMES = ["a.sst", "b.log", "c.ibd"]
KINDS = {"a.sst": "sst", "b.log": "wal", "c.ibd": "data"}

ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.sampled_from(NAMES), st.binary(max_size=300)),
        st.tuples(st.just("write"), st.sampled_from(NAMES), st.integers(0, 600), st.binary(max_size=300)),
        st.tuples(st.just("read"), st.sampled_from(NAMES), st.integers(0, 600), st.integers(0, 200)),
        st.tuples(st.just("sync"), st.sampled_from(NAMES)),
        st.tuples(st.just("truncate"), st.sampled_from(NAMES), st.integers(0, 600)),
        st.tuples(st.just("rename"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
        st.tuples(st.just("delete"), st.sampled_from(NAMES)),
        st.tuples(st.just("fail"), st.integers(1, 3)),
    ),
    max_size=40,
)


def apply(dev, op):
    """Run one operation; return what it returned or the type and errno of what it raised."""
    try:
        kind, name = op[0], op[1]
        if kind == "fail":
            dev.fail_io(op[1])
            return None
        if kind in ("rename", "delete"):
            return dev.rename(name, op[2]) if kind == "rename" else dev.delete(name)
        f = dev.open(name, KINDS[name], create=True)
        if kind == "append":
            return f.append(op[2])
        if kind == "write":
            return f.write(op[2], op[3])
        if kind == "read":
            return f.read(op[2], op[3])
        if kind == "sync":
            return f.sync()
        return f.truncate(op[2])
    except (OSError, ValueError) as exc:
        return (type(exc).__name__, getattr(exc, "errno", None))


def contents(dev):
    return {n: dev.open(n, "other").read(0, dev.size(n)) for n in dev.list()}


@settings(max_examples=80)
@given(operations=ops, capacity=st.one_of(st.none(), st.integers(0, 1500)))
def test_same_operations_same_bytes_same_counts(operations, capacity):
    sim = SimDevice(capacity=capacity)
    with tempfile.TemporaryDirectory() as tmp:
        real = DirDevice(tmp, capacity=capacity)
        for op in operations:
            assert apply(sim, op) == apply(real, op), op
        sim.clear_faults()
        real.clear_faults()
        assert sim.list() == real.list()
        assert sim.used == real.used
        assert sim.stats == real.stats
        assert contents(sim) == contents(real)
        real.close()
