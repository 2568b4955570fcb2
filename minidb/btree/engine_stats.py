"""What ``BTreeEngine.stats()`` reports: the engine's counters, its pool, space, change buffer, page cleaner, redo
log and compression figures, its page IO per keyspace, and (on request) each tree's shape from a walk (verify.py).

The figures are read from the engine's parts, never changed; a tree walk reads the pages not in the pool (counted in
IOStats like any read), so take it between measured phases.
"""

from __future__ import annotations

from . import fsp
from .verify import PageReader, walk_tree


def engine_stats(engine, trees: bool = True) -> dict:
    """The stats of ``engine`` (a BTreeEngine); with ``trees``, each keyspace's height, pages, records and leaf fill."""
    io = engine.device.stats - engine.io_at_open
    read = PageReader(engine.pool, engine.tablespace, engine.device.stats)
    head = read(fsp.FSP_PAGE, "__fsp").buf
    pages, free_pages = fsp.read_u32(head, fsp.OFF_PAGE_COUNT), fsp.read_u32(head, fsp.OFF_FREE_COUNT)
    out = {
        "page_size": engine.page_size,
        **engine.counters,
        "key_compares": engine.key_compares(),
        "buffer_pool": engine.pool.counters(),
        "space": {"tablespace_bytes": engine.tablespace.size, "pages": pages, "free_pages": free_pages,
                  "used_pages": pages - free_pages},
        "change_buffer": {"enabled": engine.options.change_buffer, **engine.change_buffer.stats()},
        "page_cleaner": engine.cleaner.stats() if engine.cleaner is not None else None,
        "redo": {"lsn": engine.redo.lsn, "checkpoint_lsn": engine.redo.checkpoint_lsn, "age": engine.redo.age,
                 "modified_age": engine.free_check.modified_age(), "capacity": engine.redo.capacity,
                 "files": engine.redo.file_names(), "groups": engine.redo.groups},
        "doublewrite": engine.doublewrite is not None,
        "compression": compression_stats(engine),
        "recovery": dict(engine.recovery),
        "io": io_by_tag(io),
        "keyspaces": {},
    }
    for name in engine.keyspaces():
        tree = engine.trees[name]
        entry = {"unique": tree.unique, **out["io"].get(name, {"page_reads": {}, "page_writes": {}})}
        if trees:
            r = walk_tree(name, tree.index_id, tree.root, read)
            entry.update(height=r.height, leaf_pages=r.leaf_pages, internal_pages=r.internal_pages,
                         records=r.records, leaf_fill=r.leaf_fill,
                         leaf_fill_mean=sum(r.leaf_fill) / len(r.leaf_fill))
        out["keyspaces"][name] = entry
    return out


def compression_stats(engine) -> dict:
    """The key block size, INNODB_CMP's counters, and the pool memory each copy of the cached pages takes
    (compressed copies kept after their frame left, pager.py, included)."""
    frames, kept = len(engine.pool), len(engine.pager.zip_only)
    block = engine.options.block or 0
    return {"key_block_size": engine.options.key_block_size, **engine.zip_stats.as_dict(),
            "pool_pages": engine.pool.capacity,
            "pool_uncompressed_bytes": frames * engine.page_size, "pool_compressed_bytes": (frames + kept) * block,
            "pool_compressed_only_pages": kept, "compressed_only_hits": engine.pager.zip_only_hits}


def io_by_tag(io) -> dict:
    """{tag: {"page_reads": {cause: n}, "page_writes": {cause: n}, "doublewrite_writes": {cause: n}}} of data pages."""
    out: dict = {}
    for kind, cause, tag in io.labels():
        if kind not in ("data", "doublewrite"):
            continue
        counts = io.total(kind=kind, cause=cause, tag=tag)
        entry = out.setdefault(tag, {"page_reads": {}, "page_writes": {}})
        if kind == "data":
            if counts.reads:
                entry["page_reads"][cause] = entry["page_reads"].get(cause, 0) + counts.reads
            if counts.writes:
                entry["page_writes"][cause] = entry["page_writes"].get(cause, 0) + counts.writes
        elif counts.write_bytes:
            dbl = entry.setdefault("doublewrite_bytes", {})
            dbl[cause] = dbl.get(cause, 0) + counts.write_bytes
    return out
