"""Linkbench-lite: Facebook's social-graph benchmark (LinkBench), as seed 002 runs it against MyRocks and InnoDB.

**How it maps to the original** (LinkBench's MySQL schema and ``config/FBWorkload.properties``):

* ``nodetable`` (``id`` primary key, ``type``, ``version``, ``time``, ``data``); ``linktable`` with primary
  key ``(link_type, id1, id2)`` and the covering secondary index ``id1_type (id1, link_type, visibility, time,
  id2, version, data)``; ``counttable`` with primary key ``(id, link_type)`` and a ``count`` of visible links;
* the ten request types with FBWorkload's mix: add_link 8.99%, delete_link 2.99%, update_link 8.01%, count_link
  4.89%, get_link 0.53%, get_link_list 50.71%, get_node 12.93%, add_node 2.57%, update_node 7.37%,
  delete_node 1.01%; the MySQL store's statements for each: adding or updating a link upserts it and adjusts the
  count, deleting hides it (``visibility = 0``) and adjusts the count, get_link_list reads the newest visible links
  of an ``(id1, link_type)`` through ``id1_type`` (``LIMIT 10000``), node operations by primary key;
* skewed access: ids drawn from Zipf distributions with FBWorkload's shapes (link reads 0.8, link writes 0.741,
  node reads 0.625, node updates 0.606; node deletes uniform), ranks scrambled over the id space;
* 2 link types; payloads as LinkBench makes them: lognormal lengths around FBWorkload's medians (links 8 bytes,
  nodes 128 bytes), bytes from MotifDataGenerator (``uniqueness`` 0.225 for links, 0.63 for nodes), one generator
  per link loader, for the node loader, and per client for adds and for updates (``Payloads``).

**What it leaves out**: the empirical outdegree distribution of ``Distribution.dat`` (here a discrete power law with
Pareto shape 1.25, the parameter FBWorkload names for link reads, capped at 1000 links); the history variant of
get_link_list; multi-id get_link; the correlation between a node's outdegree and how often it is accessed; the
load's bulk-insert path (rows are inserted 1000 per commit in id order).
"""

from __future__ import annotations

import numpy as np

from .. import scales
from ..schema import Schema
from ..sim.server import ServerModel
from ..table import RowLayout
from .distributions import Zipf, scramble
from .driver import Driver, WorkloadResult
from .setup import RunSetup

OPERATIONS = {  # FBWorkload.properties operation mix, percent
    "add_link": 8.9886601, "delete_link": 2.9907664, "update_link": 8.0122125, "count_link": 4.8863567,
    "get_link": 0.5261142, "get_link_list": 50.7119145, "get_node": 12.9326683, "add_node": 2.5732789,
    "update_node": 7.366437, "delete_node": 1.0115914,
}
LINK_TYPES = 2  # link_type_count
VISIBLE, HIDDEN = 1, 0  # linktable.visibility values
RANGE_LIMIT = 10_000  # LinkBench's default range limit for get_link_list
LINK_DATA_MEDIAN, NODE_DATA_MEDIAN = 8, 128  # link_datasize, node_datasize
LINK_UNIQUENESS, NODE_UNIQUENESS = 0.225, 0.63  # MotifDataGenerator uniqueness for links and nodes
LINK_BYTES, NODE_BYTES = (32, 100), (50, 220)  # MotifDataGenerator startbyte, endbyte for links and nodes
DATASIZE_SIGMA = 1.0  # Config.LINK_DATASIZE_SIGMA and NODE_DATASIZE_SIGMA: the payload lengths' lognormal sigma
MOTIF_BUFFER_BYTES, MOTIF_CHUNK = 512, 128  # MotifDataGenerator's DEFAULT_MOTIF_BUFFER_SIZE and MAX_CHUNK_SIZE
LOADERS, LOADER_CHUNK = 10, 2048  # LinkBench's link loaders and the id1s each takes at a time
READ_SHAPE, WRITE_SHAPE, NODE_READ_SHAPE, NODE_UPDATE_SHAPE = 0.8, 0.741, 0.625, 0.606  # Zipf shapes
OUTDEGREE_PARETO, MAX_LINKS = 1.25, 1000  # outdegree distribution (ours; see the module docstring)
START_TIME_MS = 1_462_060_800_000  # 2016-05-01 in milliseconds, the year of seed 002: time of the loaded rows
REQUESTS_PER_STEP = 50  # requests timed together as one simulation step
CORES = 48  # seed 000's server ("48 cores with HT enabled"): seed 002 does not give its own
SERVER = ServerModel.calibrated()  # seed 002 does not say it ran a binlog: log_bin off, MySQL 5.7's default
LOAD_ROWS_PER_COMMIT = 1000

NODES = Schema("nodetable", [("id", "int"), ("type", "int32"), ("version", "int"), ("time", "int"),
                             ("data", "bytes")], primary_key=("id",))
