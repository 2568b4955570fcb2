"""Simulated time: the clock engines report background work and stalls to (the full model lands with the
workloads issue)."""

from .clock import Clock

__all__ = ["Clock"]
