"""A fixture giving each device implementation, so one test checks both."""

import pytest

from minidb.storage import DirDevice, SimDevice


@pytest.fixture(params=["sim", "dir"])
def make_device(request, tmp_path):
    """A factory of fresh devices of one implementation: make_device(capacity=None)."""
    made = []

    def make(capacity=None):
        if request.param == "sim":
            dev = SimDevice(capacity=capacity)
        else:
            dev = DirDevice(tmp_path / f"dev{len(made)}", capacity=capacity)
        made.append(dev)
        return dev

    yield make
    for dev in made:
        if isinstance(dev, DirDevice):
            dev.close()
