"""Where a full page splits, in C: the engine's own split policy computed on the page's bytes.

A split policy (split_policy.py) answers from a list of record sizes, which the engine would have to build from
the page (one Python int per record, 700 of them in a 16 KiB leaf of short keys) at every split. With the
engine's default policy it need not: ``default_split`` reads the sizes from the slot directory as it goes and
gives the answer ``DefaultSplitPolicy.choose_split`` gives for them (tests/btree/test_split_plan.py checks the two
agree), and ``middle_split``, the byte-balanced rule both use, runs over prefix sums in a C array.

A plug-in policy still gets its list: tree.py calls ``default_split`` only when the policy is the default one.
"""

from libc.stdlib cimport free, malloc

from .buffer_pool cimport Frame
from .page cimport (FLAG_LAST_AT_END, OFF_FLAGS, REC_HEADER, SLOT_SIZE, page_lower_bound, page_nrecs, rec_at,
                    rec_size, uchar)


cdef int middle_of(const long* cum, int n, long capacity) noexcept nogil:
    """``middle_split`` over the prefix sums ``cum`` of ``n`` sizes (cum[i]: bytes of records 0..i); -1 if no
    split fits."""
    cdef long total = cum[n - 1]
    cdef int lo = 0, hi = n, mid, j, best = -1
    cdef long gap, best_gap = 0
    while lo < hi:  # bisect_left(cum, total / 2): the first index holding at least half the bytes
        mid = (lo + hi) >> 1
        if 2 * cum[mid] < total:
            lo = mid + 1
        else:
            hi = mid
    for j in range(lo + 1, lo - 1, -1):  # records on the left so that it holds at least half the bytes, or one fewer
        if 1 <= j <= n - 1 and cum[j - 1] <= capacity and total - cum[j - 1] <= capacity:
            return j
    # Only very large records get here: the most balanced split that fits (the first of equals).
    for j in range(1, n):
        if cum[j - 1] <= capacity and total - cum[j - 1] <= capacity:
            gap = 2 * cum[j - 1] - total
            if gap < 0:
                gap = -gap
            if best < 0 or gap < best_gap:
                best, best_gap = j, gap
    return best


cdef long* prefix_sums(object sizes, Py_ssize_t n) except NULL:
    cdef long* cum = <long*> malloc(max(n, 1) * sizeof(long))
    cdef long total = 0
    cdef Py_ssize_t i
    if cum == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            total += <long> sizes[i]
            cum[i] = total
    except BaseException:
        free(cum)  # a size that is not a number (a plug-in policy's list): nothing to hand back
        raise
    return cum


def middle_split(sizes, long capacity):
    """The k closest to halving the bytes such that both halves fit in ``capacity``: the first k records
    (``sizes[:k]``) hold at least half the bytes, or k - 1 do if k does not fit; otherwise, for very large records,
    the most balanced split that fits. ValueError if none does."""
    cdef Py_ssize_t n = len(sizes)
    cdef long* cum
    cdef int k
    if n == 0:
        raise ValueError("no records to split")
    cum = prefix_sums(sizes, n)
    k = middle_of(cum, <int> n, capacity)
    total = cum[n - 1]
    free(cum)
    if k < 0:
        raise ValueError(f"{n} records of {total} bytes cannot be split into two pages of {capacity} bytes")
    return k


def default_split(Frame frame, bytes key, int value_len, long capacity):
    """(pos, found, k) for a split of the full page of ``frame`` once ``key`` with a ``value_len``-byte value is
    in it: ``pos`` and ``found`` as page_lower_bound's, and ``k`` what DefaultSplitPolicy.choose_split answers for
    the sizes of its records with the new one (it replaces an equal key's record, else goes in at ``pos``):
    ``pos`` for an ascending insert (at the end, after an insert at the end), else ``middle_split``."""
    cdef const uchar* p = frame.data
    cdef int ps = len(frame.buf)
    cdef int n = page_nrecs(p), m, i, src, k
    cdef bint found
    cdef int pos = page_lower_bound(p, ps, <const uchar*> key, <int> len(key), &found)
    cdef long total = 0
    cdef long* cum
    m = n if found else n + 1
    if not found and pos == n and p[OFF_FLAGS] & FLAG_LAST_AT_END and 1 <= pos <= m - 1:
        return pos, found, pos
    cum = <long*> malloc(m * sizeof(long))
    if cum == NULL:
        raise MemoryError()
    for i in range(m):
        if i == pos:
            total += REC_HEADER + SLOT_SIZE + len(key) + value_len
        else:
            src = i - 1 if not found and i > pos else i
            total += rec_size(rec_at(p, ps, src)) + SLOT_SIZE
        cum[i] = total
    k = middle_of(cum, m, capacity)
    free(cum)
    if k < 0:
        raise ValueError(f"{m} records of {total} bytes cannot be split into two pages of {capacity} bytes")
    return pos, found, k
