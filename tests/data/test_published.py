"""Every published number in data/ is checked against the seed text it was typed in from.

``SPECS`` says, for each CSV, how its seed prints it (see ``seed_match``). The tests check that every row is found,
that every column takes part in the check, that a one-character typo in any checked cell makes the check fail, and
that ``data/sources.csv`` describes every file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd
import pytest

from minidb import data
from seed_match import Pivot, Quoted, SeedText, Table, View, checked_columns, occurs, pattern, problems, tokens

# The seed posts live beside the repository (../shared/seeds) only on the project's own machines, or wherever
# $MINIDB_SEEDS points. In a plain clone the checks of data/ against them are skipped, all for this one reason, and
# every other test still runs.
SEEDS = Path(os.environ.get("MINIDB_SEEDS") or Path(__file__).resolve().parents[2].parent / "shared" / "seeds")
needs_seeds = pytest.mark.skipif(
    not SEEDS.is_dir(), reason="seed posts not found (../shared/seeds beside the repository, or $MINIDB_SEEDS): "
    "data/ is checked against them only where they are")


# -- how the seeds print their tables ---------------------------------------------------------------------------
def _binlog(cell: str) -> str:
    return {"true": "binlog", "false": "no binlog"}[cell]


def _usd(r) -> str:
    """The three money columns of the cost table as printed: empty cells are blank in the seed."""
    return " ".join(v for v in (r["resource_usd_per_year"], r["io_usd_per_year"], r["total_usd_per_year"]) if v)


def _volume(r) -> str:
    """A cost-table row rebuilt from the normalised columns: '1TB io1 5000 IOPS ...', '3.4TB GP2 (10000 IOPS) ...'."""
    if not r["volume_type"]:
        if r["size_gb"] or r["iops"]:
            raise ValueError("an instance has no size or IOPS")
        return f"{r['resource']} {_usd(r)}"
    return f"{float(r['size_gb']) / 1000:g}TB {r['volume_type']} {r['iops']} IOPS {_usd(r)}"


def _rocksdb_size(mb: str) -> str:
    """RocksDB prints a size in the largest fitting unit; the non-zero sizes of the seed's tables are in MB."""
    return "0.00 KB" if mb == "0.00" else f"{mb} MB"


def _rocksdb_count(cell: str) -> str:
    """RocksDB's NumberToHumanString: plain below 10,000, then K below 10 million, then M (truncating)."""
    n = int(cell)
    for limit, unit, suffix in ((10_000, 1, ""), (10_000_000, 1000, "K"), (10_000_000_000, 1_000_000, "M")):
        if n < limit:
            if n % unit:
                raise ValueError(f"{n} is not a value RocksDB prints exactly")
            return f"{n // unit}{suffix}"
    raise ValueError(f"{n} is out of range")


_TPS_ENGINE = {"InnoDB": "innodb", "MyRocks": "rocksdb"}  # engine names in the cloud TPS table
_TPS_VOLUME = {"io1": "", "gp2": "gp2"}  # the table marks gp2 rows by a 'gp2' after the IOPS


def _tpcc(values: str, start: str, end: str) -> View:
    """One of the memory-sweep tables: a 'Memory, GB InnoDB MyRocks' header, then a line per memory size."""
    return View(lambda r: f"{r['memory_gb']} {r[values]}",
                pivot=Pivot("engine", ("InnoDB", "MyRocks"), values, ("memory_gb",)),
                header="Memory, GB {order}", region=(start, end))


