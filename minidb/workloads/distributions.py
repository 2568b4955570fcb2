"""Random choices the benchmarks make, drawn from a seeded ``numpy.random.Generator`` so every run repeats exactly.

Each function names the benchmark whose rule it follows.
"""

from __future__ import annotations

import numpy as np

DIGITS = np.frombuffer(b"0123456789", dtype="S1")
BASE64 = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", dtype="S1")
LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", dtype="S1")
LOWERCASE = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype="S1")  # sysbench's '@' in sysbench.rand.string


def random_strings(rng: np.random.Generator, n: int, length: int, alphabet: np.ndarray = LETTERS) -> list[str]:
    """``n`` strings of ``length`` characters drawn uniformly from ``alphabet`` (an array of 1-byte strings)."""
    if length == 0:
        return [""] * n
    chars = alphabet[rng.integers(0, len(alphabet), size=(n, length))]
    return chars.view(f"S{length}").ravel().astype(str).tolist()


def sysbench_pattern(rng: np.random.Generator, n: int, groups: int) -> list[str]:
    """sysbench's ``c``/``pad`` values: ``groups`` groups of 11 random digits joined by '-' (oltp_common.lua)."""
    digits = random_strings(rng, n, 11 * groups, DIGITS)
    return ["-".join(d[i:i + 11] for i in range(0, 11 * groups, 11)) for d in digits]


class Zipf:
    """Ranks 1..n with P(rank k) proportional to 1 / k**shape (LinkBench's access distributions), drawn exactly by
    looking uniform numbers up in the cumulative distribution."""

    def __init__(self, n: int, shape: float) -> None:
        if n < 1:
            raise ValueError(f"a Zipf distribution needs n >= 1, got {n}")
        if shape <= 0:
            raise ValueError(f"a Zipf shape must be > 0, got {shape}")
        self.n = n  # number of ranks
        self.shape = shape  # skew: larger means the first ranks are drawn more often
        weights = np.arange(1, n + 1, dtype=np.float64) ** -shape
        self._cdf = np.cumsum(weights) / weights.sum()  # P(rank <= k) at index k - 1

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` ranks in 1..n (int64)."""
        ranks = np.searchsorted(self._cdf, rng.random(size), side="right") + 1
        return np.minimum(ranks, self.n).astype(np.int64)


def scramble(ranks: np.ndarray, n: int) -> np.ndarray:
    """Map ranks 1..n onto ids 1..n one to one, so that popular ids are spread out rather than all small
    (LinkBench scrambles its Zipf ranks for the same reason). Multiplying by a prime that does not divide ``n``
    is a permutation of the residues mod ``n``."""
    prime = 2_147_483_647  # 2^31 - 1
    if n % prime == 0:
        prime = 1_000_000_007
    return ((ranks - 1) * prime) % n + 1


def nurand(rng: np.random.Generator, a: int, x: int, y: int, c: int, size: int | None = None):
    """TPC-C's non-uniform random number NURand(A, x, y) = (((rand(0, A) | rand(x, y)) + C) % (y - x + 1)) + x
    (TPC-C standard, clause 2.1.6)."""
    r1 = rng.integers(0, a, size=size, endpoint=True)
    r2 = rng.integers(x, y, size=size, endpoint=True)
    return (((r1 | r2) + c) % (y - x + 1)) + x


class IntStream:
    """Uniform ints in [lo, hi], drawn in chunks: one vectorized draw instead of one numpy call per value."""

    def __init__(self, rng: np.random.Generator, lo: int, hi: int, chunk: int = 4096) -> None:
        if hi < lo:
            raise ValueError(f"empty range [{lo}, {hi}]")
        self.rng = rng  # where the values come from
        self.lo, self.hi = lo, hi  # inclusive bounds
        self.chunk = chunk  # values drawn at a time
        self._values: list[int] = []  # drawn, not yet returned (reversed: pop() takes the next)

    def next(self) -> int:
        """The next value."""
        if not self._values:
            self._values = self.rng.integers(self.lo, self.hi, self.chunk, endpoint=True).tolist()[::-1]
        return self._values.pop()


class TextStream:
    """Random strings of characters from ``alphabet``, cut from characters drawn in chunks: one vectorized draw
    instead of numpy calls per string (a numpy array draw costs about 15 us, and TPC-C's loader draws several short
    strings per row). Lengths between two bounds come from chunked uniform draws too."""

    def __init__(self, rng: np.random.Generator, alphabet: np.ndarray = LETTERS, chunk: int = 1 << 16) -> None:
        self.rng = rng  # where the characters and lengths come from
        self.codes = alphabet.view(np.uint8)  # the alphabet's ASCII codes
        self.chunk = chunk  # characters (and lengths) drawn at a time
        self._chars = ""  # drawn characters; those from _at on are not used yet
        self._at = 0
        self._fractions: list[float] = []  # uniform [0, 1) draws for lengths (reversed: pop() takes the next)

    def string(self, length: int) -> str:
        """The next ``length`` characters."""
        end = self._at + length
        if end > len(self._chars):
            fresh = self.codes[self.rng.integers(0, len(self.codes), size=max(self.chunk, length))]
            self._chars, self._at, end = self._chars[self._at:] + fresh.tobytes().decode("ascii"), 0, length
        text, self._at = self._chars[self._at:end], end
        return text

    def between(self, lo: int, hi: int) -> str:
        """A string of ``lo``..``hi`` characters, its length uniform in that range."""
        if not self._fractions:
            self._fractions = self.rng.random(self.chunk).tolist()
        return self.string(lo + int(self._fractions.pop() * (hi - lo + 1)))
