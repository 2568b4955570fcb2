"""Compressed pages: InnoDB's ``ROW_FORMAT=COMPRESSED`` (``page0zip``), reduced to what changes IO, CPU and memory.

In a compressed tablespace (``open_btree(key_block_size=K)``) every page lives on disk as an image of ``K`` bytes
(the *key block size*, 1 to 16 KiB) instead of ``page_size`` bytes, and in the buffer pool twice: the uncompressed
frame that every search and change works on, and this compressed copy, which is what gets written back.

**Body and modification log.** The compressed copy is a zlib stream of the page as it was at its last compression
(the *body*), followed by a *modification log*: every change made since, appended in the redo log's own encoding
(PUT, DEL, FIELD records, redo_records.pyx) instead of compressing the page again. Reading a page back expands the
body and replays the log on it. A change whose log entry fits in the image's free room costs a memcpy; when it does
not fit, the page is compressed again from its uncompressed frame, and the log starts empty
(``compress_ops`` + 1, and ``compress_ops_ok`` + 1 if the result fits).

**Compression failure.** An insert that does not fit even after recompressing is undone in the frame and reported
as ``PUT_FULL``: the tree splits the page, as InnoDB splits on a failed ``page_zip_compress``. That is why
compressed pages hold fewer rows than the same page uncompressed when the rows do not compress well, and why the
table's size is a number of whole key blocks: compression can only save a multiple of them. The counters are
INFORMATION_SCHEMA.INNODB_CMP's: ``compress_ops``, ``compress_ops_ok``, ``uncompress_ops``.

Deletes and the file-space header's field writes are logged the same way. They never make a page larger, yet at the
very edge of a block zlib's output is not strictly monotone: a page with a record fewer can compress a few bytes
larger, so a delete that had to compress the page again could find it no longer fits. InnoDB never meets this, since
its compressed page keeps a directory in which a delete only marks a record. Here an insert leaves room in the image
for one delete of the longest key on the page (``reserve``, ``zip_put``), so the next delete is appended to the log;
a later one that finds no room compresses the page again into the whole block, at zlib's default and best levels and
then with its other strategies, before giving up with an error (``must_compress``). In 4,500 random loads and
deletes (blocks of 1 to 8 KiB; keys ascending, descending or shuffled) 8 gave up, all on 1 KiB blocks, before the
reserve; none of 7,500 since. A page rebuilt wholesale (a split's halves, a merge, a new root) is compressed at
once; a merge is tried on a copy first. Redo replay changes the frame directly: it marks the copy stale (``body``
None) and the page is compressed when it is next written.

Image layout (``block`` bytes, integers little-endian; the first 16 bytes are those of an uncompressed page so that
the checksum, page number and LSN are read the same way)::

    0   checksum u32   as a page's (page.checksum): crc32 of the image with this field zeroed
    4   page no u32
    8   LSN u64
    16  marker u8      ZIP_MARKER (0x5A): no uncompressed page type has it
    17  block u8       the key block size in KiB
    18  body u16       bytes of the zlib stream
    20  mlog u16       bytes of the modification log
    22  entries u16    records in the modification log
    24  page 16..24    the page's type, level, flags and index id as they are now
    32  page 32..40    the page's sibling links as they are now
    40  body, then the modification log, then zeros to the end of the block

Like InnoDB's page_zip, which keeps the page header uncompressed, the image holds the header fields a change may
rewrite (flags, sibling links) outside the body: writing them never needs room in the block, so linking a page that
just filled its block in a split cannot fail. Record counts and the heap top come from the body and the log.

The body compresses bytes 16 .. heap top of an index page followed by its slot directory (the free gap between
them is zeros and is left out); other pages (page 0, free pages) are compressed whole from byte 16.

*Deviation from InnoDB:* InnoDB's page_zip stores the records' heap in compressed form but keeps the slot
directory and some per-record fields uncompressed at the end of the block, and logs a record's new bytes rather
than a redo record. The sizes and the fit decision come out alike; the layout is simpler to read.
"""

