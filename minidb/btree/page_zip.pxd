# Compressed pages (InnoDB's page_zip): a page's compressed copy, its modification log, and the hooks every change
# to a page of a compressed tablespace goes through. See page_zip.pyx and FORMAT.md.

from .buffer_pool cimport Frame
from .page cimport uchar
from .redo_records cimport RedoBuffer

cdef enum:
    ZIP_MARKER = 0x5A   # byte 16 of a compressed image (no uncompressed page type has this value)
    IMAGE_HEADER = 40   # bytes of the image header, before the body
    HEAD_COPY = 24      # where the image keeps the page's current bytes 16..24 and 32..40 (type .. index id, links)
    BODY_START = 16     # page bytes before this (checksum, page number, LSN) live in the image header instead
    PUT_ENTRY = 9       # bytes of a PUT record besides key and value (type, page, klen, vlen)
    DEL_ENTRY = 7       # bytes of a DEL record besides the key
    FIELD_ENTRY = 8     # bytes of a FIELD record besides the data


cdef class ZipStats:
    cdef public unsigned long long compress_ops       # compressions tried (INNODB_CMP.compress_ops)
    cdef public unsigned long long compress_ok        # compressions whose result fit (compress_ops_ok)
    cdef public unsigned long long decompress_ops     # compressed images expanded (uncompress_ops)
    cdef public unsigned long long compressed_in      # page bytes fed to zlib's compressor
    cdef public unsigned long long decompressed_out   # page bytes zlib's decompressor produced
    cdef public unsigned long long mlog_appends       # changes appended to a modification log instead
    cdef public int level                             # zlib level (innodb_compression_level)


cdef class PageZip:
    cdef readonly int block           # bytes of the compressed image: the key block size
    cdef public bytes body            # zlib stream of the page at its last compression; None: to be recompressed
    cdef RedoBuffer mlog              # changes since the last compression, encoded as redo records
    cdef ZipStats stats               # where compressions are counted
    cdef int largest_key              # longest key the page held since its last compression (a delete's reserve)

    cdef int room(self) noexcept
    cdef int reserve(self) noexcept
    cdef bint compress(self, const uchar* p, int ps, int level=*, int strategy=*, bint keep_reserve=*) except -1
    cdef int must_compress(self, Frame f) except -1


cdef int zip_put(Frame f, int ps, const uchar* key, int klen, const uchar* val, int vlen,
                 int fill_limit) except -1
cdef int zip_del(Frame f, const uchar* key, int klen) except -1
cdef int zip_field(Frame f, int offset, int n) except -1
cdef int zip_rebuild(Frame f) except -1
