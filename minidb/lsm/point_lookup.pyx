# cython: language_level=3
"""A point lookup's walk over the SSTs (LevelDB's ``Version::Get`` with ``TableCache::Get``).

A key that is in no memtable may be in any L0 file whose key range holds it, newest first, and then in at most one
file of each deeper level, the one whose range holds it (the levels' files are sorted and disjoint, so a binary
search over their largest keys finds it). Each such file is asked through its filter first: a bloom filter that
says "absent" costs no data block. Only a file whose filter says "maybe" (or that has none) has its index searched
and the one data block that may hold the key read, through the block cache.

Most files are ruled out by their filters. A table of several indexes shares one column family, so each L0 file
spans the keys of every index, and a TPC-C load's unique check asks ten files or more about a key that none of
them holds. The walk, not the block reads, was then most of a get's CPU, so it is compiled: each file costs a few
attribute reads and one filter probe. What it counts is what ``TableCache`` counts (``get_tables_probed``,
``bloom_checked``, ``bloom_useful``, ``bloom_positive`` and the filter's ``page_visits``), added once per lookup.
"""

from .bloom cimport BloomFilterPolicy
from .dbformat cimport compare_user
from .dbformat import seek_key


cdef inline int _cmp(bytes a, bytes b):
    """``compare_user`` of two user keys held as bytes: <0, 0 or >0, Python's order of bytes without its call."""
    return compare_user(<const unsigned char*> a, len(a), <const unsigned char*> b, len(b))


def get_from_files(tables, cf, version, bytes ukey):
    """(found, value) of user key ``ukey`` in the SSTs of ``version`` (column family ``cf``, readers from
    ``tables``, a ``TableCache``): the newest entry wins, and a tombstone is found with the value None."""
    cdef list levels = version.levels
    cdef list files, smallest, largest
    cdef Py_ssize_t level, lo, hi, mid, i
    cdef bytes target = None  # the internal key a block search seeks: made when the first block is searched
    cdef long probed = 0, checked = 0, useful = 0, positive = 0, visits = 0  # added to the counters at the end
    try:
        for level in range(len(levels)):
            files = <list>levels[level]
            if not files:
                continue
            smallest, largest = version.level_keys(level)  # compared in C: a lookup may test many L0 files
            if level == 0:  # newest first
                candidates = [files[i] for i in range(len(files))
                              if _cmp(<bytes>smallest[i], ukey) <= 0 and _cmp(ukey, <bytes>largest[i]) <= 0]
            else:
                lo, hi = 0, len(largest)
                while lo < hi:  # the first file whose largest key is >= ukey
                    mid = (lo + hi) >> 1
                    if _cmp(<bytes>largest[mid], ukey) < 0:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo == len(files) or _cmp(ukey, <bytes>smallest[lo]) < 0:
                    continue
                candidates = (files[lo],)
            for f in candidates:
                probed += 1
                reader = tables.readers.get(f.number)
                if reader is None:
                    reader = tables.get(cf, f)
                may = _filter_says(reader, ukey, &visits)
                if may is not None:
                    checked += 1
                    if not may:
                        useful += 1
                        continue
                    positive += 1
                if target is None:
                    target = seek_key(ukey)
                found, value = tables.search(reader, ukey, target, may)
                if found:
                    return True, value
        return False, None
    finally:
        counters = tables.counters
        for name, n in (("get_tables_probed", probed), ("bloom_checked", checked), ("bloom_useful", useful),
                        ("bloom_positive", positive), ("page_visits", visits)):
            if n:
                counters[name] += n


cdef object _filter_says(reader, bytes ukey, long* visits):
    """The filter's answer for ``ukey`` in the table ``reader`` reads: False (surely absent), True (maybe), None (no
    usable filter). A pinned filter's page visit is added to ``visits``; one read through the block cache is looked
    up there by ``TableReader.may_contain``, which counts its own."""
    filt = reader.pinned_filter
    if filt is None:
        return reader.may_contain(ukey)
    visits[0] += 1
    policy = reader.policy
    if type(policy) is BloomFilterPolicy and type(filt) is bytes:  # the engine's own: its C probe, no Python call
        return (<BloomFilterPolicy>policy).may_match(ukey, len(ukey), <bytes>filt, len(<bytes>filt))
    return bool(policy.key_may_match(ukey, filt))  # another policy (exercise 01's, a student's)
