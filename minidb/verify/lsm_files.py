"""Verifying the files of an LSM database: CURRENT, MANIFESTs, WALs and SSTs, each read whole.

* CURRENT names a MANIFEST that exists; the MANIFEST's edits replay without error (no damage but a torn last edit,
  no file listed twice, no overlapping files in L1+), and every SST it lists exists with its listed size and
  properties.
* A WAL's records all decode; damage followed by records, or at the end but not shaped like a torn write, is
  reported (a torn tail is reported as such, and is not damage). How the WALs and the MANIFEST vouch for each
  other (wal_chain.py) is checked by the engine's recovery, which ``minidb verify`` runs too.
* An SST: footer, metaindex, properties, index and every data block (checksums and structure), keys ascending
  through the whole file, and every index entry at or above its block's last key and below the next block's first.
"""

from __future__ import annotations

from ..errors import CorruptionError
from ..lsm.block_cache import BlockCache
from ..lsm.format import decode_handle_bytes
from ..lsm.log_reader import Drop, scan
from ..lsm.table_reader import TableReader
from ..lsm.version_set import CURRENT, VersionSet, parse_manifest_name
from ..lsm.wal import is_batch
from ..lsm.write_batch import batch_header
from . import FileReport

MAX_LEVELS = 64  # a MANIFEST is read with room for any level a database may use


def internal_order(key: bytes) -> tuple[bytes, int]:
    """A sort key for internal keys: user key ascending, then (sequence, type) descending."""
    return key[:-8], -int.from_bytes(key[-8:], "big")


def verify(dev) -> list[FileReport]:
    """A report per file of the LSM database on ``dev`` (see the module docstring)."""
    reports: dict[str, FileReport] = {}
    live = {}
    vs = VersionSet(dev)
    if dev.exists(CURRENT):
        try:
            vs.recover(lambda name: MAX_LEVELS)
            live = {f.number: f for cf in vs.cfs.values() for _, f in cf.version.all_files()}
            name = f"MANIFEST-{vs.manifest_number:06d}"
            torn_note = ", its torn last edit ignored" if vs.tail_dropped else ""
            reports[CURRENT] = FileReport(CURRENT, True, f"names {name}")
            reports[name] = FileReport(name, True, f"{len(live)} live SSTs in {len(vs.cfs)} column families"
                                       f"{torn_note}")
        except CorruptionError as exc:
            reports[CURRENT] = FileReport(CURRENT, False, str(exc))
    else:
        reports[CURRENT] = FileReport(CURRENT, False, "missing: the database has no current MANIFEST")
    for number, f in sorted(live.items()):
        name = f"{number:06d}.sst"
        if not dev.exists(name):
            reports[name] = FileReport(name, False, "listed in the MANIFEST but missing")
    for name in sorted(dev.list()):
        if name in reports:
            continue
        if parse_manifest_name(name) is not None:
            reports[name] = _log(dev, name, "edits", None)
        elif name.endswith(".log"):
            reports[name] = _log(dev, name, "records", _wal_record)
        elif name.endswith(".sst") and name[:-4].isdigit():
            reports[name] = _sst(dev, name, live.get(int(name[:-4])))
        else:
            reports[name] = FileReport(name, True, "not a database file (ignored)")
    return sorted(reports.values(), key=lambda r: r.name)


def _wal_record(payload: bytes) -> None:
    """CorruptionError unless ``payload`` is a WAL header, a mark or a batch."""
    if is_batch(payload):
        batch_header(payload)


def _read(dev, name: str) -> bytes:
    f = dev.open(name, "wal" if name.endswith(".log") else "manifest")
    try:
        return f.read(0, f.size)
    finally:
        f.close()


def _log(dev, name: str, what: str, decode) -> FileReport:
    data = _read(dev, name)
    events = scan(data)
    records = [e for e in events if not isinstance(e, Drop)]
    for e in events:
        if isinstance(e, Drop):
            if not e.tail:
                return FileReport(name, False, f"offset {e.offset}: {e.reason}, before intact records")
            if e.torn:
                return FileReport(name, True, f"{len(records)} {what}, then a torn tail at offset {e.offset} "
                                  f"(a crash's unsynced write)")
            return FileReport(name, False, f"offset {e.offset}: {e.reason}, not shaped like a torn write")
        if decode is not None:
            try:
                decode(e.payload)
            except CorruptionError as exc:
                return FileReport(name, False, f"offset {e.start}: {exc}")
    return FileReport(name, True, f"{len(records)} {what}")


def _sst(dev, name: str, meta) -> FileReport:
    f = dev.open(name, "sst")
    size = f.size
    f.close()
    try:
        reader = TableReader(dev, name, int(name[:-4]), size, cache=BlockCache(1 << 20), policy=None,
                             cache_meta=False)
        if meta is not None:
            if meta.size != size:
                raise CorruptionError(f"holds {size} bytes, but the MANIFEST says {meta.size}")
            reader.check_meta(meta)
        index = reader.index_block().iterator().entries()
        entries = 0
        last = prev_sep = None
        for i, (sep, handle) in enumerate(index):
            offset, stored, _ = decode_handle_bytes(handle, f"{name} index entry {i}")
            block = reader.data_block(offset, stored).iterator().entries()
            if not block:
                raise CorruptionError(f"index entry {i} points at an empty data block (offset {offset})")
            if last is not None and internal_order(block[0][0]) <= internal_order(last):
                raise CorruptionError(f"data block at offset {offset} does not start above the block before it")
            if internal_order(block[-1][0]) > internal_order(sep):
                raise CorruptionError(f"index entry {i} is below the last key of its block at offset {offset}")
            if prev_sep is not None and internal_order(block[0][0]) <= internal_order(prev_sep):
                raise CorruptionError(f"data block at offset {offset} starts at or below index entry {i - 1}")
            entries += len(block)
            last, prev_sep = block[-1][0], sep
        if entries != reader.properties.get("num.entries"):
            raise CorruptionError(f"{entries} entries in the data blocks, {reader.properties.get('num.entries')} "
                                  f"in the properties")
        listed = "" if meta is not None else " (not listed in the MANIFEST: an orphan)"
        return FileReport(name, True, f"{entries} entries in {len(index)} data blocks{listed}")
    except CorruptionError as exc:
        return FileReport(name, False, str(exc))
