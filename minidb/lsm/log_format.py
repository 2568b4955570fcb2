"""The log format shared by the WAL and the MANIFEST (LevelDB's db/log_format.h): its constants.

A log is a sequence of 32 KiB blocks. A logical record is cut into fragments that never cross a block boundary;
each fragment has a 7-byte header::

    crc32 (4 bytes, LE) | length (2 bytes, LE) | type (1 byte) | data (length bytes)

The crc covers the type byte and the data. The type says where the fragment sits in its record: FULL (the whole
record), or FIRST, MIDDLE..., LAST. A block whose tail is shorter than a header is padded with zeros. Thanks to the
blocks, a reader that meets damage can skip to the next block boundary and find records again.

``log_writer.LogWriter`` frames records, ``log_reader.scan`` reads them back.
"""

from __future__ import annotations

BLOCK_SIZE = 32768  # log block size
HEADER_SIZE = 7  # crc32 (4) + length (2) + type (1)
ZERO, FULL, FIRST, MIDDLE, LAST = 0, 1, 2, 3, 4  # fragment types (ZERO: padding or never-written space)