LINKS = Schema("linktable", [("id1", "int"), ("id2", "int"), ("link_type", "int"), ("visibility", "int32"),
                             ("data", "bytes"), ("time", "int"), ("version", "int")],
               primary_key=("link_type", "id1", "id2"),
               indexes=[("id1_type", ("id1", "link_type", "visibility", "time", "id2", "version", "data"))])
COUNTS = Schema("counttable", [("id", "int"), ("link_type", "int"), ("count", "int"), ("time", "int"),
                               ("version", "int")], primary_key=("id", "link_type"))


class MotifData:
    """One LinkBench ``MotifDataGenerator`` (``generators/MotifDataGenerator.java``): a payload is filled 128 bytes
    at a time, each chunk fresh random bytes with probability ``uniqueness``, else a copy from a random offset of the
    generator's own 512-byte motif buffer (its ``motif_length`` setting is never read: ``init`` looks it up with
    ``Properties.contains``, which searches values). Every byte lies in ``[start, end]``."""

    def __init__(self, rng: np.random.Generator, uniqueness: float, start: int, end: int) -> None:
        self.rng = rng  # the run's random choices
        self.uniqueness = uniqueness  # probability that a chunk is fresh random bytes
        self.start, self.end = start, end  # the byte range
        self.motif: bytes | None = None  # filled on first use, as LinkBench's ``fill`` does

    def fill(self, n: int) -> bytes:
        """``n`` payload bytes."""
        rng = self.rng
        if self.motif is None:
            self.motif = rng.integers(self.start, self.end + 1, MOTIF_BUFFER_BYTES, dtype=np.uint8).tobytes()
        parts = []
        for i in range(0, n, MOTIF_CHUNK):
            m = min(MOTIF_CHUNK, n - i)
            if rng.random() < self.uniqueness:
                parts.append(rng.integers(self.start, self.end + 1, m, dtype=np.uint8).tobytes())
            else:
                k = int(rng.integers(0, MOTIF_BUFFER_BYTES - m + 1))
                parts.append(self.motif[k:k + m])
        return b"".join(parts)


class Payloads:
    """Payloads as LinkBench makes them: lengths lognormal around the configured median (``LogNormalDistribution``
    with sigma 1, clipped to ``[0, max_len - 1]``), bytes from one ``MotifData`` per generator instance: LinkBench
    gives each link loader, the node loader and each request thread's add and update operations their own."""

    def __init__(self, rng: np.random.Generator, median: int, uniqueness: float, byte_range: tuple[int, int],
                 max_len: int) -> None:
        self.rng = rng  # random lengths and bytes
        self.median = median  # median payload length
        self.uniqueness = uniqueness  # MotifDataGenerator's uniqueness
        self.byte_range = byte_range  # (startbyte, endbyte)
        self.max_len = max_len  # lengths stay below it
        self.generators: dict = {}  # generator instance -> its MotifData

    def make(self, n: int, generator=0) -> list[bytes]:
        """``n`` payloads from the generator instance ``generator`` (any hashable name)."""
        gen = self.generators.get(generator)
        if gen is None:
            gen = self.generators[generator] = MotifData(self.rng, self.uniqueness, *self.byte_range)
        lengths = np.rint(np.exp(self.rng.standard_normal(n) * DATASIZE_SIGMA + np.log(self.median)))
        return [gen.fill(int(x)) for x in np.clip(lengths, 0, self.max_len - 1).tolist()]


def linkbench(setup: RunSetup, nodes: int | None = None, requests: int | None = None) -> WorkloadResult:
    """Load ``nodes`` nodes with their links, then run ``requests`` requests of FBWorkload's mix (defaults: the
    setup's scale's).

    ``ops`` are requests (seed 002's TPS counts LinkBench requests). The client and core counts of seed 002's
    server are not in the post; the cores default to seed 000's server's (``CORES``), as RunSetup's 16 clients are
    its. ``setup`` as ``insert_benchmark``'s.
    """
    seed = setup.data.seed
    size = scales.linkbench(setup.data.scale)
    nodes = size.nodes if nodes is None else int(nodes)
    requests = size.requests if requests is None else int(requests)
    if nodes < 2 or requests < 1:
        raise ValueError(f"linkbench needs nodes >= 2 and requests >= 1, got {nodes}, {requests}")
    rng = np.random.default_rng(seed)
    graph = _Graph(nodes, rng)
    drv = Driver.sized(setup, graph.estimated_bytes(), size.reference, setup.host(CORES), SERVER)
    t = {"nodes": drv.table(NODES), "links": drv.table(LINKS), "counts": drv.table(COUNTS)}
    graph.load(drv, t)
    ops = list(OPERATIONS)
    weights = np.array([OPERATIONS[o] for o in ops]) / sum(OPERATIONS.values())
    choices = rng.choice(len(ops), size=requests, p=weights)
    reqs = _Requests(drv, t, graph, rng)
    drv.start_measuring()
    for start in range(0, requests, REQUESTS_PER_STEP):
        chunk = choices[start:start + REQUESTS_PER_STEP].tolist()
        with drv.step(ops=len(chunk)):
            for i, c in enumerate(chunk, start):
                reqs.client = i % setup.clients
                getattr(reqs, ops[c])()
    return drv.result("linkbench", ops=requests, params=dict(nodes=nodes, requests=requests),
                      extra={f"{name}_requests": reqs.counts[name] for name in ops})


