"""``LoadCounts``: what one engine did to load the rows, in the same units for ours and the real engines."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class LoadCounts:
    """Bytes and requests an engine sent to storage for a load of ``rows`` rows of ``logical_bytes`` bytes.

    ``written`` splits the bytes written by what was written: ``log`` (WAL or redo; SQLite's WAL, which holds whole
    pages), ``flush`` (LSM memtables to L0), ``compaction`` (LSM merges) and ``pages`` (B+tree pages written in
    place, including SQLite's checkpoints and, in our B+tree, the doublewrite area).
    """

    engine: str  # "minidb-lsm", "rocksdb", "minidb-btree", "sqlite"
    rows: int  # rows loaded
    logical_bytes: int  # bytes of keys and values the client wrote
    bytes_written: int  # bytes written to storage, every file
    bytes_read: int  # bytes read from storage, every file
    read_requests: int  # read calls (pages, blocks or readahead chunks) to storage
    size_bytes: int  # final size of the data (SSTs, or the B+tree's data file after a checkpoint)
    seconds: float  # wall-clock time of the load on this machine (depends on the machine; never a finding)
    written: dict = field(default_factory=dict)  # bytes written by cause: log, flush, compaction, pages
    report: str = ""  # the engine's own account of its levels (compaction stats in RocksDB's layout), if it has one

    @property
    def write_amp(self) -> float:
        """Bytes written to storage per byte the client wrote."""
        return self.bytes_written / self.logical_bytes

    def per_row(self) -> dict:
        """The counts as one table row: totals divided by ``rows`` where a per-row figure is what compares."""
        out = {
            "engine": self.engine,
            "rows": self.rows,
            "write_amp": self.write_amp,
            "wkb_per_row": self.bytes_written / 1024 / self.rows,
            "rkb_per_row": self.bytes_read / 1024 / self.rows,
            "reads_per_row": self.read_requests / self.rows,
            "size_mb": self.size_bytes / 2**20,
            "bytes_per_row": self.size_bytes / self.rows,
            "rows_per_sec": self.rows / self.seconds if self.seconds > 0 else float("nan"),
        }
        for cause, n in sorted(self.written.items()):
            out[f"wkb_per_row_{cause}"] = n / 1024 / self.rows
        return out

    def as_dict(self) -> dict:
        """Every field, for caching a run."""
        return asdict(self)