SPECS: dict[str, Table | Quoted] = {
    "insert_rate_by_concurrency": Table(rows=48, views=(
        View(lambda r: f"{r['inserts_per_sec']} {r['engine']}, {_binlog(r['binlog'])}",
             pivot=Pivot("clients", ("1", "2", "4", "8", "12", "16"), "inserts_per_sec",
                         ("engine", "binlog", "compaction")),
             header="{order} concurrency",
             sections={"compaction": {"": None, "leveled": "leveled compaction", "universal": "universal compaction"}}),
    )),
    "insert_benchmark_by_storage": Table(rows=12, views=(
        View(lambda r: f"{r['engine']} {r['inserts_per_sec']}",
             pivot=Pivot("storage", ("slow-ssd", "fast-ssd"), "inserts_per_sec", ("engine", "workload")),
             header="{order}",
             sections={"workload": {"in-memory": "Throughput for in memory database",
                                    "io-bound": "Throughput for larger than memory database"}}),
        View(lambda r: f"{r['engine']} {r['inserts_per_sec']} {r['read_mb_per_sec']} {r['write_mb_per_sec']} "
                       f"{r['rkb_per_insert']} {r['wkb_per_insert']}",
             header="IPS rMB/s wMB/s rKB/i wKB/i",
             sections={"workload": {"in-memory": "IO metrics for in memory database",
                                    "io-bound": "IO metrics for larger than memory database"},
                       "storage": {"slow-ssd": "- slow SSD", "fast-ssd": "- fast SSD"}}),
    )),
    "insert_benchmark_rates": Table(rows=6, views=(
        View(lambda r: f"{r['inserts_per_sec']} * {r['engine']}",
             pivot=Pivot("workload", ("io-bound", "in-memory"), "inserts_per_sec", ("engine",)),
             header="{order} size engine"),
    )),
    "insert_benchmark_size": Table(rows=3, views=(
        View(lambda r: f"* * {r['size_gb']} {r['engine']}", header="io-bound in-memory size engine"),
    )),
    "insert_benchmark_devices": Quoted(rows=2),
    "iostat_overstatement": Quoted(rows=1),
    "doublewrite_write_amp": Quoted(rows=1),
    "insert_benchmark_caches": Quoted(rows=3),
    "insert_benchmark_ram": Quoted(rows=2),
    "myrocks_l0_slowdown": Quoted(rows=1),
    "compaction_stall_series": Quoted(rows=2),
    "insert_rate_series_by_compaction": Quoted(rows=1),
    "read_only_variance": Quoted(rows=1),
    "big_transactions": Quoted(rows=4),
    "myrocks_default_sizes": Quoted(rows=1),
    "disk_full_setup": Quoted(rows=1),
    "disk_full_session": Quoted(rows=6, exempt=("order",)),
    "disk_full_restart": Quoted(rows=3),
    "tpcc_memory_sweep": Table(rows=22, views=(
        _tpcc("tps", "average throughput for each engine for different memory settings",
              "This is where MyRocks behaves differently"),
        _tpcc("write_kb_per_sec", "writes per second (in KB/sec)", "how many writes per transaction"),
        _tpcc("read_kb_per_sec", "reads in KB per second", "number of reads per transaction"),
        View(lambda r: f"{r['memory_gb']} {r['engine']} {r['cpu_user_pct']} {r['cpu_sys_pct']} "
                       f"{r['cpu_iowait_pct']} {r['cpu_idle_pct']}",
             header="Memory, GB engine us sys wa id", region=("In tabular form", "MyRocks uses a lot of CPU")),
    )),
    "tpcc_data_size": Quoted(rows=5, exempt=("measured",)),
    "tpcc_throughput_jitter": Quoted(rows=1),
    "linkbench_page_size": Table(rows=4, views=(
        View(lambda r: f"{r['engine']} {r['page_size_kb']}kb {r['tps']} {r['wkb_per_txn']}",
             header="Page-size TPS iostat-wKB/t"),
    )),
    "linkbench_data_size": Quoted(rows=2),
    "linkbench_memory": Quoted(rows=1),
    "cloud_cost_per_year": Table(rows=7, views=(
        View(lambda r: f"{r['resource']} {_usd(r)}", header="Resource cost/year, $ IO cost $/year Total $/year"),
        View(_volume),
    )),
    "cloud_tps_by_iops": Table(rows=24, views=(
        View(lambda r: f"{r['cache_gb']} {r['iops']}{_TPS_VOLUME[r['volume_type']]} "
                       f"{_TPS_ENGINE[r['engine']]} {r['tps']}",
             header="cachesize IOPS engine avg TPS"),
    )),
    "cloud_data_size": Quoted(rows=2),
    "cloud_throughput_variance": Quoted(rows=2),
    "cloud_volume_limits": Quoted(rows=2),
    "cloud_scaling_data_size": Quoted(rows=2),
    "gp2_iops_by_size": Quoted(rows=3),
    "gp2_size_sweep": Quoted(rows=2),
    "myrocks_efficiency_summary": Quoted(rows=1),
    "gp2_raid0": Quoted(rows=1, exempt=("volumes",)),
    "cf_compaction_stats": Table(rows=9, views=(
        View(lambda r: f"{r['level']} {r['files']}/{r['files_compacting']} {_rocksdb_size(r['size_mb'])} "
                       f"{r['score']} {r['read_gb']} {r['rn_gb']} {r['rnp1_gb']} {r['write_gb']} {r['wnew_gb']} "
                       f"{r['moved_gb']} {r['w_amp']} {r['rd_mb_per_sec']} {r['wr_mb_per_sec']} {r['comp_sec']} "
                       f"{r['comp_cnt']} {r['avg_sec']} {_rocksdb_count(r['keys_in'])} "
                       f"{_rocksdb_count(r['keys_dropped'])}",
             header="Level Files Size Score Read(GB) Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) "
                    "Wr(MB/s) Comp(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop",
             sections={"cf": {"cf1": "** Compaction Stats [cf1] **", "cf2": "** Compaction Stats [cf2] **"}}),
    )),
    "cf_options": Table(rows=72, views=(View(lambda r: f"| {r['cf']} | {r['option']} | {r['value']}"),)),
    "cf_compression": Quoted(rows=2),
}