def estimated_db_bytes(nodes: int, seed: int = 0) -> float:
    """Bytes of keys and values a run of ``nodes`` nodes with ``seed`` loads: what its cache is scaled by."""
    return _Graph(nodes, np.random.default_rng(seed)).estimated_bytes()


class _Graph:
    """The initial graph: nodes 1..n, each with a power-law number of links, and how ids are drawn."""

    def __init__(self, n: int, rng: np.random.Generator) -> None:
        self.n = n  # nodes loaded
        self.rng = rng  # the run's random choices
        self.next_id = n + 1  # id of the next added node (auto-increment)
        self.time = START_TIME_MS  # logical clock for link and node times, one millisecond per write
        self.link_data = Payloads(rng, LINK_DATA_MEDIAN, LINK_UNIQUENESS, LINK_BYTES, 255)  # VARCHAR(255)
        self.node_data = Payloads(rng, NODE_DATA_MEDIAN, NODE_UNIQUENESS, NODE_BYTES, 1024)
        pareto = np.floor(rng.random(n) ** (-1 / OUTDEGREE_PARETO)) - 1  # discrete power law, minimum 0
        # At most n links per node: a node has only n distinct targets, and id2() repeats past n.
        self.outdegree = np.minimum(pareto, min(MAX_LINKS, n)).astype(np.int64)  # links loaded per node
        self.stride = 7919 if n % 7919 else 7907  # a prime not dividing n, so k -> id2 is one-to-one for k < n
        self.dists = {  # (Zipf over ranks, then scrambled onto ids) per access pattern
            "read": Zipf(n, READ_SHAPE), "write": Zipf(n, WRITE_SHAPE),
            "node_read": Zipf(n, NODE_READ_SHAPE), "node_update": Zipf(n, NODE_UPDATE_SHAPE),
        }

    def id1(self, pattern: str) -> int:
        """A node id drawn with ``pattern``'s skew (or uniformly for ``"uniform"``)."""
        if pattern == "uniform":
            return int(self.rng.integers(1, self.n, endpoint=True))
        return int(scramble(self.dists[pattern].sample(self.rng, 1), self.n)[0])

    def id2(self, id1: int, k: int) -> int:
        """The k-th link target of ``id1``: spread over the graph, distinct for distinct k < n."""
        return (id1 + 1 + k * self.stride) % self.n + 1

    def tick(self) -> int:
        self.time += 1
        return self.time

    def estimated_bytes(self) -> float:
        """Bytes of keys and values the loaded graph holds, from sample rows."""
        node = RowLayout(NODES).entry_bytes((1, 1, 0, START_TIME_MS, b"x" * NODE_DATA_MEDIAN))
        link = RowLayout(LINKS).entry_bytes((1, 2, 1, VISIBLE, b"x" * LINK_DATA_MEDIAN, START_TIME_MS, 0))
        count = RowLayout(COUNTS).entry_bytes((1, 1, 1, START_TIME_MS, 0))
        links = int(self.outdegree.sum())
        return self.n * node + links * link + min(links, self.n * LINK_TYPES) * count

    def load(self, drv: Driver, t: dict) -> None:
        """Nodes, links and counts, 1000 rows per commit, node by node."""
        pending: list[tuple[str, tuple]] = []

        def flush():
            with drv.step(ops=len(pending)):
                with drv.transaction() as txn:
                    for name, row in pending:
                        t[name].insert(row, txn)
            pending.clear()

        for id1 in range(1, self.n + 1):
            pending.append(("nodes", (id1, 1, 0, START_TIME_MS, self.node_data.make(1)[0])))
            degree = int(self.outdegree[id1 - 1])
            loader = (id1 - 1) // LOADER_CHUNK % LOADERS  # LinkBench's idle loaders take chunks in turn
            data = self.link_data.make(degree, loader) if degree else []
            per_type = [0] * LINK_TYPES
            for k in range(degree):
                link_type = k % LINK_TYPES + 1
                per_type[link_type - 1] += 1
                pending.append(("links", (id1, self.id2(id1, k), link_type, VISIBLE, data[k], START_TIME_MS, 0)))
            for link_type, count in enumerate(per_type, 1):
                if count:
                    pending.append(("counts", (id1, link_type, count, START_TIME_MS, 0)))
            if len(pending) >= LOAD_ROWS_PER_COMMIT:
                flush()
        if pending:
            flush()


