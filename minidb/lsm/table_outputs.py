"""TableOutputs: the SST files a flush or a compaction writes, numbered, built, synced and described.

The merge loop (compaction_iter.pyx) asks for a new TableBuilder whenever it starts an output file and hands it
back when the file is complete; this class gives each file its number, finishes and syncs it (an SST must be durable
before a MANIFEST edit names it) and records its FileMeta. If the job fails, ``abandon`` deletes what it wrote:
files the MANIFEST never named are garbage (and would be deleted at the next open anyway).
"""

from __future__ import annotations

from .table_builder import TableBuilder
from .version_edit import FileMeta


def sst_name(number: int) -> str:
    """File name of SST number ``number``."""
    return f"{number:06d}.sst"


class TableOutputs:
    """Output files of one job; see the module docstring."""

    def __init__(self, ctx, cf, level: int, compression: str, job: str) -> None:
        self.ctx = ctx  # job_context.JobContext: the device, file numbers, buffer size and counters
        self.cf = cf  # the column family written
        self.level = level  # level the files are written for (a table property)
        self.compression = compression  # compression of their data blocks
        self.job = job  # "flush" or "compaction" (a table property)
        self.files: list[FileMeta] = []  # finished files, in key order
        self.names: list[str] = []  # every file created, finished or not
        self._open: dict[int, object] = {}  # id(builder) -> device file being written

    def new_table(self) -> TableBuilder:
        """A builder for the next output file."""
        number = self.ctx.versions.new_file_number()
        name = sst_name(number)
        f = self.ctx.device.open(name, kind="sst", create=True)
        self.names.append(name)
        o = self.cf.options
        builder = TableBuilder(f, block_size=o.block_size, compression_name=self.compression, policy=self.cf.policy,
                               props={"level": self.level, "column.family": self.cf.name, "creator": self.job,
                                      "file.number": number},
                               write_buffer_size=self.ctx.writable_file_max_buffer_size)
        self._open[id(builder)] = (f, number)
        return builder

    def finish_table(self, builder: TableBuilder) -> None:
        """Finish, sync and describe one output file."""
        f, number = self._open.pop(id(builder))
        props = builder.finish()
        for codec, nbytes in builder.compressed.items():
            self.ctx.counters[f"{codec}_compress_bytes"] += nbytes
        f.sync()
        f.close()
        self.files.append(FileMeta(number=number, size=props["file.size"], smallest=builder.smallest,
                                   largest=builder.largest, smallest_seq=builder.smallest_seq,
                                   largest_seq=builder.largest_seq, num_entries=builder.num_entries,
                                   num_deletions=builder.num_deletions))

    def bytes_written(self) -> int:
        """Bytes of the finished files."""
        return sum(f.size for f in self.files)

    def abandon(self) -> None:
        """Delete every file this job created (best effort: leftovers are deleted at the next open)."""
        for f, _ in self._open.values():
            f.close()
        self._open.clear()
        for name in self.names:
            try:
                if self.ctx.device.exists(name):
                    self.ctx.device.delete(name)
            except OSError:
                pass
        self.files.clear()
