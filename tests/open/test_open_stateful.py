"""A Hypothesis state machine over the ways a database is opened: writes, clean closes, crashes, read-only opens
beside the writer, a second writer refused, a lost marker file refused. Against a dict model: no open ever loses an
acknowledged write, invents one, or changes a file it must not."""

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from minidb.errors import DatabaseLockedError, NotADatabaseError
from minidb.storage import SimDevice

from .engines import MARKER, files, open_engine

KEYS = st.sampled_from([b"k%02d" % i for i in range(12)])
VALUES = st.binary(min_size=0, max_size=300)


class Opens(RuleBasedStateMachine):
    kind = "lsm"

    @initialize()
    def create(self):
        self.dev = SimDevice()
        self.writer = open_engine(self.kind, self.dev)
        self.writer.create_keyspace("t")
        self.model = {}

    def contents(self, engine):
        return dict(engine.scan("t"))

    @precondition(lambda self: self.writer is not None)
    @rule(key=KEYS, value=VALUES)
    def put(self, key, value):
        self.writer.put("t", key, value)
        self.model[key] = value

    @precondition(lambda self: self.writer is not None)
    @rule(key=KEYS)
    def delete(self, key):
        self.writer.delete("t", key)
        self.model.pop(key, None)

    @precondition(lambda self: self.writer is not None)
    @rule()
    def close(self):
        self.writer.close()
        self.writer = None

    @rule()
    def crash(self):
        self.dev.crash()  # the process dies: its writer with it (and so its lock)
        self.writer = None

    @rule()
    def open_writer(self):
        if self.writer is not None:
            with pytest.raises(DatabaseLockedError):
                open_engine(self.kind, self.dev)
            return
        self.writer = open_engine(self.kind, self.dev)
        assert self.contents(self.writer) == self.model

    @rule()
    def open_reader(self):
        before = files(self.dev)
        reader = open_engine(self.kind, self.dev, read_only=True)
        assert self.contents(reader) == self.model  # every acknowledged write is synced: the reader sees it
        reader.close()
        assert files(self.dev) == before

    # With rows at stake. (A database holding none may be indistinguishable from a creation that crashed before its
    # marker was written, and is then legitimately created afresh: see database_files.py and lsm/recovery.py.)
    @precondition(lambda self: self.writer is None and self.model)
    @rule()
    def lose_the_marker_file(self):
        marker = MARKER[self.kind]
        saved = files(self.dev)
        self.dev.delete(marker)
        with pytest.raises(NotADatabaseError):
            open_engine(self.kind, self.dev)
        assert files(self.dev) == {n: b for n, b in saved.items() if n != marker}
        f = self.dev.open(marker, kind="manifest" if self.kind == "lsm" else "redo", create=True)
        f.append(saved[marker])  # the administrator restores it from a backup
        f.sync()
        f.close()


class LSMOpens(Opens):
    kind = "lsm"


class BTreeOpens(Opens):
    kind = "btree"


TestLSMOpens = LSMOpens.TestCase
TestBTreeOpens = BTreeOpens.TestCase
TestLSMOpens.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)
TestBTreeOpens.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)
