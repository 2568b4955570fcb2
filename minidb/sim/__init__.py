"""Simulated time: how long counted work takes on a modelled server.

The engines count IO (``minidb.storage.IOStats``) and CPU work; this package turns counts into seconds:

* ``Clock`` (``clock.py``): simulated seconds shared with the engines, background jobs, write stalls;
* ``CostModel`` (``cpu.py``): CPU seconds per unit of counted work, each constant measured and cited;
* ``BackgroundQueue`` (``background.py``): flushes, compactions and page cleaning sharing the device;
* ``Host``, ``throughput`` (``bottleneck.py``): the bottleneck law for many clients on a host's cores;
* ``ServerModel``, ``Binlog`` (``server.py``): the SQL layer's CPU, the binlog's group commit, the serial section;
* ``Simulator`` (``simulator.py``): places each step of a workload on the timeline;
* ``device_time.plugged`` (``device_time.py``): another device model in the simulator's place (exercise 06);
* ``intervals`` (``series.py``): the per-interval throughput series, as a DataFrame.

Which parts are mechanism and which are model: IO counts are mechanism (what the engine did); seconds are model
(what that would take on the modelled hardware).
"""

from .background_queue import BackgroundQueue, Job
from .bottleneck import Demand, Host, resource_times, throughput
from .clock import Clock
from .cpu import COSTS, CostModel, io_work
from .series import intervals
from .server import Binlog, ServerModel
from .simulator import Simulator, Step

__all__ = [
    "COSTS",
    "BackgroundQueue",
    "Binlog",
    "Clock",
    "CostModel",
    "Demand",
    "Host",
    "Job",
    "ServerModel",
    "Simulator",
    "Step",
    "intervals",
    "io_work",
    "resource_times",
    "throughput",
]
