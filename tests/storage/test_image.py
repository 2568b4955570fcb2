"""DeviceImage: a closed database's files frozen and copied, without counting the copy as IO."""

import pytest

from minidb.storage import SimDevice
from minidb.storage.image import DeviceImage


def written(**files):
    dev = SimDevice()
    for name, data in files.items():
        with dev.open(name, kind="other", create=True) as f:
            f.append(data)
            f.sync()
    return dev


def test_an_image_copies_every_file_and_counts_nothing():
    dev = written(a=b"alpha", b=b"beta" * 100)
    before = (dev.stats.snapshot(), dev.io_points)
    image = DeviceImage.of(dev)
    copy = image.device()
    assert (dev.stats.snapshot(), dev.io_points) == before  # taking the image is no IO of the engine's
    assert copy.list() == ["a", "b"] and copy.used == dev.used == image.bytes == 405
    assert copy.stats.total().reads == copy.stats.total().writes == copy.io_points == 0
    with copy.open("b", kind="other") as f:
        assert f.read(0, 400) == b"beta" * 100
    assert copy.stats.total().reads == 1  # reading the copy is the engine's IO, counted from zero


def test_each_copy_is_its_own_and_survives_a_crash():
    image = DeviceImage.of(written(a=b"0123456789"))
    first, second = image.device(), image.device()
    with first.open("a", kind="other") as f:
        f.write(0, b"XX")
    first.crash()  # the copy's bytes are synced: a crash keeps them, and loses only the unsynced write
    with first.open("a", kind="other") as f:
        assert f.read(0, 10) == b"0123456789"
    with second.open("a", kind="other") as f:
        f.write(0, b"YY")
        f.sync()
    assert image.device().open("a", kind="other").read(0, 10) == b"0123456789"


def test_a_device_with_unsynced_writes_cannot_be_frozen():
    dev = written(a=b"done")
    with dev.open("a", kind="other") as f:
        f.append(b"pending")
    with pytest.raises(ValueError, match="not yet synced"):
        DeviceImage.of(dev)


def test_a_copy_honours_its_capacity():
    image = DeviceImage.of(written(a=b"x" * 100))
    assert image.device(capacity=150).free == 50
    with pytest.raises(ValueError, match="holds 100 bytes"):
        image.device(capacity=99)
