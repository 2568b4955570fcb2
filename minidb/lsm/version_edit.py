"""VersionEdit: one change to the set of files, as recorded in the MANIFEST (LevelDB's db/version_edit.cc).

The MANIFEST is a log of edits; replaying them from the first gives the current file set of every column family
(and the counters that must survive a restart). An edit is a list of tagged fields, each a varint tag then its
payload (varints, and byte strings as a varint length then the bytes)::

    1 log number        cf, number        WALs older than this hold nothing of the family that is not in an SST
    2 next file number  number            file numbers below it are taken
    3 last sequence     seq               sequence numbers up to it are used
    4 compact pointer   cf, level, key    where round-robin compaction of the level resumes
    5 deleted file      cf, level, number
    6 new file          cf, level, number, size, smallest, largest, smallest seq, largest seq, entries, deletions
    7 column family     id, name
    8 keyspace          id, name, cf, unique
    9 format            version           the MANIFEST's format (2); the first edit of every MANIFEST carries it
   10 WAL               number, bytes     the WAL being written when the edit was logged, and its bytes then synced

A flush's edit adds its L0 file and advances the family's log number; a compaction's deletes its inputs and adds
its outputs; a trivial move deletes a file from one level and adds it to the next. Each edit is one log record, so
it is applied all or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minidb.errors import CorruptionError

from .dbformat import MAX_SEQUENCE, parse_internal_key
from .format import decode_varint, encode_varint

(LOG_NUMBER, NEXT_FILE, LAST_SEQUENCE, COMPACT_POINTER, DELETED_FILE, NEW_FILE, COLUMN_FAMILY, KEYSPACE, FORMAT,
 WAL) = range(1, 11)
FORMAT_VERSION = 2  # 2: MANIFESTs record their format and the WAL being written, WALs start with a header (FORMAT.md)


@dataclass
class FileMeta:
    """What the engine knows of an SST without opening it."""

    number: int  # file number (the file is NNNNNN.sst)
    size: int  # bytes
    smallest: bytes  # smallest internal key
    largest: bytes  # largest internal key
    smallest_seq: int  # smallest sequence number in the file
    largest_seq: int  # largest sequence number in the file
    num_entries: int  # entries (puts and tombstones)
    num_deletions: int  # tombstones
    being_compacted: bool = field(default=False, compare=False)  # an input of a compaction in flight
    smallest_user: bytes = field(init=False, compare=False, repr=False)  # user key of ``smallest``
    largest_user: bytes = field(init=False, compare=False, repr=False)  # user key of ``largest``

    def __post_init__(self) -> None:
        self.smallest_user = self.smallest[:-8]
        self.largest_user = self.largest[:-8]


@dataclass
class VersionEdit:
    """One MANIFEST record; see the module docstring. Empty lists and None mean "unchanged"."""

    log_numbers: dict[int, int] = field(default_factory=dict)  # cf id -> log number
    next_file_number: int | None = None  # file numbers below it are taken
    last_sequence: int | None = None  # sequence numbers up to it are used
    compact_pointers: list[tuple[int, int, bytes]] = field(default_factory=list)  # (cf, level, internal key)
    deleted_files: list[tuple[int, int, int]] = field(default_factory=list)  # (cf, level, file number)
    new_files: list[tuple[int, int, FileMeta]] = field(default_factory=list)  # (cf, level, file)
    column_families: list[tuple[int, str]] = field(default_factory=list)  # (cf id, name) created
    keyspaces: list[tuple[int, str, int, bool]] = field(default_factory=list)  # (id, name, cf id, unique)
    format: int | None = None  # the MANIFEST's format version (its first edit only)
    wal: tuple[int, int] | None = None  # (number, synced bytes) of the WAL being written when the edit was logged

    def encode(self) -> bytes:
        """The edit's bytes."""
        out = []
        v = encode_varint
        if self.format is not None:
            out += [v(FORMAT), v(self.format)]
        for cf_id, name in self.column_families:
            out += [v(COLUMN_FAMILY), v(cf_id), _bytes(name.encode())]
        for ks_id, name, cf_id, unique in self.keyspaces:
            out += [v(KEYSPACE), v(ks_id), _bytes(name.encode()), v(cf_id), v(int(unique))]
        for cf_id, number in sorted(self.log_numbers.items()):
            out += [v(LOG_NUMBER), v(cf_id), v(number)]
        if self.next_file_number is not None:
            out += [v(NEXT_FILE), v(self.next_file_number)]
        if self.last_sequence is not None:
            out += [v(LAST_SEQUENCE), v(self.last_sequence)]
        for cf_id, level, key in self.compact_pointers:
            out += [v(COMPACT_POINTER), v(cf_id), v(level), _bytes(key)]
        for cf_id, level, number in self.deleted_files:
            out += [v(DELETED_FILE), v(cf_id), v(level), v(number)]
        for cf_id, level, f in self.new_files:
            out += [v(NEW_FILE), v(cf_id), v(level), v(f.number), v(f.size), _bytes(f.smallest), _bytes(f.largest),
                    v(f.smallest_seq), v(f.largest_seq), v(f.num_entries), v(f.num_deletions)]
        if self.wal is not None:
            out += [v(WAL), v(self.wal[0]), v(self.wal[1])]
        return b"".join(out)

    @classmethod
    def decode(cls, data: bytes, origin: str) -> VersionEdit:
        """The edit encoded in ``data``; CorruptionError naming ``origin`` if it does not parse."""
        edit = cls()
        r = _Reader(data, origin)
        while not r.done():
            tag = r.varint()
            if tag == COLUMN_FAMILY:
                edit.column_families.append((r.varint(), r.text()))
            elif tag == KEYSPACE:
                edit.keyspaces.append((r.varint(), r.text(), r.varint(), bool(r.varint())))
            elif tag == LOG_NUMBER:
                cf_id = r.varint()
                edit.log_numbers[cf_id] = r.varint()
            elif tag == NEXT_FILE:
                edit.next_file_number = r.varint()
            elif tag == LAST_SEQUENCE:
                edit.last_sequence = r.varint()
                if edit.last_sequence > MAX_SEQUENCE:
                    raise CorruptionError(f"{origin}: last sequence {edit.last_sequence} is past the 7-byte "
                                          f"maximum {MAX_SEQUENCE}")
            elif tag == COMPACT_POINTER:
                edit.compact_pointers.append((r.varint(), r.varint(), r.ikey()))
            elif tag == DELETED_FILE:
                edit.deleted_files.append((r.varint(), r.varint(), r.varint()))
            elif tag == NEW_FILE:
                cf_id, level = r.varint(), r.varint()
                f = FileMeta(number=r.varint(), size=r.varint(), smallest=r.ikey(), largest=r.ikey(),
                             smallest_seq=r.varint(), largest_seq=r.varint(), num_entries=r.varint(),
                             num_deletions=r.varint())
                edit.new_files.append((cf_id, level, f))
            elif tag == FORMAT:
                edit.format = r.varint()
            elif tag == WAL:
                edit.wal = (r.varint(), r.varint())
            else:
                raise CorruptionError(f"unknown version edit tag {tag} in {origin}")
        return edit


