"""The engine registry: everything that depends on an engine's *name* (``"btree"``, ``"lsm"``) lives here.

A workload, a command or an experiment names an engine; this module turns the name into what it needs:

* **opener**: the function that opens the engine on a device (imported only when asked for, so a runner works with
  whichever engines are installed): ``spec.open(device, **options)``;
* **sizes**: how the scale's ``EngineSizes`` become the opener's keyword arguments (``spec.size_options``), and
  which of them sets the cache (``spec.cache_option``: the buffer pool or the block cache);
* **files**: how to recognise a database the engine wrote from a device's file listing (``spec.recognises``);
* **presets**: named groups of options that mean the same thing on both engines (``spec.preset("no-sync")``),
  and the engine's optional features, named by the option that sets them (``spec.supports("change_buffer")``;
  ``"memtable_bytes"``: writes wait in a memtable that a flush writes out; ``"bits_per_key"``: a get probes files
  behind bloom filters; ``"wal_recovery_mode"``: how an open meets a damaged log is an option; ``"listeners"``:
  listeners hear of every background job installed);
* **repair**: the functions that check every file of a database and salvage what is readable (``minidb verify``,
  ``minidb repair``: ``spec.verify_files(device)``, ``spec.salvage_files(device, out)``), and the options a
  database copied from a device reopens with (``spec.reopen_options(device)``: the B+tree's page size and key
  block size);
* **book**: the other names that stand for each engine (InnoDB, MyRocks; ``kind_of``) and its colours in charts;
* **report**: the sections ``minidb stats`` adds for the engine (the LSM's compaction stats tables);
* **size**: the bytes that hold the data, not the logs (``spec.data_bytes(engine)``): what a size comparison
  compares;
* **choices**: ``NAMES`` for the command line and the experiments, ``DEFAULT`` for the CLI.

``open_engine`` also accepts an opener callable ``opener(device, *, cache_bytes, clock, **options) -> Engine``:
anything that implements ``minidb.kv.Engine`` (a student's engine, or a test double). Such an engine is sized as
``OPENER_SIZED_AS`` is. Adding an engine means adding an ``EngineSpec`` to ``REGISTRY``, and nothing else.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .kv import Engine


@dataclass(frozen=True)
class EngineSizes:
    """The sizes an engine is opened with (``minidb.scales.engine_sizes`` derives them from a scale)."""

    cache_bytes: int  # buffer pool (B+tree) or block cache (LSM)
    memtable_bytes: int  # LSM write buffer
    level_base_bytes: int  # LSM target size of level 1
    target_file_bytes: int  # LSM target SST file size
    page_size: int  # B+tree page size
    redo_log_bytes: int | None = None  # B+tree redo log capacity (None: the engine's default)


@dataclass(frozen=True)
class EngineSpec:
    """One engine as the registry knows it; see the module docstring."""

    name: str  # the name workloads, commands and results use
    title: str  # what it stands for, for help texts: its short name, then what it is like in parentheses
    module: str  # the module holding its opener
    function: str  # the opener's name in that module: opener(device, **options) -> Engine
    cache_option: str  # the opener's keyword for the cache size
    page_option: str  # the opener's keyword for the page (B+tree) or block (LSM) size
    size_options: Callable[[EngineSizes], dict]  # the scale's sizes as the opener's keyword arguments
    marker_files: tuple[str, ...]  # a device holding one of these files holds this engine's database
    # Any file the engine writes (a regular expression): a device holding one holds this engine's files, a whole
    # database or one that lost its marker (which an open then reports as such, never mistaking it for none).
    file_pattern: str | None = None
    presets: dict[str, dict] = field(default_factory=dict)  # preset name -> options
    features: frozenset[str] = frozenset()  # optional features, named by the option that turns them on or off
    report: Callable[[Engine, str], dict] = lambda engine, unit: {}  # `minidb stats`'s engine-specific sections
    data_bytes: Callable[[Engine], int] = lambda engine: 0  # bytes holding the data, not the logs (see below)
    # Bytes of its cache it has not taken yet: RAM the OS's page cache may use meanwhile (storage.page_cache)
    cache_unused: Callable[[Engine], int] = lambda engine: 0
    # "module:function" checking every file of a database on a device: (device) -> [minidb.verify.FileReport]
    verifier: str | None = None
    # "module:function" reading file by file what an engine that cannot open left readable: (device, Salvaged)
    salvager: str | None = None
    # "module:function" giving the options a copy of the database on a device reopens with: (device) -> dict
    reopener: str | None = None
    sized_as: str | None = None  # the engine whose published cache fractions size it (None: its own name's)
    aliases: tuple[str, ...] = ()  # lower-case prefixes of other names for this kind of engine (InnoDB, MyRocks)
    shades: tuple[str, ...] = ("#7f7f7f",)  # the book's colours for engines of this kind, the family colour first

    @property
    def short(self) -> str:
        """Its name in a sentence: the title without its parentheses ("B+tree", "LSM")."""
        return self.title.split(" (")[0]

    def opener(self) -> Callable[..., Engine]:
        """The opener function; ValueError if its module cannot be loaded."""
        try:
            return getattr(importlib.import_module(self.module), self.function)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"engine {self.name!r} is not available: {self.module}.{self.function} cannot be "
                             f"loaded ({exc})") from exc

    def verify_files(self, device) -> list:
        """A ``minidb.verify.FileReport`` per file of the database on ``device`` (``verifier``)."""
        return _function(self, "verifier")(device)

    def salvage_files(self, device, out) -> None:
        """Add to ``out`` (a ``minidb.verify.salvage.Salvaged``) what the files on ``device`` hold readable
        (``salvager``)."""
        _function(self, "salvager")(device, out)

    def reopen_options(self, device) -> dict:
        """The options a copy of the database on ``device`` reopens with (``reopener``; none without one)."""
        return _function(self, "reopener")(device) if self.reopener is not None else {}

    def open(self, device, **options) -> Engine:
        """Open the engine on ``device`` with ``options`` (the opener's keywords)."""
        return self.opener()(device, **options)

    def cache_options(self, cache_bytes: int | None) -> dict:
        """``{cache_option: cache_bytes}``, or nothing for None (the engine's default cache)."""
        return {} if cache_bytes is None else {self.cache_option: cache_bytes}

    def recognises(self, files) -> bool:
        """Whether ``files`` (a device's listing) hold files of this engine (see ``file_pattern``)."""
        pattern = re.compile(self.file_pattern) if self.file_pattern else None
        return any(f in self.marker_files or (pattern is not None and pattern.match(f)) for f in files)

    def preset(self, name: str) -> dict:
        """The options of preset ``name`` (a new dict); ValueError naming the presets if unknown."""
        if name not in self.presets:
            raise ValueError(f"engine {self.name!r} has no preset {name!r}; presets: {', '.join(self.presets)}")
        return dict(self.presets[name])

    def supports(self, feature: str) -> bool:
        """Whether the engine has the optional feature (option) ``feature``."""
        return feature in self.features

    def supported(self, **options) -> dict:
        """The subset of ``options`` naming features this engine has (``doublewrite=`` is dropped for an LSM)."""
        return {k: v for k, v in options.items() if k in self.features}


def _function(spec: EngineSpec, field_name: str) -> Callable:
    """The function the "module:function" of ``spec``'s field ``field_name`` names; ValueError if it has none."""
    dotted = getattr(spec, field_name)
    if dotted is None:
        raise ValueError(f"engine {spec.name!r} has no {field_name}")
    module, function = dotted.split(":")
    return getattr(importlib.import_module(module), function)


def _compaction_stats(engine, unit: str) -> dict:
    """RocksDB's "Compaction Stats" of every column family, as records and as RocksDB prints them."""
    return {
        "compaction_stats": {cf: engine.compaction_stats(cf, unit=unit).to_dict("records")
                             for cf in engine.column_families()},
        "compaction_stats_text": {cf: engine.compaction_stats_text(cf, unit=unit) for cf in engine.column_families()},
    }


def _btree_data_bytes(engine) -> int:
    """The B+tree's tablespace file, free pages included, as ``du`` sees InnoDB's (also after ``close``)."""
    from .btree.tablespace import FILE

    return engine.device.size(FILE)


def _lsm_data_bytes(engine) -> int:
    """The LSM's sorted files (what is still in its memtables is in the WAL, whose size the memtable bounds); also
    after ``close``."""
    return engine.stats()["sst_bytes"]


def _lsm_cache_unused(engine) -> int:
    """What the LSM's block cache has not taken: RocksDB's takes memory only as blocks enter it."""
    return engine.cache.capacity - engine.cache.usage


REGISTRY: dict[str, EngineSpec] = {
    "btree": EngineSpec(
        name="btree", title="B+tree (InnoDB-like)", module="minidb.btree", function="open_btree",
        cache_option="buffer_pool_bytes", page_option="page_size",
        size_options=lambda s: {"buffer_pool_bytes": s.cache_bytes, "page_size": s.page_size,
                                **({} if s.redo_log_bytes is None else {"redo_log_bytes": s.redo_log_bytes})},
        marker_files=("tablespace.ibd",),  # btree.tablespace.FILE
        # the tablespace, the doublewrite file, redo files and the checkpoint (btree/FORMAT.md)
        file_pattern=r"^(tablespace\.ibd|doublewrite\.dblwr|redo-.+)$",
        # seed 000: "sync on commit was disabled for the database redo log"; seed 002: the default, synced.
        presets={"no-sync": {"redo_sync": "none"}, "sync-on-commit": {"redo_sync": "commit"}},
        features=frozenset({"change_buffer", "doublewrite", "redo_log_bytes"}),
        data_bytes=_btree_data_bytes,
        verifier="minidb.verify.btree_files:verify", salvager="minidb.verify.salvage:salvage_btree",
        reopener="minidb.btree.database_files:btree_format_of",  # its page size and key block size
        aliases=("innodb", "btree", "b+tree", "b-tree"),
        shades=("#1f5fa8", "#5b8fd0", "#9cbde6", "#0b3a6f"),  # blues
    ),
    "lsm": EngineSpec(
        name="lsm", title="LSM (RocksDB/MyRocks-like)", module="minidb.lsm", function="open_lsm",
        cache_option="block_cache_bytes", page_option="block_size",
        size_options=lambda s: {"block_cache_bytes": s.cache_bytes, "memtable_bytes": s.memtable_bytes,
                                "max_bytes_for_level_base": s.level_base_bytes,
                                "target_file_size_base": s.target_file_bytes, "block_size": s.page_size},
        marker_files=("CURRENT",),  # lsm.version_set.CURRENT
        file_pattern=r"^(CURRENT|CURRENT\.tmp|MANIFEST-\d{6,}|\d{6,}\.(sst|log))$",  # lsm/FORMAT.md's names
        presets={"no-sync": {"wal_sync": "none"}, "sync-on-commit": {"wal_sync": "write"}},
        features=frozenset({"compression", "compaction", "memtable_bytes", "bits_per_key", "wal_recovery_mode",
                            "listeners"}),
        report=_compaction_stats,
        data_bytes=_lsm_data_bytes, cache_unused=_lsm_cache_unused,
        verifier="minidb.verify.lsm_files:verify", salvager="minidb.verify.salvage:salvage_lsm",
        aliases=("myrocks", "rocksdb", "lsm", "leveldb"),
        shades=("#d9591b", "#f0913f", "#f6bd85", "#8f3408"),  # oranges
    ),
}
NAMES = tuple(REGISTRY)  # the engines, B+tree first as in the book's charts
DEFAULT = "lsm"  # the command line's default engine
OPENER_SIZED_AS = "btree"  # an opener callable is sized as this engine


def get(name: str) -> EngineSpec:
    """The spec of engine ``name``; ValueError naming the engines if unknown."""
    spec = REGISTRY.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ValueError(f"unknown engine {name!r}: use one of {', '.join(REGISTRY)}")
    return spec


def sized_as(engine) -> str:
    """The engine name whose published cache fractions (``minidb.scales.Reference``) size ``engine``, a registered
    name or an opener callable."""
    spec = REGISTRY.get(engine) if isinstance(engine, str) else None
    if spec is None:
        return OPENER_SIZED_AS
    return spec.sized_as or spec.name


def detect(files) -> str | None:
    """Which engine wrote ``files`` (a device's listing), or None for none. Any file of an engine counts, not only
    the one that makes a database: a database that lost it is then reported as such by the engine's open."""
    for spec in REGISTRY.values():
        if spec.recognises(files):
            return spec.name
    return None


def kind_of(name) -> str | None:
    """The registered engine an engine name stands for: ``InnoDB-5.7.10`` and ``btree`` are B+trees, ``MyRocks``
    and ``LSM`` LSMs (by the specs' ``aliases``); None for a name that is no engine."""
    low = str(name).strip().lower()
    for spec in REGISTRY.values():
        if low.startswith(spec.aliases):
            return spec.name
    return None


def engine_name(engine) -> str:
    """A short name for ``engine`` (a name or an opener) in results."""
    if isinstance(engine, str):
        return engine
    return getattr(engine, "__name__", type(engine).__name__)


def open_engine(engine, device, sizes: EngineSizes, *, clock, **options) -> Engine:
    """Open ``engine`` (a registered name or an opener callable) on ``device`` with ``sizes`` and ``clock``;
    options given here win over the sizes."""
    if callable(engine):
        return engine(device, cache_bytes=sizes.cache_bytes, clock=clock, **options)
    if not isinstance(engine, str) or engine not in REGISTRY:
        raise ValueError(f"unknown engine {engine!r}: use one of {', '.join(REGISTRY)} or an opener callable")
    spec = REGISTRY[engine]
    return spec.open(device, **{**spec.size_options(sizes), "clock": clock, **options})
