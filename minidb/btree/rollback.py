"""Taking back the batch that did not commit: recovery's last step (engine.py), from the undo its groups carry.

After redo replay (recovery.py) the pages hold every change the log holds, the open batch's included; its undo
records give, for every key it changed, the value it had before. ``roll_back`` puts those values back, newest first.
"""

from __future__ import annotations

from ..errors import CorruptionError
from . import fsp


def roll_back(engine, undo: list) -> None:
    """Take back the changes of the batch that did not commit, newest first, from its undo records.

    The rollback is an ordinary sequence of logged changes (it may split or merge pages, and merge buffered
    changes into the leaves it reads, like any other), done in mtrs whose UNDONE records say how many undo
    records each has taken back: if it is cut short by a crash, the next recovery finishes it. Its last group
    ends with COMMIT, which closes the batch in the log. Nothing is buffered here: the change buffer learns
    which leaves have room only as they leave the pool, which it starts to watch after recovery.

    Before anything else: the entries the batch buffered (its undo records of the change buffer's tree) are
    removed, all at once, so that no read merges them and no page merge frees a leaf they wait for (removing
    is idempotent, so they need no UNDONE count); then the leaves that replay brought into the pool, where no
    read will merge them, get their buffered changes merged. All in the rollback's own mtrs, so that no group
    ends with COMMIT while the batch is still open.
    """
    mtrs, change_buffer, pager = engine.mtrs, engine.change_buffer, engine.pager
    engine.recovery["rolled_back"] = len(undo)
    mtrs.begin()
    for index_id, key, old in undo:
        if index_id == fsp.CHANGE_BUFFER_INDEX_ID:
            if old is not None:
                raise CorruptionError(f"redo log: undo record puts back change buffer entry {key.hex()}, but "
                                      f"a batch only ever adds entries")
            change_buffer.discard(key)
            pager.release()
            _step(mtrs, 0)
    for page_no in sorted(change_buffer.pending):
        frame = engine.pool.peek(page_no)
        if frame is not None:
            pager.fix(frame)  # the merge may read change buffer pages: keep this one in the pool
            change_buffer.merge(frame)
            pager.release()
            _step(mtrs, 0)
    done = 0
    for index_id, key, old in reversed(undo):
        tree = engine.tree_by_id.get(index_id)
        if tree is None:
            raise CorruptionError(f"redo log: undo record for index {index_id}, which does not exist")
        if index_id != fsp.CHANGE_BUFFER_INDEX_ID:  # those were removed above
            if old is None:
                tree.delete(key)
            else:
                tree.put(key, old)
            pager.release()
        done += 1
        if _step(mtrs, done):
            done = 0
    if done:
        mtrs.open.undone(done)
    mtrs.commit(client=False)


def _step(mtrs, done: int) -> bool:
    """Once the rollback's mtr has changed its share of the pool: log that ``done`` more undo records are taken
    back, append the group (the batch still open) and go on in a new mtr; True if it did."""
    if len(mtrs.open.frames) < mtrs.limit:
        return False
    if done:
        mtrs.open.undone(done)
    mtrs.commit(client=False, last=False)
    mtrs.begin()
    return True
