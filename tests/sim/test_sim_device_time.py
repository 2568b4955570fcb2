"""The device-model plug point: the simulator times steps with a plugged model, and refuses a malformed answer."""

import types

import pytest

from minidb.sim import Clock, CostModel, Demand, Host, Simulator, resource_times
from minidb.sim.device_time import RESOURCES, check_times, device_values, io_values, plugged
from minidb.storage import IOCounts, SimDevice, preset

SSD = preset("slow-ssd")
IO = IOCounts(reads=100, read_bytes=100 * 16384, writes=10, write_bytes=10 * 16384, syncs=2)


def book_model() -> types.ModuleType:
    """A module with the exercise's contract that answers with the book's own model."""
    module = types.ModuleType("book_model")

    def times(cpu_seconds, io, device, cores, clients):
        assert io == io_values(IOCounts(**io)) and set(device) == set(device_values(SSD))  # plain values only
        model = SSD.__class__(name="plain", **device)
        times = resource_times(Demand(cpu_seconds, IOCounts(**io)), model, Host(cores=cores, clients=clients))
        return {name: times[name] for name in RESOURCES}  # the serial section is the server's, not a device's

    module.resource_times = times
    return module


def test_plugged_model_gives_the_books_times():
    server = Host(cores=4, clients=2)
    for demand in (Demand(0.01, IO), Demand(0.01, IO, serial_seconds=0.002)):  # the server's serial section added
        assert plugged(book_model())(demand, SSD, server) == resource_times(demand, SSD, server)


def test_simulator_times_steps_with_the_plugged_model():
    def run(**options):
        device = SimDevice()
        sim = Simulator(device, Clock(SSD, CostModel()), Host(cores=4, clients=2), **options)
        f = device.open("data", kind="data", create=True)
        f.write(0, b"x" * 16384 * 50)
        sim.begin()
        for i in range(50):
            f.read(i * 16384, 16384)
        return sim.end(50)

    assert run(times=plugged(book_model())) == run()


@pytest.mark.parametrize("answer", [None, {"cpu": 1.0}, {**dict.fromkeys(RESOURCES, 0.0), "disk": 1.0},
                                    {**dict.fromkeys(RESOURCES, 0.0), "iops": -1.0},
                                    {**dict.fromkeys(RESOURCES, 0.0), "iops": float("inf")},
                                    {**dict.fromkeys(RESOURCES, 0.0), "cpu": "1"},
                                    {**dict.fromkeys(RESOURCES, 0.0), "cpu": True}])
def test_a_malformed_answer_names_the_model(answer):
    with pytest.raises(ValueError, match="device model 'mine'"):
        check_times("mine", answer)
