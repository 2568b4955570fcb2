"""The damage fuzzer: random damage to every file of a small database of either engine, each damaged copy opened
in a forked child with a time limit, and a verdict per case.

A case takes a template database (built once per engine and ending: closed cleanly, or abandoned without a close as
a killed process leaves it), copies it, damages one file (or two, for a swap) and opens the copy in a child process.
The child reads every key back. The verdict:

* ``detected``: the open or a read raised ``CorruptionError``;
* ``intact``: the database holds exactly the acknowledged batches;
* ``lost-tail``: it holds the acknowledged batches up to some point and none after, and the damage cut or deleted
  the end of the newest log: a log reader cannot tell that from a crash before those batches were written (no log
  format can; RocksDB records the sizes of closed WALs in its MANIFEST, never of the live one). These are counted
  apart: acknowledged data lost without an error, by the one kind of damage that is undetectable;
* ``wrong``: anything else the child returned (other data, another exception type);
* ``hang``: the child outlived its time limit; ``signal``: the child died of a signal.

Every template syncs each batch before acknowledging it (``wal_sync="write"``, ``redo_sync="commit"``), so an
abandoned database holds every acknowledged batch, as after a crash.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
from collections import Counter
from dataclasses import dataclass

from minidb import CorruptionError, DirDevice, WriteBatch, open_btree, open_lsm

KEYSPACES = ("t", "u")
LSM_OPTIONS = dict(memtable_bytes=2048, block_size=256, max_bytes_for_level_base=8192, target_file_size_base=2048,
                   max_bytes_for_level_multiplier=3, level0_file_num_compaction_trigger=2, wal_sync="write")
BTREE_OPTIONS = dict(page_size=4096, buffer_pool_bytes=16 * 4096, redo_log_bytes=64 * 4096, redo_sync="commit")
ENGINES = {"lsm": (open_lsm, LSM_OPTIONS), "btree": (open_btree, BTREE_OPTIONS)}
DAMAGES = ("bitflip", "zero", "truncate", "append", "delete", "swap", "directory")
LOG_FILES = (".log", "MANIFEST-")  # names (suffix or prefix) of the log files, where a torn tail is possible
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


def build(engine: str, path: str, closed: bool) -> list[dict]:
    """Write the template database of ``engine`` at ``path``; the models after each prefix of its batches."""
    opener, options = ENGINES[engine]
    dev = DirDevice(path)
    db = opener(dev, **options)
    bs = batches()
    for b in bs:
        db.write(b)
    if closed:
        db.close()
    dev.close()  # an abandoned engine: its files hold what it wrote, as a killed process leaves them
    return [model_after(bs[:k]) for k in range(len(bs) + 1)]


def damage(path: str, rng: random.Random) -> tuple[str, str, bool]:
    """Damage one file of the database at ``path`` at random: (kind, file, whether it hit a log's end)."""
    names = sorted(n for n in os.listdir(path) if n != "LOCK")  # LOCK holds nothing: the directory's lock
    kind = rng.choice(DAMAGES)
    name = rng.choice(names)
    p = os.path.join(path, name)
    size = os.path.getsize(p)
    logs = [n for n in names if _kind(n) == _kind(name)]
    newest_log = (name.endswith(LOG_FILES[0]) or name.startswith(LOG_FILES[1])) and name == max(logs)
    at_end = False
    if kind == "swap":
        same = [n for n in names if n != name and _kind(n) == _kind(name)]
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
        if kind == "append":
            f.seek(0, 2)
            f.write(rng.randbytes(rng.randint(1, 200)))
            at_end = True
        elif size == 0:
            kind = "truncate"
        elif kind == "bitflip":
            off = rng.randrange(size)
            f.seek(off)
            byte = f.read(1)[0]
            f.seek(off)
            f.write(bytes((byte ^ (1 << rng.randrange(8)),)))
            at_end = off >= size - 4096
        elif kind == "zero":
            off = rng.randrange(size)
            n = min(size - off, rng.randint(1, 4096))
            f.seek(off)
            f.write(bytes(n))
            at_end = off >= size - 4096
        if kind == "truncate":
            new = rng.randrange(size) if size else 0
            f.truncate(new)
            at_end = True
    return kind, name, at_end and newest_log


def _kind(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else name.split("-")[0]


def _child(engine: str, path: str, conn) -> None:
    opener, options = ENGINES[engine]
    try:
        dev = DirDevice(path)
        db = opener(dev, **options)
        got = {(ks, k): v for ks in KEYSPACES for k, v in db.scan(ks)}
        db.close()
        conn.send(("ok", got))
    except CorruptionError as exc:
        conn.send(("detected", str(exc)))
    except BaseException as exc:  # everything else is a finding: report its type
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    conn.close()


@dataclass
class Case:
    engine: str  # "lsm" or "btree"
    closed: bool  # the template was closed cleanly (else abandoned)
    kind: str  # the damage
    file: str  # the file damaged
    verdict: str  # one of VERDICTS
    detail: str  # the error or a summary of the difference


def run_case(engine: str, template: str, models: list[dict], closed: bool, seed: int, work: str,
             timeout: float = 20.0) -> Case:
    """Copy ``template``, damage it with ``seed``, open it in a forked child and judge the outcome."""
    path = os.path.join(work, f"case-{engine}-{seed}")
    shutil.copytree(template, path)
    rng = random.Random(seed)
    kind, name, tail = damage(path, rng)
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(engine, path, child))
    proc.start()
    child.close()
    result = parent.recv() if parent.poll(timeout) else None
    proc.join(1 if result is not None else 0)
    if proc.is_alive():
        proc.kill()
        proc.join()
    shutil.rmtree(path, ignore_errors=True)
    if result is None:
        verdict = "signal" if proc.exitcode is not None and proc.exitcode < 0 else "hang"
        return Case(engine, closed, kind, name, verdict, f"exit code {proc.exitcode}")
    status, payload = result
    if status == "detected":
        return Case(engine, closed, kind, name, "detected", payload)
    if status == "error":
        return Case(engine, closed, kind, name, "wrong", payload)
    full = models[-1]
    if payload == full:
        return Case(engine, closed, kind, name, "intact", "")
    if tail and payload in models:
        return Case(engine, closed, kind, name, "lost-tail", f"{len(models) - 1 - models.index(payload)} batches")
    lost = len(set(full.items()) - set(payload.items()))
    extra = len(set(payload.items()) - set(full.items()))
    return Case(engine, closed, kind, name, "wrong", f"{lost} acknowledged entries lost or changed, {extra} extra")


def campaign(work: str, cases: int, seed: int = 0) -> list[Case]:
    """``cases`` cases spread over both engines and both endings; templates are built under ``work``."""
    templates = {}
    for engine in ENGINES:
        for closed in (True, False):
            path = os.path.join(work, f"template-{engine}-{'closed' if closed else 'crashed'}")
            templates[engine, closed] = (path, build(engine, path, closed))
    out = []
    keys = list(templates)
    for i in range(cases):
        engine, closed = keys[i % len(keys)]
        path, models = templates[engine, closed]
        out.append(run_case(engine, path, models, closed, seed * 1_000_003 + i, work))
    return out


def tally(cases: list[Case]) -> Counter:
    """Verdict counts (every verdict present, zeros included)."""
    counts = Counter({v: 0 for v in VERDICTS})
    counts.update(c.verdict for c in cases)
    return counts
