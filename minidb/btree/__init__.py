"""The B+tree engine (InnoDB-like): ``open_btree(device, ...)`` returns a ``BTreeEngine``.

One module per concept, from the bytes up (FORMAT.md describes the on-disk formats):

* ``page`` (Cython): the slotted page: header, records, slot directory, checksum.
* ``buffer_pool`` (Cython): frames, the LRU list with midpoint insertion, the flush list.
* ``redo_records`` (Cython): redo record encoding, decoding and replay; ``mtr`` (Cython): the mini-transaction.
* ``tree_core`` (Cython): the cached fast path of get/put/delete; ``tree``: splits, merges, misses, scans.
* ``split_policy``: how a leaf splits (exercise 02's plug point; every plug point is plugged in one way,
  minidb/plug_point.py).
* ``change_buffer_policy``: what the change buffer buffers and how it merges (exercise 04's plug point);
  ``torn_page_repair``: how recovery repairs torn pages (exercise 05's).
* ``pager``: page reads, eviction, page writes in write-ahead order; ``tablespace``, ``doublewrite``: the files.
* ``redo_log``: groups, sync policy, checkpoint blocks; ``checkpoint``: fuzzy and sharp checkpoints.
* ``fsp``: page 0 and page allocation; ``catalog``: keyspaces; ``change_buffer``: buffered secondary-index changes.
* ``page_cleaner``: background flushing; ``recovery``: doublewrite repair and redo replay; ``rollback``: the open
  batch taken back from its undo.
* ``engine``: ``BTreeEngine``, the client API and the wiring, beside its parts: ``mini_transactions`` (changes as
  redo groups), ``failures`` (dead, stopped, recovered in place), ``transaction_slot`` (the in-place transaction's
  way in, used by ``in_place``), ``maintenance`` (background work in client calls), ``engine_stats`` (``stats()``).
* ``verify``: the structural check; ``options``: the options ``open_btree`` (below) passes through whole.
"""

from ..storage.device import Device
from .engine import BTreeEngine
from .options import BTreeOptions, PageCleanerOptions, parse_options
from .pager import BufferPoolFull
from .split_policy import DefaultSplitPolicy, SplitPolicy


def open_btree(device: Device, **options) -> BTreeEngine:
    """Open (or create) the B+tree database on ``device``; an existing one is recovered from its redo log. See
    ``BTreeOptions`` (options.py) for every option.

    A wrong option name or value raises ValueError naming it.
    """
    if not isinstance(device, Device):
        raise ValueError(f"bad device {device!r}: must be a minidb.storage Device (SimDevice or DirDevice)")
    return BTreeEngine(device, parse_options(options))

__all__ = [
    "BTreeEngine",
    "BTreeOptions",
    "BufferPoolFull",
    "DefaultSplitPolicy",
    "PageCleanerOptions",
    "SplitPolicy",
    "open_btree",
]