# -- helpers ----------------------------------------------------------------------------------------------------
_seed_cache: dict[str, SeedText] = {}


def seed_of(name: str) -> SeedText:
    """The seed text cited by table ``name`` in data/sources.csv."""
    seed = data.source(name)["seed"]
    if seed not in _seed_cache:
        _seed_cache[seed] = SeedText((SEEDS / seed).read_text(encoding="utf-8"))
    return _seed_cache[seed]


def raw(name: str) -> pd.DataFrame:
    """The CSV exactly as typed: every cell a string, empty cells empty strings."""
    return pd.read_csv(data.PUBLISHED_DIR / f"{name}.csv", dtype=str, keep_default_na=False)


def typo(cell: str) -> str:
    """A plausible one-character typo of ``cell``: the last digit changed, a flag flipped, or a letter added."""
    if cell in ("true", "false"):
        return "false" if cell == "true" else "true"
    if cell == "":
        return "7"
    digits = list(re.finditer(r"\d", cell))
    if digits:
        last = digits[-1]
        return cell[:last.start()] + str((int(last.group()) + 1) % 10) + cell[last.end():]
    return cell + "x"


# -- the data against the seeds --------------------------------------------------------------------------------------
def test_every_table_has_a_check_and_every_check_a_table():
    assert sorted(SPECS) == data.names()


@needs_seeds
@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_row_is_in_the_seed(name):
    assert problems(SPECS[name], raw(name), seed_of(name)) == []


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_column_is_checked(name):
    frame = raw(name)
    assert checked_columns(SPECS[name], frame) >= set(frame.columns) - set(getattr(SPECS[name], "exempt", ()))


@needs_seeds
@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_typo_in_any_checked_cell_fails_the_check(name):
    spec, frame, seed = SPECS[name], raw(name), seed_of(name)
    escaped = []
    for col in sorted(checked_columns(spec, frame)):
        for i in range(len(frame)):
            bad = frame.copy()
            bad.loc[i, col] = typo(frame.loc[i, col])
            if not problems(spec, bad, seed):
                escaped.append(f"row {i} {col}: {frame.loc[i, col]!r} -> {bad.loc[i, col]!r}")
    assert escaped == []


@needs_seeds
def test_a_missing_row_fails_the_check():
    frame = raw("linkbench_page_size")
    assert problems(SPECS["linkbench_page_size"], frame.iloc[1:], seed_of("linkbench_page_size"))


@needs_seeds
def test_swapped_sections_fail_the_check():
    """Slow and fast SSD rows hold different numbers, but so would a swap of the two IO tables' labels."""
    frame = raw("insert_benchmark_by_storage")
    frame["storage"] = frame["storage"].map({"slow-ssd": "fast-ssd", "fast-ssd": "slow-ssd"})
    assert problems(SPECS["insert_benchmark_by_storage"], frame, seed_of("insert_benchmark_by_storage"))