from cpython.bytearray cimport PyByteArray_Resize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.string cimport memcpy

import zlib

from ..errors import CorruptionError
from .page cimport (HEADER_SIZE, OFF_GARBAGE, OFF_HEAP_TOP, OFF_LSN, OFF_NRECS, OFF_PAGE_NO, OFF_PREV, OFF_TYPE,
                    PUT_FULL, REC_HEADER, SLOT_SIZE, TYPE_INDEX, page_compact, page_put, rd16, rd64, rec_at, wr16,
                    wr32, wr64)
from .redo_records cimport RedoBuffer

from .page import checksum
from .redo_records import apply, decode

KEY_BLOCK_SIZES = (1024, 2048, 4096, 8192, 16384)  # KEY_BLOCK_SIZE 1, 2, 4, 8, 16 (KiB)
# zlib's strategies a page at the edge of its block tries after the best level, most thorough first (memLevel 9
# with the default strategy, then filtered data, run lengths and Huffman codes alone).
EDGE_STRATEGIES = (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_RLE, zlib.Z_HUFFMAN_ONLY)
DEFAULT_LEVEL = 6  # innodb_compression_level's default (zlib's own default too)


def max_record_bytes(int block):
    """Most bytes of key + value one row may hold in a compressed tablespace: two such rows, not compressible at
    all, still fit one block with the page header and slots (zlib adds about 11 bytes to data it cannot shrink), and
    one with the room kept for a delete of its key, so that splitting a page whose compression failed always makes
    progress."""
    return (block - IMAGE_HEADER - 40) // 2 - REC_HEADER - SLOT_SIZE


cdef class ZipStats:
    """What compression cost so far (see page_zip.pxd); one per engine, shared by its pages' copies."""

    def __cinit__(self, int level=DEFAULT_LEVEL):
        if not 1 <= level <= 9:
            raise ValueError(f"bad compression level {level!r}: zlib levels are 1 to 9")
        self.level = level

    def as_dict(self):
        """The counters by name (INNODB_CMP's names for the first three)."""
        return {"compress_ops": self.compress_ops, "compress_ops_ok": self.compress_ok,
                "uncompress_ops": self.decompress_ops, "compressed_in_bytes": self.compressed_in,
                "decompressed_out_bytes": self.decompressed_out, "mlog_appends": self.mlog_appends}


cdef inline int _body_end(const uchar* p, int ps) noexcept:
    """End of the heap part of the page that is compressed (the slot directory follows it)."""
    if p[OFF_TYPE] == TYPE_INDEX:
        return rd16(p + OFF_HEAP_TOP)
    return ps


cdef inline int _largest_key(const uchar* p, int ps) noexcept:
    """Bytes of the longest key on index page ``p`` (0 for another page)."""
    cdef int i, largest = 0
    if p[OFF_TYPE] != TYPE_INDEX:
        return 0
    for i in range(rd16(p + OFF_NRECS)):
        largest = max(largest, rd16(rec_at(p, ps, i)))
    return largest


cdef inline int _slots(const uchar* p) noexcept:
    """Bytes of the slot directory that are compressed after the heap."""
    if p[OFF_TYPE] == TYPE_INDEX:
        return SLOT_SIZE * rd16(p + OFF_NRECS)
    return 0


