from libc.stdint cimport uint64_t

from .buffer_pool cimport Frame
from .redo_records cimport RedoBuffer


cdef class Mtr(RedoBuffer):
    cdef readonly uint64_t seq     # sequence number; frames it changed carry it in Frame.mtr
    cdef public list frames        # frames changed, each once, in first-change order

    cdef inline void touch(self, Frame f):
        if f.mtr != self.seq:
            f.mtr = self.seq
            self.frames.append(f)
