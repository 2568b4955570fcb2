"""Compaction: what one compaction job will do, decided by a picker (leveled or universal) or by compact_range.

A compaction merges its input files (from a *start level*, plus the overlapping files of the *output level*) into
new files at the output level, keeping the newest version of each key. Its description says everything the job
needs: inputs in read order (newest data first), output level, compression and file size of the outputs, and
whether tombstones can be dropped (``bottommost``: no file below the output level overlaps the inputs, so no older
version can hide behind a dropped tombstone), or else the key ranges of the files below (``deeper``) to ask per key
(if the picker does not give them, every tombstone is kept).

A *trivial move* is a compaction whose inputs are only start-level files that overlap nothing in the output level:
the files are moved by a MANIFEST edit alone, without reading or writing them (counted as Moved(GB)).
"""

from __future__ import annotations

from dataclasses import dataclass

from .version import Version
from .version_edit import FileMeta


@dataclass
class Compaction:
    """One compaction of one column family; see the module docstring."""

    cf_id: int  # the column family compacted
    inputs: list[tuple[int, list[FileMeta]]]  # (level, files) in read order: newest data first
    output_level: int  # level of the output files
    reason: str  # why it was picked: "level0", "level-size", "size-amp", "size-ratio", "sorted-runs", "manual"
    compression: str  # compression of the output files
    target_file_size: int  # outputs are cut at this size (0: one file)
    bottommost: bool  # no older version can exist below: tombstones are dropped
    # User-key ranges of the files below, per level, asked for each tombstone when not bottommost; None when the
    # picker does not know them, which keeps every tombstone.
    deeper: list[list[tuple[bytes, bytes]]] | None = None
    trivial_move: bool = False  # move the inputs by a MANIFEST edit, without rewriting them
    score: float = 0.0  # the compaction score that triggered it

    @property
    def start_level(self) -> int:
        """The level compacted from."""
        return self.inputs[0][0]

    @property
    def input_files(self) -> list[FileMeta]:
        """Every input file."""
        return [f for _, files in self.inputs for f in files]

    def bytes_read(self) -> tuple[int, int]:
        """(bytes read from levels other than the output level (Rn), bytes read from the output level (Rnp1))."""
        rn = sum(f.size for level, files in self.inputs if level != self.output_level for f in files)
        rnp1 = sum(f.size for level, files in self.inputs if level == self.output_level for f in files)
        return rn, rnp1

    def mark(self, busy: bool) -> None:
        """Mark the inputs as taken by this compaction (or release them)."""
        for f in self.input_files:
            f.being_compacted = busy


def key_range(files: list[FileMeta]) -> tuple[bytes, bytes]:
    """(smallest user key, largest user key) over ``files``."""
    return min(f.smallest_user for f in files), max(f.largest_user for f in files)


def below(v: Version, output_level: int, lo: bytes, hi: bytes) -> list[list[tuple[bytes, bytes]]]:
    """User-key ranges of the files below ``output_level`` that overlap ``[lo, hi]``, per level (sorted)."""
    out = []
    for level in range(output_level + 1, v.num_levels):
        ranges = [(f.smallest_user, f.largest_user) for f in v.overlapping(level, lo, hi)]
        if ranges:
            out.append(sorted(ranges))
    return out
