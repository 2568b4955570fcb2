"""Reading and printing quantities the way people type them: ``64MiB``, ``1e6``, ``2.5 GB``.

Storage sizes come in two families, and mixing them up is a classic 5% error:

* binary units (IEC): ``KiB`` = 1024 bytes, ``MiB`` = 1024², ``GiB`` = 1024³: what memory and page sizes use;
* decimal units (SI): ``KB`` = 1000 bytes, ``MB`` = 1000², ``GB`` = 1000³: what disk vendors and AWS quote.

``parse_size`` accepts both (case-insensitive, optional space, optional ``B``), and ``parse_count`` reads counts
written in scientific notation (``1e6``) as long as they are whole numbers.

On the command line every count and size has bounds (``count_in``, ``size_in``, ``int_in``): a typo such as
``--rows 1e12`` is refused before any work starts, naming the option, instead of running until memory runs out.
Numbers are written in ASCII digits only: Python's ``int`` and ``float`` also read other scripts' digits (``１２``,
``١٢``), which a command line should refuse rather than guess at.
"""

from __future__ import annotations

import math
import re

KIB, MIB, GIB, TIB = 1024, 1024**2, 1024**3, 1024**4

# unit (lower case) -> bytes
SIZE_UNITS = {
    "": 1, "b": 1,
    "k": 1000, "kb": 1000, "m": 1000**2, "mb": 1000**2, "g": 1000**3, "gb": 1000**3, "t": 1000**4, "tb": 1000**4,
    "kib": KIB, "mib": MIB, "gib": GIB, "tib": TIB,
}

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")
# What each kind of number may look like, in ASCII ([0-9] is ASCII only, where \d is not).
_COUNT = re.compile(r"[+-]?[0-9][0-9_]*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes in ``text`` such as ``64MiB``, ``1.5 GB``, ``4096``; ValueError naming the text if it is not one."""
    m = _SIZE.match(str(text))
    if not m or m.group(2).lower() not in SIZE_UNITS:
        raise ValueError(f"bad size {text!r}: use a number with an optional unit "
                         f"(B, KiB, MiB, GiB, TiB, KB, MB, GB, TB), e.g. 64MiB")
    value = float(m.group(1)) * SIZE_UNITS[m.group(2).lower()]
    if not math.isfinite(value):
        raise ValueError(f"bad size {text!r}: too large to be a number of bytes")
    if value != int(value):  # a size in bytes is whole: 1.5B is a typo, not a request
        raise ValueError(f"bad size {text!r}: {value:g} is not a whole number of bytes")
    return int(value)


def parse_count(text: str) -> int:
    """The whole number in ``text`` such as ``1000``, ``1e6``, ``2.5e3`` (ASCII digits); ValueError if it is not one,
    or < 0."""
    if not _COUNT.fullmatch(str(text).strip()):
        raise ValueError(f"bad count {text!r}: use a whole number in ASCII digits, such as 1000 or 1e6")
    value = float(str(text).replace("_", ""))
    if not math.isfinite(value) or value != int(value) or value < 0:
        raise ValueError(f"bad count {text!r}: must be a whole number >= 0")
    return int(value)


def format_size(n: float) -> str:
    """``n`` bytes in binary units with three significant digits, e.g. ``64.0 MiB``."""
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(n) >= factor:
            return f"{n / factor:.3g} {unit}"
    return f"{n:.0f} B"


def count_in(low: int, high: int):
    """An argparse ``type=`` for a count between ``low`` and ``high`` inclusive (``1e6`` notation allowed)."""

    def count(text: str) -> int:
        return _as_argument_error(lambda t: _within(parse_count(t), low, high, f"count {t!r}"), text)

    return count


def size_in(low: int, high: int):
    """An argparse ``type=`` for a size in bytes between ``low`` and ``high`` inclusive (``64MiB`` allowed)."""

    def size(text: str) -> int:
        return _as_argument_error(
            lambda t: _within(parse_size(t), low, high, f"size {t!r}", format_size), text)

    return size


def int_in(low: int, high: int):
    """An argparse ``type=`` for a plain integer between ``low`` and ``high`` inclusive."""
    return _bounded(int, _INT, "integer", "use ASCII digits, e.g. 3", low, high, lambda n: f"{n:,}")


def number_in(low: float, high: float):
    """An argparse ``type=`` for a finite number between ``low`` and ``high`` inclusive (seconds, a share)."""
    return _bounded(float, _FLOAT, "number", "use ASCII digits, e.g. 2.5", low, high, lambda n: f"{n:g}")


def _bounded(convert, shape, what: str, hint: str, low, high, show):
    """An argparse ``type=``: ``convert(text)`` (``int`` or ``float``) of a ``text`` of the ``shape`` (a regular
    expression), refused with a message naming ``what`` and ``hint`` if it does not parse, if it is NaN (which
    compares false with every bound) or outside ``low..high``."""

    def argument(text: str):
        def parse(t: str):
            if not shape.fullmatch(t.strip()):
                raise ValueError(f"bad {what} {t!r}: {hint}")
            try:
                value = convert(t)
            except ValueError:
                raise ValueError(f"bad {what} {t!r}: {hint}") from None
            if value != value:
                raise ValueError(f"bad {what} {t!r}: not a number")
            return _within(value, low, high, f"{what} {t!r}", show=show)

        return _as_argument_error(parse, text)

    return argument


def _within(value: int, low: int, high: int, what: str, show=lambda n: f"{n:,}") -> int:
    if not low <= value <= high:
        raise ValueError(f"bad {what}: must be between {show(low)} and {show(high)}")
    return value


def _as_argument_error(parse, text: str) -> int:
    # argparse reports an ArgumentTypeError with its own message; a ValueError would become "invalid value".
    import argparse

    try:
        return parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