# -- provenance ---------------------------------------------------------------------------------------------------
def test_every_table_has_exactly_one_sources_row_and_every_row_a_table():
    files = data.sources().file.tolist()
    assert sorted(files) == sorted(f"{n}.csv" for n in data.names())


@pytest.mark.parametrize("name", data.names())
def test_sources_row_is_complete(name):
    row = data.source(name)
    assert re.fullmatch(r"\d{3}[-\w]*\.txt", row["seed"]), row["seed"]
    assert re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", row["date"]), row["date"]
    for field in ("post_title", "author", "table", "notes"):
        assert row[field].strip(), f"{name}: empty {field}"


@needs_seeds
@pytest.mark.parametrize("name", data.names())
def test_sources_row_cites_a_seed_holding_the_post_title(name):
    row = data.source(name)
    assert (SEEDS / row["seed"]).is_file(), row["seed"]
    text = seed_of(name)
    if not text.find_text(row["post_title"]):
        assert "not in the seed" in row["notes"], f"{name}: title {row['post_title']!r} is not in the seed"


# -- loading ------------------------------------------------------------------------------------------------------
UNIT_SUFFIXES = ("_per_sec", "_gb", "_mb", "_kb", "_pct", "_per_year", "_per_insert", "_per_txn", "_files", "_sec",
                 "tps", "iops")  # a number's column name ends with its unit ...
# ... or it counts something, or is a ratio.
COUNTS = {"clients", "volumes", "rows", "files", "files_compacting", "comp_cnt", "keys_in", "keys_dropped", "score", "w_amp",
          "overstatement",
          "tables", "table_size", "order", "rows_affected", "count_star",
          "wal_recovery_mode"}  # (the last: an option's number, MyRocks' rocksdb_wal_recovery_mode)


@pytest.mark.parametrize("name", data.names())
def test_load_gives_numbers_with_units_in_their_names(name):
    frame = data.load(name)
    assert frame.attrs["name"] == name
    assert frame.attrs["source"]["file"] == f"{name}.csv"
    for col in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col]):
            assert col.endswith(UNIT_SUFFIXES) or col in COUNTS, f"{name}.{col}: say the unit in the name"
        elif col.endswith(UNIT_SUFFIXES):
            raise AssertionError(f"{name}.{col} should hold numbers, holds {frame[col].dtype}")


def test_load_parses_types():
    rates = data.load("insert_rate_by_concurrency")
    assert rates.binlog.dtype == bool
    assert rates.inserts_per_sec.dtype.kind == "i"
    assert rates[rates.engine == "InnoDB-5.6.26"].compaction.isna().all()
    sweep = data.load("tpcc_memory_sweep")
    assert sweep.loc[(sweep.memory_gb == 5) & (sweep.engine == "InnoDB"), "tps"].item() == pytest.approx(849.0664)


def test_cite_names_author_title_and_date():
    assert data.cite("linkbench_page_size") == (
        "Mark Callaghan (Small Datum blog), \u201cWhy is MyRocks more write-efficient than InnoDB?\u201d "
        "(2016-11-22)")


def test_unknown_table_is_a_clear_error():
    with pytest.raises(ValueError, match="no published table 'nope'.*insert_benchmark_rates"):
        data.load("nope")
    with pytest.raises(ValueError, match="no published table"):
        data.source("nope")


# -- the matcher itself ---------------------------------------------------------------------------------------------
def test_tokens_ignore_spacing_and_punctuation():
    assert tokens("innodb-5.6.26,\u00a0binlog") == ["innodb", "5.6", "26", "binlog"]
    assert tokens("| cf1 | WRITE_BUFFER_SIZE |") == ["cf", "1", "write", "buffer", "size"]


def test_occurs_whole_line_partial_and_wildcard():
    line = tokens("115234    103088     226    MyRocks")
    assert occurs(pattern("115234 * 226 MyRocks"), line, whole=True)
    assert not occurs(pattern("115234 226 MyRocks"), line, whole=True)
    assert occurs(pattern("226 MyRocks"), line, whole=False)
    assert not occurs(pattern("22 MyRocks"), line, whole=False)
