"""The WAL chain: how recovery proves that no WAL it needs, and no MANIFEST edit, went missing.

A log reader sees damage *inside* a file (checksums, torn records). It cannot see a file that is missing, cut at a
record boundary, emptied, swapped with another or replaced by an older copy of itself: each of those still reads
cleanly. So every file of the chain says what came before it (wal.py's ``WalHeader``, version_edit.py's WAL
field), and recovery checks the files against each other before it replays a record:

* **each WAL vouches for its predecessor**: the newest earlier WAL holding records, named with its size when the
  WAL started (it was synced in full then and never grows again). A predecessor that every family still needs
  (numbered at or above the smallest log number) must be there, with exactly that size; a WAL holding records
  that no successor names is not in the chain;
* **each WAL vouches for the MANIFEST**: its header names the MANIFEST in use when it started and that file's
  size, and a mark after each later edit the size with that edit. The MANIFEST CURRENT names must be that one or a
  newer one (else CURRENT was rolled back), and hold at least that many intact bytes (else edits were cut off);
* **the MANIFEST vouches for the newest WAL**: its last edit names the WAL being written and the bytes of it
  synced by then (after RocksDB's ``track_and_verify_wals_in_manifest``, whose ``WalSet::CheckWals`` requires a
  tracked WAL to exist with at least its synced size). That WAL must be there, that long (unless none of it was
  synced: a file never synced may be gone after a crash), and replay treats damage inside those bytes as
  corruption, not as a torn tail;
* **each WAL names itself**, so a WAL found under another's name was swapped or copied.

What no chain can vouch for is the newest WAL past the bytes the MANIFEST's last edit saw synced: cut there at a
record boundary (or emptied, when no edit saw it) it reads like a WAL whose last batches were never written, the
limit RocksDB has for its live WAL too.

``check`` returns, per WAL, the bytes known synced (for replay) or raises ``CorruptionError`` naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from minidb.errors import CorruptionError

from .version_set import manifest_name
from .wal import WalLog, wal_name


@dataclass(frozen=True)
class Expected:
    """What the MANIFEST says the WALs must be."""

    oldest: int  # the smallest log number of any family: WALs below it hold nothing not in an SST
    tracked: tuple[int, int] | None  # (number, synced bytes) of the WAL its last edit saw being written
    manifest: int  # the number of the MANIFEST CURRENT names
    manifest_bytes: int  # its bytes up to the end of its last intact edit


def check(logs: list[WalLog], expected: Expected) -> dict[int, int]:
    """Check the WALs ``logs`` (every WAL numbered ``expected.oldest`` or above, ascending) against each other and
    the MANIFEST (see the module docstring); returns WAL number -> bytes known synced. CorruptionError naming the
    file for any break in the chain."""
    by_number = {log.number: log for log in logs}
    previous = None  # the WAL before this one that holds records
    for log in logs:
        header = log.header
        if log.first_is_batch:
            raise CorruptionError(f"WAL {log.name}: its first record is a batch, not the header every WAL of format "
                                  f"2 starts with: a WAL written by an older minidb (not read by this one: recreate "
                                  f"the database) or a damaged one")
        if header is not None and header.number != log.number:
            raise CorruptionError(f"WAL {log.name} holds the header of WAL {wal_name(header.number)}: files "
                                  f"swapped, renamed or copied")
        if not log.size:
            continue  # holds nothing, not even its header: nothing in it can be lost
        if header is not None:
            _check_predecessor(log, previous, by_number, expected.oldest)
        _check_manifest(log, expected)
        previous = log
    synced = {}
    if expected.tracked is not None and expected.tracked[0] >= expected.oldest:
        number, nbytes = expected.tracked
        log = by_number.get(number)
        if log is None and nbytes:  # (a WAL never synced may be gone after a crash: it held nothing durable)
            raise CorruptionError(f"WAL {wal_name(number)} is missing: the MANIFEST's last edit names it as the WAL "
                                  f"being written, with {nbytes} bytes synced")
        if log is not None and log.size < nbytes:
            raise CorruptionError(f"WAL {log.name} holds {log.size} bytes, but the MANIFEST's last edit recorded "
                                  f"{nbytes} of them synced: the file was cut, emptied or replaced by an older copy")
        synced[number] = nbytes
    return synced


def _check_predecessor(log: WalLog, previous: WalLog | None, by_number: dict, oldest: int) -> None:
    """The WAL ``log`` names as its predecessor is there, with the size it recorded, and is ``previous``."""
    header = log.header
    named = header.predecessor
    if named >= oldest and named:
        pred = by_number.get(named)
        if pred is None:
            raise CorruptionError(f"WAL {wal_name(named)} is missing: WAL {log.name}, which follows it, recorded "
                                  f"it with {header.predecessor_size} bytes")
        if pred.size != header.predecessor_size:
            raise CorruptionError(f"WAL {pred.name} holds {pred.size} bytes, but WAL {log.name}, which follows it, "
                                  f"recorded {header.predecessor_size} when it started: the file was cut, emptied, "
                                  f"extended or replaced by another copy")
    if previous is not None and previous.number != named:
        raise CorruptionError(f"WAL {previous.name} is not in the chain: the WAL after it, {log.name}, follows "
                              f"{wal_name(named) if named else 'no WAL'} (a WAL copied in, or {log.name} replaced)")


def _check_manifest(log: WalLog, expected: Expected) -> None:
    """The MANIFEST in use is the one ``log``'s header and marks name, or a newer one, and no shorter than they say."""
    current = manifest_name(expected.manifest)
    for number, size in log.manifest_marks():
        if number > expected.manifest:
            raise CorruptionError(f"CURRENT names {current}, but WAL {log.name} was written while "
                                  f"{manifest_name(number)} was in use: CURRENT was rolled back")
        if number == expected.manifest and size > expected.manifest_bytes:
            raise CorruptionError(f"{current} holds {expected.manifest_bytes} bytes of intact edits, but WAL "
                                  f"{log.name} was written when it held {size}: the MANIFEST was cut or replaced by "
                                  f"an older copy")
