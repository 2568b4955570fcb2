"""Salvage: the readable data of a damaged database, for ``minidb repair`` (RocksDB's RepairDB, InnoDB's forced
recovery in spirit: keep what can be read, say what could not).

First the engine itself is opened on the in-memory copy (see ``load``): if it recovers, every keyspace is read
back whole and nothing is lost. If it raises ``CorruptionError``, the files are read one by one instead:

* LSM: every readable data block of every SST and every intact WAL record; the newest version of each key wins
  (by sequence number), tombstones included; keyspace names come from whatever MANIFEST edits are readable. An SST
  that readable edits deleted (and did not add back, as a trivial move does) is left out: a scan or a crash may
  have left it on the device, and a compaction already carried its keys to newer files. The bottommost level
  stores sequence number 0 (``FORMAT.md``), so at equal numbers the newer (higher-numbered) file wins.
* B+tree: every leaf page of the tablespace that passes its checks and holds committed changes only; where two
  leaves hold a key, the page with the higher LSN wins; names come from the catalog's leaves. A page may reach the
  tablespace before its batch commits (its undo is in the redo log, which the engine could not replay), so a page
  whose LSN is past the last commit the redo log shows (``redo_log.last_commit``) is left out, and said to be;
  without a readable checkpoint or redo log nothing tells committed from uncommitted, and the salvage refuses.
  The redo log after the last page writes is not applied, so changes made since then are lost, and said to be.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import engines
from ..btree import page as pg
from ..btree.catalog import ENTRY, FLAG_UNIQUE
from ..btree.database_files import page_size_of
from ..btree.fsp import CATALOG_INDEX_ID, CHANGE_BUFFER_INDEX_ID
from ..btree.redo_log import last_commit
from ..btree.tablespace import Tablespace
from ..errors import CorruptionError
from ..lsm.block_cache import BlockCache
from ..lsm.format import decode_handle_bytes
from ..lsm.log_reader import Drop, scan
from ..lsm.memtable import MemTable
from ..lsm.table_outputs import sst_name
from ..lsm.table_reader import TableReader
from ..lsm.version_edit import VersionEdit
from ..lsm.wal import is_batch
from ..lsm.write_batch import apply_batch

MAX_COLUMN_FAMILIES = 256  # memtables made for WAL records of unknown families


@dataclass
class Salvaged:
    """What could be read back."""

    data: dict[str, dict[bytes, bytes]] = field(default_factory=dict)  # keyspace -> key -> value
    unique: dict[str, bool] = field(default_factory=dict)  # keyspace -> unique index?
    complete: bool = False  # the engine opened: everything acknowledged is here
    lost: list[str] = field(default_factory=list)  # what could not be read, one line each


def open_like(engine: str, dev, pages_of):
    """Open the ``engine`` database on ``dev`` with the options the database on ``pages_of`` was made with (the
    damaged original, when ``dev`` is the new database a repair writes): the registry's ``reopen_options``."""
    spec = engines.get(engine)
    return spec.open(dev, **spec.reopen_options(pages_of))


def salvage(dev, engine: str) -> Salvaged:
    """The readable data of the ``engine`` (a registered name) database on ``dev`` (an in-memory copy)."""
    out = Salvaged()
    try:
        db = open_like(engine, dev, dev)
    except CorruptionError as exc:
        out.lost.append(f"the engine cannot open the database: {exc}")
    else:
        try:
            for ks in db.keyspaces():
                out.data[ks] = dict(db.scan(ks))
                out.unique[ks] = db.is_unique(ks)
            out.complete = True
            return out
        except CorruptionError as exc:
            out.lost.append(f"a read failed after the database opened: {exc}")
            out.data.clear()
    engines.get(engine).salvage_files(dev, out)
    return out


# -- LSM ----------------------------------------------------------------------------------------------------------

