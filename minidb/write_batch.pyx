# cython: language_level=3
"""The write batch both engines apply atomically, in Cython: a load builds several per row, so ``put`` is on the
hot path of every write (as ``rocksdb::WriteBatch::Put`` is in C++).

``minidb.kv`` re-exports everything here; read its docstring for the contract. A batch holds its changes as a
list of ``(keyspace, key, value or None for a delete)`` tuples in ``ops``, which the engines read directly, and
counts the memory it holds in ``nbytes``.
"""

# Bytes a batch accounts per operation beyond its key and value: RocksDB's WriteBatch stores a type tag,
# the column family id and two varint lengths per record (db/write_batch.cc), about 8 bytes.
BATCH_OP_OVERHEAD = 8
cdef Py_ssize_t OP_OVERHEAD = BATCH_OP_OVERHEAD


class BatchTooLarge(MemoryError):
    """A write batch grew past its memory limit (seed 000: rocksdb_max_row_locks / transaction size limits)."""


cpdef check_key(key):
    """Raise ValueError unless ``key`` is non-empty bytes."""
    if not isinstance(key, (bytes, bytearray)) or not key:
        raise ValueError(f"a key must be non-empty bytes, got {key!r}")


cdef class WriteBatch:
    """Changes applied atomically by ``engine.write(batch)``; its ``nbytes`` is the memory it holds.

    With ``limit`` set, a ``put``/``delete`` that would take the batch past ``limit`` bytes raises
    ``BatchTooLarge`` and leaves the batch as it was, so the caller can commit what it has and go on
    ("commit in the middle", seed 000).
    """

    cdef public list ops  # (keyspace, key, value or None for a delete), in the order added
    cdef public Py_ssize_t nbytes  # memory the batch holds: keys, values and per-op overhead
    cdef public object limit  # most bytes the batch may hold, None for no limit
    cdef Py_ssize_t _limit  # ``limit`` as a number, -1 for none (checked without a Python comparison)

    def __init__(self, limit=None):
        if limit is not None and limit <= 0:
            raise ValueError(f"bad write batch memory limit {limit!r}: must be > 0 or None")
        self.ops = []
        self.nbytes = 0
        self.limit = limit
        self._limit = -1 if limit is None else limit

    cdef int _add(self, object keyspace, object key, object value) except -1:
        cdef Py_ssize_t size
        # Exact bytes, the common case, skip the general checks and copies.
        if type(key) is not bytes:
            check_key(key)
            key = bytes(key)
        elif not <bytes>key:
            check_key(key)
        if value is not None and type(value) is not bytes:
            if not isinstance(value, (bytes, bytearray)):
                raise ValueError(f"a value must be bytes, got {type(value).__name__}")
            value = bytes(value)
        size = len(<bytes>key) + (len(<bytes>value) if value is not None else 0) + OP_OVERHEAD
        if self._limit >= 0 and self.nbytes + size > self._limit:
            raise BatchTooLarge(
                f"write batch would hold {self.nbytes + size} bytes, over its limit of {self.limit} bytes "
                f"({len(self.ops)} operations so far): commit it and start a new batch"
            )
        self.ops.append((keyspace, key, value))
        self.nbytes += size
        return 0

    cpdef put(self, object keyspace, key, value):
        """Add: set ``key`` to ``value`` in ``keyspace``."""
        self._add(keyspace, key, value)

    cpdef delete(self, object keyspace, key):
        """Add: remove ``key`` from ``keyspace`` (no error if it is absent)."""
        self._add(keyspace, key, None)

    def clear(self):
        """Drop every change (after a commit, to reuse the batch)."""
        self.ops.clear()
        self.nbytes = 0

    def __len__(self):
        return len(self.ops)

    def logical_bytes(self):
        """Bytes of keys and values the client asked to write: the denominator of write amplification."""
        return sum(len(k) + (len(v) if v is not None else 0) for _, k, v in self.ops)