cdef class PageZip:
    """The compressed copy of one page (see the module docstring)."""

    def __cinit__(self, int block, ZipStats stats):
        if block not in KEY_BLOCK_SIZES:
            raise ValueError(f"bad key_block_size {block!r}: must be one of {KEY_BLOCK_SIZES} bytes")
        self.block = block
        self.stats = stats
        self.mlog = RedoBuffer()
        PyByteArray_Resize(self.mlog.buf, 0)  # a redo buffer starts at 64 KiB; a log never passes one block
        self.mlog.reset(0)

    cdef int reserve(self) noexcept:
        """Bytes an image keeps free for one delete of any key the page holds: its DEL entry in the log."""
        return DEL_ENTRY + self.largest_key

    cdef int room(self) noexcept:
        """Bytes still free in the image for modification log entries (negative: none; stale: none)."""
        if self.body is None:
            return -1
        return self.block - IMAGE_HEADER - <int> PyBytes_GET_SIZE(self.body) - <int> self.mlog.n

    cdef bint compress(self, const uchar* p, int ps, int level=0, int strategy=-1, bint keep_reserve=True) except -1:
        """Compress the page ``p`` anew (at ``level``, 0: the stats' level; with zlib's ``strategy``, -1: its
        default); True (body replaced, log emptied) if the image fits the block with room for a delete
        (``reserve``; without, if not ``keep_reserve``), else False with nothing changed.

        A page with garbage (bytes of deleted records still in its heap) is compressed from a compacted copy, so
        that a page never compresses larger for a delete; the page expanded from it has the same records."""
        cdef bytes copy
        if p[OFF_TYPE] == TYPE_INDEX and rd16(p + OFF_GARBAGE):
            copy = PyBytes_FromStringAndSize(<const char*> p, ps)
            p = <const uchar*> PyBytes_AS_STRING(copy)
            page_compact(<uchar*> p, ps)
        cdef int end = _body_end(p, ps), slots = _slots(p), largest = _largest_key(p, ps)
        cdef bytes raw = PyBytes_FromStringAndSize(<const char*> p + BODY_START, end - BODY_START + slots)
        if slots:
            memcpy(<uchar*> PyBytes_AS_STRING(raw) + end - BODY_START, p + ps - slots, slots)
        cdef bytes body
        if strategy < 0:
            body = zlib.compress(raw, level or self.stats.level)
        else:  # any strategy writes a stream zlib.decompress reads; memLevel 9 is zlib's most thorough
            deflate = zlib.compressobj(level or self.stats.level, zlib.DEFLATED, zlib.MAX_WBITS, 9, strategy)
            body = deflate.compress(raw) + deflate.flush()
        self.stats.compress_ops += 1
        self.stats.compressed_in += end - BODY_START + slots
        if IMAGE_HEADER + PyBytes_GET_SIZE(body) + (DEL_ENTRY + largest if keep_reserve else 0) > self.block:
            return False
        self.largest_key = largest
        self.stats.compress_ok += 1
        self.body = body
        self.mlog.reset(0)
        return True

    cdef int must_compress(self, Frame f) except -1:
        """Compress a page that cannot have grown since it last fit (a delete, a field write, a subset of its
        records). zlib's output is not strictly monotone in its input, so a page at the very edge of its block may
        need zlib's best level (9), and then its other strategies (``EDGE_STRATEGIES``), to fit again; RuntimeError
        if none does."""
        cdef int ps = len(f.buf), strategy
        # the whole block, not the reserve: the stream is the same whichever limit it is held to
        if self.compress(f.data, ps, 0, -1, False) or self.compress(f.data, ps, 9, -1, False):
            return 0
        for strategy in EDGE_STRATEGIES:
            if self.compress(f.data, ps, 9, strategy, False):
                return 0
        raise RuntimeError(f"page {f.page_no} does not fit its {self.block}-byte compressed block after a change "
                           f"that should not have grown it")

    @property
    def free(self):
        """Bytes of the block a modification log entry may still take (-1 when stale)."""
        return self.room()

    @property
    def delete_reserve(self):
        """Bytes of ``free`` that a put leaves for one delete (``reserve``)."""
        return self.reserve()

    @property
    def mlog_bytes(self):
        """Bytes of the modification log."""
        return self.mlog.n

    @property
    def mlog_entries(self):
        """Records in the modification log."""
        return self.mlog.nrecords

    @property
    def stale(self):
        """True after redo replay changed the frame: compressed again at the next write."""
        return self.body is None

    def mark_stale(self):
        """The frame changed outside the mtr (redo replay): recompress before the next write."""
        self.body = None
        self.mlog.reset(0)

    def copy_from(self, PageZip other):
        """Take ``other``'s image as it is, body and modification log: the compressed copy of a page copied byte for
        byte (InnoDB's page_zip_copy_recs), which then never has to compress again."""
        self.body = other.body
        self.largest_key = other.largest_key
        self.mlog.reset(0)
        cdef int nm = <int> other.mlog.n
        if nm:
            memcpy(self.mlog.reserve(nm), <uchar*> (<char*> other.mlog.buf), nm)
            self.mlog.nrecords = other.mlog.nrecords

    def image(self, Frame f):
        """The ``block``-byte image of ``f`` to write (checksum stamped): header, body, modification log."""
        if self.body is None:
            self.must_compress(f)
        cdef int nb = <int> PyBytes_GET_SIZE(self.body), nm = <int> self.mlog.n
        cdef bytearray out = bytearray(self.block)
        cdef uchar* o = <uchar*> (<char*> out)
        wr32(o + OFF_PAGE_NO, f.page_no)
        wr64(o + OFF_LSN, rd64(f.data + OFF_LSN))
        o[16] = ZIP_MARKER
        o[17] = <uchar> (self.block >> 10)
        wr16(o + 18, nb)
        wr16(o + 20, nm)
        wr16(o + 22, self.mlog.nrecords)
        memcpy(o + HEAD_COPY, f.data + BODY_START, 8)
        memcpy(o + HEAD_COPY + 8, f.data + OFF_PREV, 8)
        memcpy(o + IMAGE_HEADER, PyBytes_AS_STRING(self.body), nb)
        memcpy(o + IMAGE_HEADER + nb, <uchar*> (<char*> self.mlog.buf), nm)
        wr32(o, checksum(out))  # the page checksum's function, so doublewrite and readers check both alike
        return bytes(out)


