"""The damage fuzzer: random damage to every file of a small database of either engine, each damaged copy verified
and opened in a forked child with a time limit, and a verdict per case.

A case takes a template database, copies it, damages one file (or two, for a swap) and, in a child process, runs
``minidb verify`` on the copy, then opens it and reads every key back. The templates (``SETUPS``): an LSM, an LSM
with two column families (one of which never flushes, so that many WALs stay live), a B+tree, a compressed B+tree and
a B+tree written through in-place transactions (its crashed template ends with one left open, its uncommitted pages
flushed to the tablespace). Each is built on a ``SimDevice`` and ends closed cleanly, or crashed (what was not
synced is lost, a harder case than a killed process, whose unsynced writes the kernel keeps); every batch is synced
before it is acknowledged (``wal_sync="write"``, ``redo_sync="commit"``), so a crashed template holds every
acknowledged batch. A copy of every file taken two thirds of the way through the build gives the ``older`` damage.

The damage (``DAMAGES``): a flipped bit, zeroed bytes, a cut at a random offset or at a record boundary of a log, bytes
appended, a file deleted, two files of one kind swapped, a file replaced by a directory or by its older copy, and a
crafted log record whose checksum is recomputed: a B+tree redo group's end byte (COMMIT turned to CONTINUE or back),
a page number past the tablespace, a record count or a length field; an LSM WAL header's fields. (A crafted record
whose every field stays plausible, another existing page or another key, is simply another valid log: no check can
tell it, and the fuzzer does not forge those.)

The verdict:

* ``detected``: the open or a read raised ``CorruptionError``;
* ``intact``: the database holds exactly the acknowledged (committed) batches;
* ``lost-tail``: it holds the acknowledged batches up to some point and none after, and the damage cut, deleted or
  rolled back the end of the newest log: past the bytes any other file vouches for, a log reader cannot tell that
  from a crash before those batches were written (the limit RocksDB has for its live WAL). Counted apart:
  acknowledged data lost without an error, by the one kind of damage that is undetectable;
* ``wrong``: anything else the child returned (other data, another exception type);
* ``hang``: the child outlived its time limit; ``signal``: the child died of a signal.

Each case also records whether ``minidb verify`` passed the copy (it must not, wherever the open refuses it or reads
it wrong) and which files a failed open deleted (none may be). ``lock_case`` checks the LOCK: a second writer is
refused while the first lives, even with the LOCK file deleted under it.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import struct
from collections import Counter
from dataclasses import dataclass

from minidb import CorruptionError, DirDevice, WriteBatch, open_btree, open_lsm
from minidb.btree.redo_log import FILE_HEADER_SIZE, GROUP, group_at
from minidb.crc import crc32
from minidb.errors import DatabaseLockedError
from minidb.lsm.log_format import HEADER_SIZE
from minidb.lsm.log_reader import Drop, scan
from minidb.lsm.wal import WalHeader
from minidb.storage import SimDevice

KEYSPACES = ("t", "u")
LSM_OPTIONS = dict(memtable_bytes=2048, block_size=256, max_bytes_for_level_base=8192, target_file_size_base=2048,
                   max_bytes_for_level_multiplier=3, level0_file_num_compaction_trigger=2, wal_sync="write")
BTREE_OPTIONS = dict(page_size=4096, buffer_pool_bytes=16 * 4096, redo_log_bytes=64 * 4096, redo_sync="commit")
ENGINES = {"lsm": (open_lsm, LSM_OPTIONS), "btree": (open_btree, BTREE_OPTIONS)}  # the two plain set-ups
SETUPS = {  # name -> (opener, options, how batches are written: one write each, or one in-place transaction each)
    "lsm": (open_lsm, LSM_OPTIONS, "batch"),
    "lsm-cf": (open_lsm, {**LSM_OPTIONS, "column_families": {"cf1": {"memtable_bytes": 1 << 20}},
                          "keyspace_cf": {"u": "cf1"}}, "batch"),
    "btree": (open_btree, BTREE_OPTIONS, "batch"),
    "btree-zip": (open_btree, {**BTREE_OPTIONS, "key_block_size": 2, "buffer_pool_bytes": 32 * 4096}, "batch"),
    "btree-txn": (open_btree, BTREE_OPTIONS, "txn"),
}
DAMAGES = ("bitflip", "zero", "truncate", "append", "delete", "swap", "directory", "older", "cut-record", "crafted")
VERDICTS = ("detected", "intact", "lost-tail", "wrong", "hang", "signal")
# The files whose mere existence marks a database (LSM CURRENT, the B+tree's checkpoint). Deleting one makes the
# directory look like no database at all; refusing to create a new database over engine files is the job of
# create_if_missing (open-never-destroys), so the fuzzer damages these files but does not delete them.
MARKERS = ("CURRENT", "redo-checkpoint")


def batches(n: int = 60) -> list[WriteBatch]:
    """``n`` batches over two keyspaces, with overwrites and deletes: enough for flushes, compactions, splits."""
    out = []
    for i in range(n):
        b = WriteBatch()
        for j in range(10):
            k = b"%04d" % ((i * 37 + j * 11) % 400)
            if (i + j) % 7 == 0:
                b.delete("t", k)
            else:
                b.put("t", k, b"%d-%d." % (i, j) * 24)
            b.put("u", k, b"u%d" % i * 30)
        out.append(b)
    return out


def model_after(bs: list[WriteBatch]) -> dict:
    """The (keyspace, key) -> value a database holds after ``bs``."""
    model = {}
    for b in bs:
        for ks, k, v in b.ops:
            if v is None:
                model.pop((ks, k), None)
            else:
                model[(ks, k)] = v
    return model


def build(setup: str, path: str, closed: bool, snapshot: str | None = None) -> list[dict]:
    """Write the template database of ``setup`` at ``path`` (and, given ``snapshot``, a copy of its files two
    thirds of the way); the models after each prefix of its committed batches."""
    opener, options, how = SETUPS[setup]
    dev = SimDevice()
    db = opener(dev, **options)
    bs = batches()
    for i, b in enumerate(bs):
        if how == "txn":
            txn = db.begin()
            for ks, k, v in b.ops:
                if v is None:
                    txn.delete(ks, k)
                else:
                    txn.put(ks, k, v)
            txn.commit()
        else:
            db.write(b)
        if snapshot is not None and i == len(bs) * 2 // 3:
            _export(dev, snapshot)
    if how == "txn":  # a transaction left open, its pages written: never committed, it must never be seen
        txn = db.begin()
        for k in sorted(k for ks, k in model_after(bs) if ks == "t")[:50]:
            txn.delete("t", k)
        txn.put("u", b"uncommitted", b"x" * 100)
        db.flush()
    if closed:
        db.close()
    else:
        dev.crash()
    _export(dev, path)
    return [model_after(bs[:k]) for k in range(len(bs) + 1)]


def _export(dev, path: str) -> None:
    """Write what survives on ``dev`` (its synced bytes) into directory ``path``."""
    os.makedirs(path, exist_ok=True)
    for name in dev.list():
        with open(os.path.join(path, name), "wb") as f:
            f.write(dev.durable_bytes(name))


def damage(path: str, rng: random.Random, snapshot: str | None = None) -> tuple[str, str, bool]:
    """Damage one file of the database at ``path`` at random: (kind, file, whether it hit a log's end)."""
    names = sorted(n for n in os.listdir(path) if n != "LOCK")  # LOCK holds nothing: the directory's lock
    kind = rng.choice(DAMAGES)
    name = rng.choice(names)
    if kind in ("cut-record", "crafted"):
        logs = [n for n in names if _is_log(n)]
        if kind == "crafted":
            logs = [n for n in logs if not n.startswith("MANIFEST-")]
        name = rng.choice(logs) if logs else name
        kind = kind if logs else "truncate"
    if kind == "older":
        older = [n for n in names if snapshot is not None and os.path.exists(os.path.join(snapshot, n))]
        name = rng.choice(older) if older else name
        kind = kind if older else "delete"
    p = os.path.join(path, name)
    size = os.path.getsize(p)
    same_kind = [n for n in names if _kind(n) == _kind(name)]
    newest_log = _is_log(name) and name == max(same_kind)
    at_end = False
    if kind == "swap":
        same = [n for n in same_kind if n != name]
        if not same or name in MARKERS:
            kind = "delete"
        else:
            other = os.path.join(path, rng.choice(same))
            os.rename(p, p + ".swap")
            os.rename(other, p)
            os.rename(p + ".swap", other)
            return kind, name, False
    if kind in ("delete", "directory") and name in MARKERS:
        kind = "truncate"
    if kind in ("delete", "directory"):
        os.remove(p)
        if kind == "directory":
            os.mkdir(p)
        return kind, name, newest_log
    with open(p, "r+b") as f:
        data = f.read()
        if kind == "older":
            with open(os.path.join(snapshot, name), "rb") as old:
                f.seek(0)
                f.truncate(0)
                f.write(old.read())
            return kind, name, newest_log
        if kind == "cut-record":
            f.truncate(rng.choice(_record_ends(name, data)))
            return kind, name, newest_log
        if kind == "crafted":
            crafted = _craft(name, data, rng)
            if crafted is not None:
                f.seek(0)
                f.write(crafted)
                return kind, name, False
            kind = "bitflip"
        if kind == "append":
            f.seek(0, 2)
            f.write(rng.randbytes(rng.randint(1, 200)))
            at_end = True
        elif size == 0:
            kind = "truncate"
        elif kind == "bitflip":
            off = rng.randrange(size)
            f.seek(off)
            f.write(bytes((data[off] ^ (1 << rng.randrange(8)),)))
            at_end = off >= size - 4096
        elif kind == "zero":
            off = rng.randrange(size)
            n = min(size - off, rng.randint(1, 4096))
            f.seek(off)
            f.write(bytes(n))
            at_end = off >= size - 4096
        if kind == "truncate":
            f.truncate(rng.randrange(size) if size else 0)
            at_end = True
    return kind, name, at_end and newest_log


def _kind(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else name.split("-")[0]


def _is_log(name: str) -> bool:
    """A WAL, a MANIFEST or a redo file: where a torn tail is possible."""
    return name.endswith(".log") or name.startswith("MANIFEST-")


def _record_ends(name: str, data: bytes) -> list[int]:
    """Every offset of log ``name`` at which a record (LSM) or a group (B+tree redo) ends, and 0."""
    if not name.startswith("redo-"):
        return [0] + [e.end for e in scan(data) if not isinstance(e, Drop)]
    return [0, FILE_HEADER_SIZE] + [pos + GROUP.size + n for pos, n in _groups(data)]


def _groups(data: bytes) -> list[tuple[int, int]]:
    """(offset, body bytes) of every intact group of redo file ``data``, in order."""
    out = []
    if len(data) < FILE_HEADER_SIZE:
        return out
    pos, lsn = FILE_HEADER_SIZE, struct.unpack_from("<Q", data, 12)[0]
    while (n := group_at(data, pos, lsn)) is not None:
        out.append((pos, n))
        pos += GROUP.size + n
        lsn += GROUP.size + n
    return out


def _craft(name: str, data: bytes, rng: random.Random) -> bytes | None:
    """``data`` with one structural field of one record changed and its checksum recomputed (see the module
    docstring), or None if the file has no record to craft."""
    if name.startswith("redo-"):
        groups = _groups(data)
        if not groups:
            return None
        pos, n = rng.choice(groups)
        body = bytearray(data[pos + GROUP.size:pos + GROUP.size + n])
        fields = _redo_fields(body)
        offset, size, what = rng.choice(fields)
        if what == "end":
            body[offset] ^= 1  # COMMIT (255) <-> CONTINUE (254)
        else:
            value = {"page": 0xFFFFFFF0, "count": 0xFFFF if size == 2 else 0xFFFFFFFF, "length": rng.choice(
                [0, (1 << 8 * size) - 1])}[what]
            body[offset:offset + size] = value.to_bytes(size, "little")
        out = bytearray(data)
        out[pos + GROUP.size:pos + GROUP.size + n] = body
        struct.pack_into("<I", out, pos + 16, crc32(bytes(body)))
        return bytes(out)
    records = [e for e in scan(data) if not isinstance(e, Drop)]
    if not records or WalHeader.decode(records[0].payload) is None:
        return None
    payload = bytearray(records[0].payload)
    field = rng.randrange(1, 6)  # number, predecessor, predecessor size, MANIFEST, MANIFEST size
    value = int.from_bytes(payload[8 * field:8 * field + 8], "little")
    payload[8 * field:8 * field + 8] = max(0, value + rng.choice([-1, 1, 1000])).to_bytes(8, "little")
    out = bytearray(data)
    out[HEADER_SIZE:HEADER_SIZE + len(payload)] = payload
    struct.pack_into("<I", out, 0, crc32(bytes(payload), crc32(data[6:7])))
    return bytes(out)


def _redo_fields(body: bytes) -> list[tuple[int, int, str]]:
    """(offset, size, what) of the structural fields of a redo group body: its end byte, each page record's page
    number, INIT record counts, UNDONE counts and FIELD lengths (redo_records.pyx has the layout)."""
    out = [(len(body) - 1, 1, "end")]
    i = 0
    while i < len(body) - 1:
        t = body[i]
        if t in (254, 255):
            i += 1
            continue
        j = i + 5
        if t in (1, 2, 3, 4, 5):
            out.append((i + 1, 4, "page"))
        if t == 1:
            i = j + 4 + sum(struct.unpack_from("<HH", body, j))
        elif t == 2:
            i = j + 2 + struct.unpack_from("<H", body, j)[0]
        elif t == 3:
            out.append((j + 15, 2, "count"))
            i, nrecs = j + 17, struct.unpack_from("<H", body, j + 15)[0]
            for _ in range(nrecs):
                i += 4 + sum(struct.unpack_from("<HH", body, i))
        elif t == 4:
            i = j + 3
        elif t == 5:
            out.append((j + 2, 1, "length"))
            i = j + 3 + body[j + 2]
        elif t == 6:
            i = j + 5 + sum(struct.unpack_from("<HH", body, j))
        else:  # 7 UNDONE
            out.append((i + 1, 4, "count"))
            i = j
    return out


def _child(setup: str, path: str, conn) -> None:
    opener, options, _ = SETUPS[setup]
    before = set(os.listdir(path))
    try:
        verified = _verify_passes(path)
    except BaseException as exc:  # verify must report, never fail
        conn.send(("error", f"minidb verify raised {type(exc).__name__}: {exc}", None, ()))
        return
    try:
        dev = DirDevice(path)
        db = opener(dev, **options)
        got = {(ks, k): v for ks in KEYSPACES for k, v in db.scan(ks)}
        db.close()
        dev.close()
        conn.send(("ok", got, verified, ()))
    except CorruptionError as exc:
        conn.send(("detected", str(exc), verified, tuple(sorted(before - set(os.listdir(path))))))
    except BaseException as exc:  # everything else is a finding: report its type
        conn.send(("error", f"{type(exc).__name__}: {exc}", verified, tuple(sorted(before - set(os.listdir(path))))))
    conn.close()


def _verify_passes(path: str) -> bool:
    """Whether ``minidb verify`` finds the database at ``path`` intact (it reads it into memory, changing nothing)."""
    from minidb.verify import verify

    try:
        _, reports = verify(path)
    except ValueError:
        return False  # "no database here": refused
    return all(r.ok for r in reports)


@dataclass
class Case:
    setup: str  # a name of SETUPS
    closed: bool  # the template was closed cleanly (else crashed)
    kind: str  # the damage
    file: str  # the file damaged
    verdict: str  # one of VERDICTS
    detail: str  # the error or a summary of the difference
    verify_passed: bool | None = None  # minidb verify found nothing wrong (None: the child gave no answer)
    deleted: tuple = ()  # files a failed open deleted


def _in_child(target, args, timeout: float):
    """Run ``target(*args, conn)`` in a forked child; (its message or None, its exit code)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(*args, child))
    proc.start()
    child.close()
    try:
        result = parent.recv() if parent.poll(timeout) else None
    except EOFError:  # it died before answering
        result = None
    proc.join(1 if result is not None else 0)
    if proc.is_alive():
        proc.kill()
        proc.join()
    return result, proc.exitcode


def run_case(setup: str, template: str, models: list[dict], closed: bool, seed: int, work: str,
             snapshot: str | None = None, timeout: float = 20.0) -> Case:
    """Copy ``template``, damage it with ``seed``, verify and open it in a forked child and judge the outcome."""
    path = os.path.join(work, f"case-{setup}-{seed}")
    shutil.copytree(template, path)
    kind, name, tail = damage(path, random.Random(seed), snapshot)
    result, code = _in_child(_child, (setup, path), timeout)
    shutil.rmtree(path, ignore_errors=True)
    if result is None:
        verdict = "signal" if code is not None and code < 0 else "hang"
        return Case(setup, closed, kind, name, verdict, f"exit code {code}")
    status, payload, verified, deleted = result
    if status in ("detected", "error"):
        return Case(setup, closed, kind, name, "detected" if status == "detected" else "wrong", payload, verified,
                    deleted)
    full = models[-1]
    if payload == full:
        return Case(setup, closed, kind, name, "intact", "", verified)
    if tail and payload in models:
        return Case(setup, closed, kind, name, "lost-tail", f"{len(models) - 1 - models.index(payload)} batches",
                    verified)
    lost = len(set(full.items()) - set(payload.items()))
    extra = len(set(payload.items()) - set(full.items()))
    return Case(setup, closed, kind, name, "wrong", f"{lost} acknowledged entries lost or changed, {extra} extra",
                verified)


def _lock_child(setup: str, path: str, conn) -> None:
    opener, options, _ = SETUPS[setup]
    bs = batches(20)
    try:
        db = opener(DirDevice(path), **options)
        for b in bs[:10]:
            db.write(b)
        os.remove(os.path.join(path, "LOCK"))
        try:
            opener(DirDevice(path), **options)
            conn.send(("wrong", "a second writer opened the database while the first was writing"))
            return
        except DatabaseLockedError:
            pass
        for b in bs[10:]:
            db.write(b)
        db.close()
        db = opener(DirDevice(path), **options)
        got = {(ks, k): v for ks in KEYSPACES for k, v in db.scan(ks)}
        db.close()
        conn.send(("detected", "") if got == model_after(bs) else ("wrong", "the first writer's rows changed"))
    except BaseException as exc:
        conn.send(("wrong", f"{type(exc).__name__}: {exc}"))


def lock_case(setup: str, work: str, timeout: float = 20.0) -> Case:
    """A writer of ``setup`` whose LOCK file is deleted under it: a second writer must be refused (``detected``)
    and the first writer's rows all there after it closes."""
    path = os.path.join(work, f"lock-{setup}")
    result, code = _in_child(_lock_child, (setup, path), timeout)
    shutil.rmtree(path, ignore_errors=True)
    if result is None:
        return Case(setup, False, "lock", "LOCK", "signal" if code is not None and code < 0 else "hang", "")
    return Case(setup, False, "lock", "LOCK", *result)


def campaign(work: str, cases: int, seed: int = 0) -> list[Case]:
    """``cases`` damage cases spread over every set-up and both endings, then a LOCK case per set-up; templates are
    built under ``work``."""
    templates = {}
    for setup in SETUPS:
        for closed in (True, False):
            tag = f"{setup}-{'closed' if closed else 'crashed'}"
            path, snapshot = os.path.join(work, f"template-{tag}"), os.path.join(work, f"snapshot-{tag}")
            templates[setup, closed] = (path, build(setup, path, closed, snapshot), snapshot)
    out = []
    keys = list(templates)
    for i in range(cases):
        setup, closed = keys[i % len(keys)]
        path, models, snapshot = templates[setup, closed]
        out.append(run_case(setup, path, models, closed, seed * 1_000_003 + i, work, snapshot))
    return out + [lock_case(setup, work) for setup in SETUPS]


def tally(cases: list[Case]) -> Counter:
    """Verdict counts (every verdict present, zeros included), the cases whose damage a failed open did not leave
    in place (``deleting opens``), and those ``minidb verify`` passed although the open refused them or read them
    wrong (``verify passed``)."""
    counts = Counter({v: 0 for v in VERDICTS})
    counts.update(c.verdict for c in cases)
    counts["deleting opens"] = sum(1 for c in cases if c.deleted)
    counts["verify passed"] = sum(1 for c in cases if c.verdict in ("detected", "wrong") and c.verify_passed)
    return counts