def salvage_lsm(dev, out: Salvaged) -> None:
    """Add to ``out`` what every readable SST block and WAL record on ``dev`` holds, a key's newest version
    winning."""
    names = {}  # keyspace id (4 bytes) -> (name, unique)
    live: dict[int, bool] = {}  # SST number -> in the tree after the last readable edit that names it
    for name in sorted(n for n in dev.list() if n.startswith("MANIFEST-")):
        for event in scan(_read(dev, name, "manifest")):
            if isinstance(event, Drop):
                continue
            try:
                edit = VersionEdit.decode(event.payload, name)
            except CorruptionError:
                continue
            for ks_id, ks, _, unique in edit.keyspaces:
                names[ks_id.to_bytes(4, "big")] = (ks, unique)
            # A trivial move deletes a file from one level and adds it to the next in the same edit: deletions
            # first, as a Version applies them, so the file stays live.
            live.update((number, False) for _, _, number in edit.deleted_files)
            live.update((f.number, True) for _, _, f in edit.new_files)
    newest: dict[bytes, tuple[int, int, bytes]] = {}  # user key -> (sequence, type, value)

    def take(entries):
        for ikey, value in entries:
            trailer = int.from_bytes(ikey[-8:], "big")
            user, seq = ikey[:-8], trailer >> 8
            if user not in newest or newest[user][0] <= seq:  # later sources are newer at equal numbers
                newest[user] = (seq, trailer & 0xFF, value)

    dead = {sst_name(number) for number, alive in live.items() if not alive}
    for name in sorted(n for n in dev.list() if n.endswith(".sst")):  # in file number order: a later file is newer
        if name not in dead:
            take(_sst_entries(dev, name, out))
    memtables = [MemTable() for _ in range(MAX_COLUMN_FAMILIES)]
    for name in sorted(n for n in dev.list() if n.endswith(".log")):
        for event in scan(_read(dev, name, "wal")):
            if isinstance(event, Drop):
                out.lost.append(f"{name} offset {event.offset}: {event.reason} (the record there is lost)")
                continue
            if not is_batch(event.payload):
                continue  # the WAL's header or a mark: no rows
            try:
                apply_batch(event.payload, memtables)
            except CorruptionError as exc:
                out.lost.append(f"{name} offset {event.start}: {exc}")
    for mem in memtables:
        if mem.entries:
            take(mem.iterator().entries())
    for user, (_, vtype, value) in sorted(newest.items()):
        ks, unique = names.get(user[:4], (f"keyspace-{int.from_bytes(user[:4], 'big')}", True))
        out.unique[ks] = unique
        if vtype == 1:
            out.data.setdefault(ks, {})[user[4:]] = value


def _read(dev, name: str, kind: str) -> bytes:
    f = dev.open(name, kind)
    try:
        return f.read(0, f.size)
    finally:
        f.close()


def _sst_entries(dev, name: str, out: Salvaged) -> list:
    f = dev.open(name, "sst")
    size = f.size
    f.close()
    entries = []
    try:
        reader = TableReader(dev, name, int(name[:-4]), size, cache=BlockCache(1 << 20), policy=None,
                             cache_meta=False)
        index = reader.index_block().iterator().entries()
    except CorruptionError as exc:
        out.lost.append(f"{name}: unreadable ({exc})")
        return entries
    for i, (_, handle) in enumerate(index):
        try:
            offset, stored, _ = decode_handle_bytes(handle, f"{name} index entry {i}")
            entries += reader.data_block(offset, stored).iterator().entries()
        except CorruptionError as exc:
            out.lost.append(f"{name}: data block {i} lost ({exc}); its keys may come back with older values")
    return entries


# -- B+tree -------------------------------------------------------------------------------------------------------

def salvage_btree(dev, out: Salvaged) -> None:
    """Add to ``out`` every key of the B+tree leaves on ``dev`` that pass their checks and hold committed changes
    only, the higher page LSN winning; CorruptionError if nothing can be salvaged (no tablespace) or nothing tells
    committed changes from others (see the module docstring)."""
    page_size = page_size_of(dev)
    ts = Tablespace(dev, page_size)
    committed = last_commit(dev)
    if committed is None:
        raise CorruptionError("neither redo-checkpoint nor any redo file can be read: nothing tells the pages that "
                              "hold only committed changes from those an unfinished batch changed")
    best: dict[int, dict[bytes, tuple[int, bytes]]] = {}  # index id -> key -> (page LSN, value)
    uncommitted = 0  # leaves left out: changed after the last commit
    for page_no in range(ts.size // ts.block):
        raw = ts.read_raw(page_no)
        if pg.is_zero(raw):
            continue
        try:
            ts.check(page_no, raw)
        except CorruptionError as exc:
            out.lost.append(f"{exc} (its records are lost)")
            continue
        page = pg.Page(ts.page_of(raw))
        if page.type != pg.INDEX_PAGE or not page.is_leaf:
            continue
        if page.lsn > committed:
            uncommitted += 1
            continue
        keys = best.setdefault(page.index_id, {})
        for key, value in page.records():
            if key not in keys or keys[key][0] < page.lsn:
                keys[key] = (page.lsn, value)
    names = {}
    for key, (_, value) in best.get(CATALOG_INDEX_ID, {}).items():
        index_id, _, flags = ENTRY.unpack(value)
        names[index_id] = (key.decode(errors="replace"), bool(flags & FLAG_UNIQUE))
    if best.get(CHANGE_BUFFER_INDEX_ID):
        out.lost.append(f"{len(best[CHANGE_BUFFER_INDEX_ID])} change buffer entries not merged (secondary index "
                        f"changes not yet in their leaves)")
    for index_id, keys in sorted(best.items()):
        if index_id in (CATALOG_INDEX_ID, CHANGE_BUFFER_INDEX_ID):
            continue
        ks, unique = names.get(index_id, (f"index-{index_id}", True))
        out.data[ks] = {k: v for k, (_, v) in sorted(keys.items())}
        out.unique[ks] = unique
    if uncommitted:
        out.lost.append(f"{uncommitted} leaf pages changed after the last commit the redo log shows (LSN "
                        f"{committed}): left out, as they may hold changes of a batch that never committed")
    out.lost.append("the redo log was not replayed: changes made after the last page writes are lost")
