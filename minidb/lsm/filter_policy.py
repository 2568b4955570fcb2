"""FilterPolicy: the plug point for SST filters (LevelDB's include/leveldb/filter_policy.h; minidb/plug_point.py).

A filter policy is an instance of any class with what ``FilterPolicy`` declares:

* ``name`` (str): stored in every SST beside its filter (the metaindex entry is ``filter.<name>``). A reader whose
  policy has another name finds no filter and simply reads the data blocks: a filter is never misread.
* ``create_filter(keys: list[bytes]) -> bytes``: a filter for the user keys of one SST.
* ``key_may_match(key: bytes, filter: bytes) -> bool``: False only if ``key`` was surely not among the keys.

The engine's default is ``BloomFilterPolicy(bits_per_key)`` (bloom.pyx). A student's policy passed as
``filter_policy=`` is used for real: it builds the filters of every new SST and answers every point lookup, so the
engine's counts of blocks read per lookup show how good it is. Keys are the column family's user keys (keyspace
prefix + key).
"""

from __future__ import annotations

from ..plug_point import PlugPoint
from .bloom import BloomFilterPolicy


class FilterPolicy(PlugPoint, option="filter_policy"):
    """The interface of a filter policy (a plug point): ``name``, ``create_filter`` and ``key_may_match``."""

    name: str = ""  # the filter format's name, stored beside every filter it builds

    def create_filter(self, keys: list[bytes]) -> bytes:
        """A filter for the user keys of one SST."""
        raise NotImplementedError

    def key_may_match(self, key: bytes, filter: bytes) -> bool:
        """False only if ``key`` was surely not among the keys ``filter`` was made from."""
        raise NotImplementedError

    @classmethod
    def check(cls, plug, where: str = "") -> None:
        """Raise ValueError unless ``plug`` has the functions and a non-empty str ``name``."""
        name = getattr(plug, "name", None)
        if not isinstance(name, str) or not name:
            raise ValueError(f"bad option filter_policy={plug!r}{where}: a FilterPolicy needs a non-empty str "
                             f"attribute 'name'")
        super().check(plug, where)


def policy_for(filter_policy, bits_per_key: int):
    """The policy an engine uses: the plug-in if given, else the built-in bloom (None when bits_per_key is 0)."""
    if filter_policy is not None:
        return filter_policy
    return BloomFilterPolicy(bits_per_key) if bits_per_key > 0 else None