def is_image(buf):
    """True if ``buf`` looks like a compressed image (its marker byte), whatever its checksum."""
    return len(buf) > 17 and buf[16] == ZIP_MARKER


def expand(buf, int page_size, ZipStats stats):
    """(page, PageZip) from a checked image: the body decompressed, the modification log replayed on it.
    CorruptionError (naming what is wrong) if the image's fields or zlib stream do not make a page."""
    cdef bytes image = bytes(buf)
    cdef int block = len(image)
    cdef const uchar* b = <const uchar*> PyBytes_AS_STRING(image)
    if block not in KEY_BLOCK_SIZES or b[16] != ZIP_MARKER or b[17] != (block >> 10):
        raise CorruptionError(f"not a {block}-byte compressed page image (marker {b[16]:#04x}, block {b[17]} KiB)")
    cdef int nb = rd16(b + 18), nm = rd16(b + 20), entries = rd16(b + 22)
    if IMAGE_HEADER + nb + nm > block:
        raise CorruptionError(f"compressed image: body of {nb} and log of {nm} bytes overrun its {block} bytes")
    body = image[IMAGE_HEADER:IMAGE_HEADER + nb]
    try:
        raw = zlib.decompress(body)
    except zlib.error as exc:
        raise CorruptionError(f"compressed image: zlib stream is damaged ({exc})") from None
    stats.decompress_ops += 1
    stats.decompressed_out += len(raw)
    page = bytearray(page_size)
    cdef uchar* p = <uchar*> (<char*> page)
    cdef int n_raw = len(raw), end, slots
    if n_raw < HEADER_SIZE - BODY_START or n_raw > page_size - BODY_START:
        raise CorruptionError(f"compressed image: expands to {n_raw} bytes, not a {page_size}-byte page")
    memcpy(p + BODY_START, <const uchar*> (<bytes> raw), HEADER_SIZE - BODY_START)  # the type, heap top, count
    if p[OFF_TYPE] == TYPE_INDEX:
        end = rd16(p + OFF_HEAP_TOP)
        slots = SLOT_SIZE * rd16(p + OFF_NRECS)
        if end < HEADER_SIZE or end - BODY_START + slots != n_raw or end + slots > page_size:
            raise CorruptionError(f"compressed image: heap top {end} and {slots // SLOT_SIZE} slots do not match "
                                  f"the {n_raw} bytes its body expands to")
        memcpy(p + BODY_START, <const uchar*> (<bytes> raw), end - BODY_START)
        memcpy(p + page_size - slots, <const uchar*> (<bytes> raw) + end - BODY_START, slots)
    else:
        memcpy(p + BODY_START, <const uchar*> (<bytes> raw), n_raw)
    memcpy(p, b, BODY_START)
    log = image[IMAGE_HEADER + nb:IMAGE_HEADER + nb + nm]
    records = decode(log, "compressed page modification log") if nm else []
    if len(records) != entries:
        raise CorruptionError(f"compressed image: modification log holds {len(records)} records, header says "
                              f"{entries}")
    for rec in records:
        apply(page, rec)
    memcpy(p + BODY_START, b + HEAD_COPY, 8)  # the fields written outside the log: as they are now
    memcpy(p + OFF_PREV, b + HEAD_COPY + 8, 8)
    z = PageZip(block, stats)
    z.body = body
    cdef PageZip zz = z
    zz.largest_key = _largest_key(p, page_size)
    cdef uchar* o = zz.mlog.reserve(nm) if nm else NULL
    if nm:
        memcpy(o, <const uchar*> PyBytes_AS_STRING(log), nm)
        zz.mlog.nrecords = entries
    return page, z


