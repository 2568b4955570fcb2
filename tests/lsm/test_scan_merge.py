"""The scan's merging plug point (scan_merge.py): a plugin sees each source's entries, and its answers are checked."""

from __future__ import annotations

import pytest

from minidb.lsm import open_lsm
from minidb.storage import SimDevice


class SortingPlugin:
    """merge by sorting everything (correct, not lazy); visible keeps the first entry of each key if a put."""

    def __init__(self):
        self.sources = []

    def merge(self, children):
        self.sources.append(children)
        return sorted((e for child in children for e in child), key=lambda e: (e[0], -e[1]))

    def visible(self, entries):
        seen = set()
        for key, _, kind, value in entries:
            if key not in seen:
                seen.add(key)
                if kind == 1:
                    yield key, value


def _engine(plugin, device=None):
    engine = open_lsm(device or SimDevice(), merging_iterator=plugin, block_cache_bytes=0)
    for i in range(40):
        engine.put("primary", b"k%02d" % i, b"old")
    engine.flush()
    engine.compact_range()
    engine.put("primary", b"k05", b"l0")
    engine.flush()
    engine.delete("primary", b"k06")
    engine.put("primary", b"k07", b"mem")
    engine.put("other", b"k05", b"another keyspace")
    return engine


def test_the_plugin_gets_each_source_and_answers_as_the_engine_does():
    plugin = SortingPlugin()
    device = SimDevice()
    engine = _engine(plugin, device)
    before = device.stats.snapshot()
    got = list(engine.scan("primary", b"k04", b"k08"))
    assert (device.stats - before).total(kind="sst").reads > 0  # the sources are read through the storage layer
    assert got == [(b"k04", b"old"), (b"k05", b"l0"), (b"k07", b"mem")]
    memtable, l0, l1 = plugin.sources[-1][0], plugin.sources[-1][1], plugin.sources[-1][-1]
    assert [(e[0], e[2]) for e in memtable] == [(b"k06", 0), (b"k07", 1)]  # keys without the keyspace prefix
    assert [e[0] for e in l0] == [b"k05"] and [e[0] for e in l1] == [b"k04", b"k05", b"k06", b"k07"]
    assert list(engine.scan("primary")) == _default_scan()
    engine.close()


def _default_scan():
    engine = _engine(None)
    try:
        return list(engine.scan("primary"))
    finally:
        engine.close()


class Answers(SortingPlugin):
    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def visible(self, entries):
        return self.answer


@pytest.mark.parametrize("answer, message", [
    ([(b"k01", "text")], "yielded \\(b'k01', 'text'\\); it must yield \\(key, value\\) pairs of bytes"),
    ([(b"k02", b"x"), (b"k01", b"y")], "yielded key b'k01' after b'k02'"),
    ([(b"k01", b"x"), (b"k01", b"y")], "keys must come once each"),
    ([(b"k99", b"x")], "outside the scan's range"),
])
def test_bad_answers_are_refused(answer, message):
    engine = _engine(Answers(answer))
    with pytest.raises(ValueError, match=message):
        list(engine.scan("primary", b"k00", b"k50"))
    engine.close()


def test_bad_plugin_option():
    with pytest.raises(ValueError, match="merging_iterator=.*needs a function merge"):
        open_lsm(SimDevice(), merging_iterator=object())
