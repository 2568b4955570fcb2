"""Sizes and counts as typed on the command line."""

import pytest

from minidb.units import format_size, parse_count, parse_size


@pytest.mark.parametrize("text, expected", [
    ("4096", 4096), ("64MiB", 64 * 1024**2), ("64 mib", 64 * 1024**2), ("1KiB", 1024), ("1.5GiB", 3 * 1024**3 // 2),
    ("1KB", 1000), ("10MB", 10_000_000), ("2GB", 2_000_000_000), ("512B", 512), ("1e3KB", 1_000_000),
])
def test_parse_size_binary_and_decimal_units(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "MiB", "64XB", "-1MB", "1.5B", "64 Mi B", "abc"])
def test_parse_size_rejects_bad_text_naming_it(text):
    with pytest.raises(ValueError, match="bad size"):
        parse_size(text)


@pytest.mark.parametrize("text, expected", [("1000", 1000), ("1e6", 1_000_000), ("2.5e3", 2500), ("1_000", 1000)])
def test_parse_count_accepts_scientific_notation(text, expected):
    assert parse_count(text) == expected


@pytest.mark.parametrize("text", ["1.5", "-3", "x", "inf", "nan"])
def test_parse_count_rejects_fractions_negatives_and_words(text):
    with pytest.raises(ValueError, match="bad count"):
        parse_count(text)


def test_format_size_round_trips_through_parse_size():
    assert format_size(64 * 1024**2) == "64 MiB"
    assert format_size(1536) == "1.5 KiB"
    assert format_size(10) == "10 B"
    assert parse_size(format_size(3 * 1024**3).replace(" ", "")) == 3 * 1024**3