# -- the hooks of every change to a page with a compressed copy ----------------------------------------------------
cdef int zip_put(Frame f, int ps, const uchar* key, int klen, const uchar* val, int vlen,
                 int fill_limit) except -1:
    """page_put for a page with a compressed copy: log the change if it fits the image, else recompress; if even
    that does not fit, undo it in the frame and return PUT_FULL (compression failure: the caller splits)."""
    cdef PageZip z = <PageZip> f.zip
    cdef int r
    if z.room() >= PUT_ENTRY + klen + vlen + DEL_ENTRY + max(z.largest_key, klen):
        r = page_put(f.data, ps, key, klen, val, vlen, fill_limit)
        if r != PUT_FULL:
            z.mlog.log_put(f.page_no, key, klen, val, vlen)
            z.stats.mlog_appends += 1
            z.largest_key = max(z.largest_key, klen)
        return r
    cdef bytes saved = PyBytes_FromStringAndSize(<const char*> f.data, ps)
    r = page_put(f.data, ps, key, klen, val, vlen, fill_limit)
    if r == PUT_FULL or z.compress(f.data, ps):
        return r
    memcpy(f.data, PyBytes_AS_STRING(saved), ps)
    return PUT_FULL


cdef int zip_del(Frame f, const uchar* key, int klen) except -1:
    """A record was deleted from the frame: log it, or recompress (``must_compress``: a smaller page fits, bar
    zlib's edge cases)."""
    cdef PageZip z = <PageZip> f.zip
    if z.room() >= DEL_ENTRY + klen:
        z.mlog.log_del(f.page_no, key, klen)
        z.stats.mlog_appends += 1
        return 0
    return z.must_compress(f)


cdef int zip_field(Frame f, int offset, int n) except -1:
    """``n`` header bytes at ``offset`` were written in the frame: nothing to do for the fields the image keeps
    outside the body; else log them, or recompress."""
    cdef PageZip z = <PageZip> f.zip
    if (BODY_START <= offset and offset + n <= BODY_START + 8) or (OFF_PREV <= offset and offset + n <= OFF_PREV + 8):
        return 0
    if z.room() >= FIELD_ENTRY + n:
        z.mlog.log_field(f.page_no, offset, f.data + offset, n)
        z.stats.mlog_appends += 1
        return 0
    return z.must_compress(f)


cdef int zip_rebuild(Frame f) except -1:
    """The frame was rebuilt wholesale (INIT, CUT): compress it now."""
    return (<PageZip> f.zip).must_compress(f)


def fits(bytearray page, PageZip like):
    """True if ``page`` would compress into a block of ``like``'s size (a merge's trial, counted as a compression
    in ``like``'s stats); nothing is changed."""
    trial = PageZip(like.block, like.stats)
    return (<PageZip> trial).compress(<const uchar*> (<char*> page), len(page))
