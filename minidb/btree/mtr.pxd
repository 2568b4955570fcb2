from libc.stdint cimport uint32_t, uint64_t

from .buffer_pool cimport Frame
from .page cimport uchar
from .redo_records cimport RedoBuffer


cdef class Mtr(RedoBuffer):
    cdef readonly uint64_t seq     # sequence number; frames it changed carry it in Frame.mtr
    cdef public list frames        # frames changed, each once, in first-change order
    cdef public bint keeps_undo    # part of a client batch: record each key's value before the batch changed it
    cdef readonly RedoBuffer undo  # the UNDO records, written to the log only if the batch goes on after this mtr

    cdef inline void touch(self, Frame f):
        if f.mtr != self.seq:
            f.mtr = self.seq
            self.frames.append(f)

    cdef int undo_in_page(self, uint32_t index_id, const uchar* key, int klen, Frame f) except -1
    cdef int undo_at(self, uint32_t index_id, const uchar* key, int klen, Frame f, int pos, bint found) except -1
