"""Block compression: none, LZ4 and ZSTD, with RocksDB's type codes and its "is it worth it" rule.

Each block of an SST is compressed on its own, so a reader decompresses only the blocks it needs. The block trailer
records which codec was used (RocksDB's ``CompressionType`` numbers: 0 none, 4 LZ4, 7 ZSTD). As RocksDB does
(``GoodCompressionRatio`` in table/block_based/block_based_table_builder.cc), a block is stored compressed only if
that saves at least 1/8 of its size; otherwise it is stored as is, with type 0, and reading it costs nothing extra.

The codecs are the real libraries: ``lz4.block`` (python-lz4) and ``zstandard``.
"""

from __future__ import annotations

import lz4.block
import zstandard

from minidb.errors import CorruptionError

NONE, LZ4, ZSTD = 0, 4, 7  # RocksDB's CompressionType codes, stored in every block trailer
CODES = {"none": NONE, "lz4": LZ4, "zstd": ZSTD}  # option value -> code
NAMES = {code: name for name, code in CODES.items()}  # code -> option value

ZSTD_LEVEL = 3  # zstd's own default level, also RocksDB's when CompressionOptions.level is unset

_zstd_compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
_zstd_decompressor = zstandard.ZstdDecompressor()


def code_of(name: str) -> int:
    """The type code of compression ``name`` ('none', 'lz4' or 'zstd'); ValueError otherwise."""
    try:
        return CODES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown compression {name!r}: use one of {', '.join(CODES)}") from None


def compress(code: int, raw: bytes) -> tuple[int, bytes]:
    """``(code actually used, stored bytes)`` for block ``raw``: falls back to NONE when saving < 1/8."""
    if code == NONE:
        return NONE, raw
    if code == LZ4:
        out = lz4.block.compress(raw, store_size=True)  # 4-byte size prefix, so the reader knows the output size
    elif code == ZSTD:
        out = _zstd_compressor.compress(raw)  # a zstd frame, which records the content size
    else:
        raise ValueError(f"unknown compression code {code!r}")
    if len(out) < len(raw) - len(raw) // 8:
        return code, out
    return NONE, raw


def decompress(code: int, stored: bytes, origin: str) -> bytes:
    """The raw block from its ``stored`` bytes; CorruptionError naming ``origin`` if they do not decode."""
    if code == NONE:
        return stored
    try:
        if code == LZ4:
            return lz4.block.decompress(stored)
        if code == ZSTD:
            return _zstd_decompressor.decompress(stored)
    except Exception as exc:  # both libraries raise their own error types on bad input
        raise CorruptionError(f"cannot decompress {NAMES[code]} block in {origin}: {exc}") from None
    raise CorruptionError(f"unknown compression type {code} in {origin}")