class _Requests:
    """The ten LinkBench requests, as LinkBench's MySQL store runs them."""

    def __init__(self, drv: Driver, tables: dict, graph: _Graph, rng: np.random.Generator) -> None:
        self.drv, self.t, self.g, self.rng = drv, tables, graph, rng
        self.counts = {name: 0 for name in OPERATIONS}  # requests run, by type
        self.client = 0  # the client issuing the current request: its own payload generators

    def _link(self, pattern: str) -> tuple[int, int, int]:
        """(id1, link_type, id2) of a link that may or may not exist, LinkBench-style: id2 from id1's targets."""
        id1 = self.g.id1(pattern)
        k = int(self.rng.integers(0, int(self.g.outdegree[id1 - 1]), endpoint=True))  # k = outdegree: a new link
        return id1, k % LINK_TYPES + 1, self.g.id2(id1, k)

    def _add_or_update(self, data: bytes) -> None:
        id1, link_type, id2 = self._link("write")
        links = self.t["links"]
        now = self.g.tick()
        with self.drv.transaction() as txn:
            old = links.get((link_type, id1, id2), txn)
            if old is None:
                links.insert((id1, id2, link_type, VISIBLE, data, now, 0), txn)
            else:
                links.update((link_type, id1, id2), {"visibility": VISIBLE, "data": data, "time": now,
                                                     "version": old.version + 1}, txn)
            if old is None or old.visibility != VISIBLE:
                self._count(txn, id1, link_type, +1, now)

    def _count(self, txn, id1: int, link_type: int, delta: int, now: int) -> None:
        """INSERT INTO counttable ... ON DUPLICATE KEY UPDATE count = count + delta"""
        counts = self.t["counts"]
        if not counts.update((id1, link_type), lambda r: {"count": r.count + delta, "time": now,
                                                          "version": r.version + 1}, txn):
            counts.insert((id1, link_type, max(delta, 0), now, 0), txn)

    def add_link(self) -> None:
        self.counts["add_link"] += 1
        self._add_or_update(self.g.link_data.make(1, ("add", self.client))[0])

    def update_link(self) -> None:
        self.counts["update_link"] += 1
        self._add_or_update(self.g.link_data.make(1, ("update", self.client))[0])

    def delete_link(self) -> None:
        """Hide the link (LinkBench's default: no expunge) and decrement the count if it was visible."""
        self.counts["delete_link"] += 1
        id1, link_type, id2 = self._link("write")
        now = self.g.tick()
        with self.drv.transaction() as txn:
            old = self.t["links"].get((link_type, id1, id2), txn)
            if old is not None and old.visibility == VISIBLE:
                self.t["links"].update((link_type, id1, id2), {"visibility": HIDDEN, "time": now}, txn)
                self._count(txn, id1, link_type, -1, now)

    def count_link(self) -> None:
        self.counts["count_link"] += 1
        id1 = self.g.id1("read")
        self.t["counts"].get((id1, int(self.rng.integers(1, LINK_TYPES, endpoint=True))))

    def get_link(self) -> None:
        self.counts["get_link"] += 1
        id1, link_type, id2 = self._link("read")
        self.t["links"].get((link_type, id1, id2))

    def get_link_list(self) -> list:
        """The newest visible links of (id1, link_type), newest first, at most RANGE_LIMIT (a covering scan)."""
        self.counts["get_link_list"] += 1
        id1 = self.g.id1("read")
        link_type = int(self.rng.integers(1, LINK_TYPES, endpoint=True))
        entries = list(self.t["links"].index_scan("id1_type", (id1, link_type, VISIBLE),
                                                  (id1, link_type, VISIBLE + 1), covering=True))
        return entries[::-1][:RANGE_LIMIT]

    def get_node(self) -> None:
        self.counts["get_node"] += 1
        self.t["nodes"].get(self.g.id1("node_read"))

    def add_node(self) -> None:
        self.counts["add_node"] += 1
        data = self.g.node_data.make(1, ("add", self.client))[0]
        self.t["nodes"].insert((self.g.next_id, 1, 0, self.g.tick(), data))
        self.g.next_id += 1

    def update_node(self) -> None:
        self.counts["update_node"] += 1
        data = self.g.node_data.make(1, ("update", self.client))[0]
        now = self.g.tick()
        self.t["nodes"].update(self.g.id1("node_update"),
                               lambda r: {"version": r.version + 1, "time": now, "data": data})

    def delete_node(self) -> None:
        self.counts["delete_node"] += 1
        self.t["nodes"].delete(self.g.id1("uniform"))
