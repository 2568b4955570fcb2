"""SQLite as a loader, through ``apsw``, with every read and write counted by a VFS shim.

SQLite stores each table ``WITHOUT ROWID`` as a B+tree clustered on its primary key, like an InnoDB index, so
each of our keyspaces becomes one such table ``(k BLOB PRIMARY KEY, v BLOB)``. ``CountingVFS`` sits between
SQLite and the operating system's VFS: every ``xRead``, ``xWrite`` and ``xSync`` passes through it and is counted
by file (``main``, ``wal``, ``journal``, ``temp``), so the figures are SQLite's real requests, page by page.

**The shape.** Page size 4, 8 or 16 KiB (``PRAGMA page_size``), a page cache of ``cache_bytes`` (``PRAGMA
cache_size``, like our buffer pool), WAL mode with ``synchronous=NORMAL`` (the WAL is synced only at checkpoints,
as our unsynced redo) and exclusive locking: with it SQLite keeps the WAL index in its own memory instead of a
shared-memory file, which a VFS shim would otherwise have to provide.

**What SQLite does that InnoDB does not, and the reverse.** SQLite's WAL logs whole pages: a commit appends every
page it changed (plus a 24-byte frame header) to the WAL, and a checkpoint copies them into the main file, so each
changed page is written twice, where InnoDB's redo logs a few bytes per change and writes the page once (twice
with its doublewrite buffer). SQLite has no change buffer: a secondary index insert reads its leaf, as our B+tree
does with the change buffer off. So the like-for-like row of ours runs with ``change_buffer=False`` and
``doublewrite=False``.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from .counts import LoadCounts

COUNTS = ("reads", "read_bytes", "writes", "write_bytes", "syncs")  # per file, in this order


def file_role(name) -> str:
    """The role of a file SQLite opens: ``main``, ``wal``, ``journal`` or ``temp`` (no name)."""
    if name is None:
        return "temp"
    text = name.filename() if hasattr(name, "filename") else str(name)
    if text.endswith("-wal"):
        return "wal"
    if text.endswith("-journal"):
        return "journal"
    return "main"


def _vfs_classes():
    """CountingVFS and its file class, built on apsw's VFS base classes (imported only when SQLite is used)."""
    import apsw

    class CountingFile(apsw.VFSFile):
        """A file of the default VFS whose reads, writes and syncs add to its VFS's counters."""

        def __init__(self, vfs, name, flags):
            self.counts = vfs.counts.setdefault(file_role(name), [0, 0, 0, 0, 0])  # this file's role's counters
            super().__init__(vfs.base, name, flags)

        def xRead(self, amount, offset):
            self.counts[0] += 1
            self.counts[1] += amount
            return super().xRead(amount, offset)

        def xWrite(self, data, offset):
            self.counts[2] += 1
            self.counts[3] += len(data)
            super().xWrite(data, offset)

        def xSync(self, flags):
            self.counts[4] += 1
            super().xSync(flags)

    class CountingVFS(apsw.VFS):
        """A VFS named ``name`` that forwards to the default VFS and counts every request by file role."""

        def __init__(self, name: str):
            self.base = ""  # the default VFS, which does the real IO
            self.counts: dict[str, list[int]] = {}  # role -> [reads, read_bytes, writes, write_bytes, syncs]
            super().__init__(name, self.base)

        def xOpen(self, name, flags):
            return CountingFile(self, name, flags)

    return CountingVFS


def CountingVFS(name: str):
    """A new counting VFS registered with SQLite under ``name`` (see the module docstring)."""
    return _vfs_classes()(name)


class SQLiteLoader:
    """SQLite in a temporary directory behind a ``CountingVFS``, one ``WITHOUT ROWID`` table per keyspace."""

    name = "sqlite"
    _serial = 0  # makes each loader's VFS name unique in the process

    def __init__(self, keyspaces: list[tuple[str, bool]], *, page_size: int, cache_bytes: int) -> None:
        import apsw

        SQLiteLoader._serial += 1
        vfs_name = f"minidb-counting-{os.getpid()}-{SQLiteLoader._serial}"
        self.vfs = CountingVFS(vfs_name)  # counts every request
        self.dir = tempfile.mkdtemp(prefix="minidb-sqlite-")  # removed by finish()
        self.path = os.path.join(self.dir, "db.sqlite")  # the main database file
        self.conn = apsw.Connection(self.path, vfs=vfs_name)  # the database, opened through the counting VFS
        c = self.conn
        c.execute(f"PRAGMA page_size={int(page_size)}")
        c.execute(f"PRAGMA cache_size={-max(1, cache_bytes // 1024)}")  # negative: KiB, not pages
        c.execute("PRAGMA locking_mode=EXCLUSIVE")
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
        self.tables = {}  # keyspace -> its INSERT statement
        for i, (ks, _) in enumerate(keyspaces):
            c.execute(f"CREATE TABLE ks{i} (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
            self.tables[ks] = f"INSERT INTO ks{i} VALUES (?, ?)"

    def write(self, entries) -> None:
        """Apply ``entries`` as one transaction (rows grouped by table, in their order within each)."""
        by_table: dict[str, list] = {}
        for keyspace, key, value in entries:
            by_table.setdefault(keyspace, []).append((key, value))
        with self.conn:
            cur = self.conn.cursor()
            for keyspace, pairs in by_table.items():
                cur.executemany(self.tables[keyspace], pairs)

    def finish(self, rows: int, logical_bytes: int) -> LoadCounts:
        """Checkpoint the WAL into the main file, close, read the VFS's counters, remove the files."""
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size = os.path.getsize(self.path)
            self.conn.close()
            counts = {role: dict(zip(COUNTS, c)) for role, c in self.vfs.counts.items()}
            written = {"log": counts.get("wal", {}).get("write_bytes", 0),
                       "pages": counts.get("main", {}).get("write_bytes", 0)}
            total = {f: sum(c[f] for c in counts.values()) for f in COUNTS}
            report = "\n".join(f"{role:8s} " + " ".join(f"{f}={c[f]}" for f in COUNTS)
                               for role, c in sorted(counts.items()))
            return LoadCounts(
                engine=self.name, rows=rows, logical_bytes=logical_bytes, bytes_written=total["write_bytes"],
                bytes_read=total["read_bytes"], read_requests=total["reads"], size_bytes=size, seconds=0.0,
                written={k: v for k, v in written.items() if v}, report=report,
            )
        finally:
            self.vfs.unregister()
            shutil.rmtree(self.dir, ignore_errors=True)
