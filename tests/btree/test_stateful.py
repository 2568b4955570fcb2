"""Hypothesis drives the engine and a dict model with any sequence of puts, deletes, batches, gets, scans,
flushes, reopens, crashes and IO errors (also in the middle of a write); the two must always agree."""

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from minidb.btree import PageCleanerOptions, open_btree
from minidb.errors import DeviceCrashed
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

OPTIONS = dict(page_size=4096, buffer_pool_bytes=16 * 4096, redo_log_bytes=64 * 4096, redo_sync="commit",
               page_cleaner=PageCleanerOptions(every_commits=3, io_capacity=3, change_buffer_merge_pages=1))
KEYSPACES = ("p", "s")  # "s" is a non-unique index: its changes go through the change buffer

keyspaces = st.sampled_from(KEYSPACES)
keys = st.integers(0, 400).map(lambda i: b"%04d" % i)
values = st.one_of(st.binary(max_size=12), st.integers(0, 900).map(lambda n: bytes([n % 251]) * n))
ops = st.tuples(keyspaces, keys, st.one_of(st.none(), values))
bounds = st.one_of(st.none(), keys)


class BTreeModel(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.device = SimDevice()
        self.engine = open_btree(self.device, **OPTIONS)
        self.engine.create_keyspace("s", unique=False)
        self.engine.create_keyspace("p")
        self.model = {name: {} for name in KEYSPACES}

    def reopen(self):
        self.engine = open_btree(self.device, **OPTIONS)

    @staticmethod
    def applied(model, batch_ops):
        out = {name: dict(m) for name, m in model.items()}
        for name, key, value in batch_ops:
            if value is None:
                out[name].pop(key, None)
            else:
                out[name][key] = value
        return out

    def contents(self):
        return {name: dict(self.engine.scan(name)) for name in KEYSPACES}

    @rule(name=keyspaces, key=keys, value=values)
    def put(self, name, key, value):
        self.engine.put(name, key, value)
        self.model[name][key] = value

    @rule(name=keyspaces, key=keys)
    def delete(self, name, key):
        self.engine.delete(name, key)
        self.model[name].pop(key, None)

    @rule(batch_ops=st.lists(ops, max_size=40))  # up to 40 ops: a batch may change more pages than the pool holds
    def write(self, batch_ops):
        batch = WriteBatch()
        for name, key, value in batch_ops:
            batch.put(name, key, value) if value is not None else batch.delete(name, key)
        self.engine.write(batch)
        self.model = self.applied(self.model, batch_ops)

    @rule(name=keyspaces, key=keys)
    def get(self, name, key):
        assert self.engine.get(name, key) == self.model[name].get(key)

    @rule(name=keyspaces, lo=bounds, hi=bounds)
    def scan(self, name, lo, hi):
        expected = sorted((k, v) for k, v in self.model[name].items()
                          if (lo is None or k >= lo) and (hi is None or k < hi))
        assert list(self.engine.scan(name, lo, hi)) == expected

    @rule()
    def flush(self):
        self.engine.flush()

    @rule()
    def close_and_reopen(self):
        self.engine.close()
        self.reopen()

    @rule(torn=st.booleans())
    def crash_and_reopen(self, torn):
        self.device.crash(torn=torn, seed=len(self.model["p"]))
        self.reopen()  # with sync on commit every acknowledged write survives

    @rule(batch_ops=st.lists(ops, min_size=1, max_size=12), point=st.integers(1, 40), torn=st.booleans())
    def crash_during_write(self, batch_ops, point, torn):
        batch = WriteBatch()
        for name, key, value in batch_ops:
            batch.put(name, key, value) if value is not None else batch.delete(name, key)
        after = self.applied(self.model, batch_ops)
        self.device.crash_at_io(point, torn=torn, seed=point)
        try:
            self.engine.write(batch)
        except DeviceCrashed:
            self.reopen()
            got = self.contents()
            assert got in (self.model, after), "a crash left part of a batch"
            self.model = got
            return
        self.device.clear_faults()
        self.model = after

    @rule(batch_ops=st.lists(ops, min_size=1, max_size=40), point=st.integers(1, 30),
          kind=st.sampled_from(["read", "write", "sync"]))
    def io_error_during_write(self, batch_ops, point, kind):
        batch = WriteBatch()
        for name, key, value in batch_ops:
            batch.put(name, key, value) if value is not None else batch.delete(name, key)
        self.device.fail_io(point, (kind,))
        try:
            self.engine.write(batch)
        except OSError:
            self.device.clear_faults()
            self.engine.resume()  # a failed redo write stopped the engine, as InnoDB aborts: recover in place
            assert self.contents() == self.model, "a failed batch left a trace"
        else:
            self.model = self.applied(self.model, batch_ops)
        finally:
            self.device.clear_faults()

    @precondition(lambda self: sum(len(m) for m in self.model.values()) > 0)
    @rule()
    def check_structure(self):
        self.engine.check()

    @invariant()
    def same_contents(self):
        assert self.contents() == self.model


TestBTreeModel = BTreeModel.TestCase
