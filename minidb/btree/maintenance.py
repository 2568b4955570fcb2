"""The B+tree engine's background work, done inside the client calls that need it (the engine is single-threaded):

* before a client write (``before_write``): the page cleaner if it is due (page_cleaner.py), which writes dirty
  pages and merges buffered changes into a few leaves (``merge_leaf``), then the redo log's free check, which forces
  page writes and checkpoints as the log fills (checkpoint.py);
* after a client commit (``count_commit``): the commit counted, which paces a page cleaner that has no clock.
"""

from __future__ import annotations

from functools import partial


def before_write(engine) -> None:
    """Before a client write of ``engine`` (a BTreeEngine): the page cleaner if due, then the redo log's free
    check."""
    with engine.failures.guard():
        cleaner = engine.cleaner
        if cleaner is not None and cleaner.due():
            with engine.device.stats.cause("page-cleaner"):
                cleaner.run(engine.pool, engine.pager, partial(merge_leaf, engine), engine.change_buffer,
                            engine.free_check.modified_age(), engine.redo.capacity)
        engine.free_check.run()


def merge_leaf(engine, page_no: int, tag: str) -> None:
    """Read a leaf with buffered changes (reading merges them) in its own mini-transaction."""
    engine.pager.fetch(page_no, tag)
    if engine.mtrs.open is not None:
        engine.mtrs.commit(client=False)
    engine.pager.release()


def count_commit(engine) -> None:
    """Count a client commit of ``engine`` (and its page cleaner's pace)."""
    engine.counters["commits"] += 1
    if engine.cleaner is not None:
        engine.cleaner.commits += 1
