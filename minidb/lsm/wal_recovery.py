"""WAL recovery modes: what replay does with a damaged spot in the WAL (RocksDB's ``WALRecoveryMode``).

The log reader (log_reader.py) reports, in file order, the records it could decode and the places it had to drop
bytes. Replay (wal.py) classifies each drop as one of two *problems*:

* a **torn tail**: nothing promised durable follows it. A crash while appending leaves one (the unsynced end of the
  last WAL), and so does a write cut short by a full disk (``Device.short_writes``); nothing acknowledged is in it,
  unless the writer kept writing after it;
* **corruption**: records that were durable follow the drop (a later record's ``synced`` field shows the writer had
  synced past it), the drop is in a WAL that was synced in full before a newer one started, or the damaged bytes
  do not look like a torn write (the reader's ``Drop.torn``: no sector lost, no record cut by the end of the file,
  as a flipped bit or stray bytes leave them).

The mode decides, per problem, one of three actions: ``stop`` replaying (every record after it, in every WAL, is
dropped), ``skip`` it and go on with the next record, or ``fail`` the open with ``CorruptionError``:

================================  =============  ============  ==========================================
mode (RocksDB name, MyRocks #)    torn tail      corruption    for
================================  =============  ============  ==========================================
kTolerateCorruptedTailRecords 0   stop           fail          LevelDB's original recovery (our default)
kAbsoluteConsistency 1            fail           fail          "no corruption expected"; MyRocks' default
kPointInTimeRecovery 2            stop           stop          RocksDB's default since 6.x: a consistent prefix
kSkipAnyCorruptedRecords 3        skip           skip          disaster recovery: salvage every good record
================================  =============  ============  ==========================================

(RocksDB's wiki "WAL Recovery Modes" and ``include/rocksdb/options.h``; MyRocks' ``rocksdb_wal_recovery_mode``
takes the numbers.) Seed 004 needed mode 3 to start MyRocks after its disk filled: with the 2018 bug the engine
kept appending after a record the full disk had cut short, so the WAL held a torn record *followed by acknowledged
ones*, which modes 0 and 1 refuse and mode 2 drops. Skipping loses what the damage covers: the cut record (the
reader looks for the next intact fragment byte by byte, so no record after the damage is hidden).

Replay (``wal.replay``) builds a ``Problem`` from each of the reader's ``Drop``s (its offset, reason and ``torn``)
and what it knows about syncs; ``decide`` applies the mode.
"""

from __future__ import annotations

from dataclasses import dataclass

from minidb.errors import CorruptionError

MODES = ("kTolerateCorruptedTailRecords", "kAbsoluteConsistency", "kPointInTimeRecovery",
         "kSkipAnyCorruptedRecords")  # by MyRocks' number, 0..3
DEFAULT = "kTolerateCorruptedTailRecords"

_ACTIONS = {  # mode -> (action on a torn tail, action on corruption)
    "kTolerateCorruptedTailRecords": ("stop", "fail"),
    "kAbsoluteConsistency": ("fail", "fail"),
    "kPointInTimeRecovery": ("stop", "stop"),
    "kSkipAnyCorruptedRecords": ("skip", "skip"),
}


def check_mode(value) -> str:
    """The mode named by ``value`` (a RocksDB name or MyRocks' number 0..3); ValueError naming the option if
    neither."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(MODES):
        return MODES[value]
    if value in MODES:
        return value
    raise ValueError(f"bad option wal_recovery_mode={value!r}: one of {', '.join(MODES)} (or MyRocks' 0..3)")


@dataclass(frozen=True)
class Problem:
    """A damaged spot replay met: where, what the reader said, and whether durable records follow it."""

    file: str  # the WAL's file name
    offset: int  # where the damage starts
    reason: str  # the reader's description
    corruption: bool  # True: durable records follow (or the WAL was complete); False: a torn tail
    evidence: str = ""  # why it is corruption (what shows the damaged bytes had been durable)

    def describe(self) -> str:
        """One line naming the file, the offset and the kind of damage."""
        kind = f"corruption, {self.evidence}" if self.corruption else "torn tail"
        return f"WAL {self.file} offset {self.offset}: {self.reason} ({kind})"


def decide(mode: str, problem: Problem) -> str:
    """``"stop"`` or ``"skip"`` for ``problem`` under ``mode``; raises CorruptionError where the mode fails the
    open."""
    action = _ACTIONS[mode][1 if problem.corruption else 0]
    if action == "fail":
        raise CorruptionError(f"{problem.describe()}; wal_recovery_mode={mode} refuses to open "
                              f"(kSkipAnyCorruptedRecords salvages the records around it)")
    return action


@dataclass
class ReplayReport:
    """What replay did, for ``LSMEngine.recovery``."""

    mode: str  # the mode replay ran under
    records: int = 0  # records applied
    problems: list = None  # Problem.describe() of each damaged spot met
    skipped: int = 0  # damaged spots skipped (kSkipAnyCorruptedRecords)
    stopped_at: str | None = None  # where replay stopped (a torn tail, or kPointInTimeRecovery), if it did
    records_not_replayed: int = 0  # intact records after the stop: dropped by the recovery
    stop: tuple[int, int] | None = None  # (WAL number, offset) where replay stopped, if it did

    def __post_init__(self) -> None:
        if self.problems is None:
            self.problems = []

    def as_dict(self) -> dict:
        """The report as a plain dict."""
        return {"wal_recovery_mode": self.mode, "records_replayed": self.records, "problems": list(self.problems),
                "problems_skipped": self.skipped, "stopped_at": self.stopped_at,
                "records_not_replayed": self.records_not_replayed}