def _bytes(b: bytes) -> bytes:
    return encode_varint(len(b)) + b


class _Reader:
    """Sequential decoding of an edit's fields."""

    def __init__(self, data: bytes, origin: str) -> None:
        self.data = data  # the edit's bytes
        self.pos = 0  # next byte to decode
        self.origin = origin  # for messages

    def done(self) -> bool:
        """True once every byte is decoded."""
        return self.pos >= len(self.data)

    def varint(self) -> int:
        """The next varint."""
        value, self.pos = decode_varint(self.data, self.pos, self.origin)
        return value

    def raw(self) -> bytes:
        """The next length-prefixed byte string."""
        n = self.varint()
        if self.pos + n > len(self.data):
            raise CorruptionError(f"byte string of {n} bytes runs past the edit in {self.origin}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def text(self) -> str:
        """The next byte string, as UTF-8 text."""
        try:
            return self.raw().decode()
        except UnicodeDecodeError:
            raise CorruptionError(f"name is not UTF-8 in {self.origin}") from None

    def ikey(self) -> bytes:
        """The next byte string, checked to be an internal key."""
        key = self.raw()
        try:
            parse_internal_key(key)
        except ValueError:
            raise CorruptionError(f"bad internal key {key!r} in {self.origin}") from None
        return key
