"""Load once, measure many: a TPC-C load frozen as an image, and runs reopened on copies of it."""

import pytest

from minidb import scales
from minidb.workloads import DataSetup, RunSetup, tpcc
from minidb.workloads.loaded import reopen
from minidb.workloads.tpcc import load_tpcc, tpcc_from, tpcc_load_key

TRANSACTIONS = 60


@pytest.fixture(scope="module", params=["btree", "lsm"])
def loaded(request):
    return load_tpcc(DataSetup(request.param, scale="tiny", seed=3))


def test_runs_of_one_load_are_independent_and_repeatable(loaded):
    files = loaded.image.files
    small = RunSetup(loaded.data, cache_bytes=scales.SMALLEST_POOL_BYTES)
    first = tpcc_from(loaded, small, TRANSACTIONS).summary
    big = tpcc_from(loaded, RunSetup(loaded.data, cache_bytes=64 << 20), TRANSACTIONS).summary
    again = tpcc_from(loaded, small, TRANSACTIONS).summary
    assert first == again  # the bigger cache's run between them changed nothing of the load
    assert loaded.image.files == files
    assert big["reads_per_op"] < first["reads_per_op"]  # the same data, measured with more memory
    assert big["rows"] == first["rows"] > loaded.rows  # the load's rows, and those the transactions added


def test_a_run_draws_what_it_would_have_drawn_right_after_loading(loaded):
    setup = RunSetup(loaded.data, cache_bytes=64 << 20)
    after_load = tpcc(setup, transactions=TRANSACTIONS).summary
    reopened = tpcc_from(loaded, setup, TRANSACTIONS).summary
    for field in ("rows", "new_orders", "rollbacks", "ops"):
        assert reopened[field] == after_load[field]


def test_a_reopened_device_counts_from_zero(loaded):
    drv = reopen(loaded, RunSetup(loaded.data, cache_bytes=64 << 20), RunSetup().host(1))
    opened = drv.storage.stats.total()  # what opening the engine read and wrote; the copy itself is no IO
    assert opened.write_bytes + opened.read_bytes < loaded.image.bytes
    assert drv.rows() == loaded.rows


def test_the_load_key_names_what_shapes_the_data():
    data = DataSetup("lsm", scale="tiny", seed=3)
    key = tpcc_load_key(data)
    assert key == tpcc_load_key(DataSetup("lsm", scale="tiny", seed=3))
    assert key != tpcc_load_key(DataSetup("lsm", scale="tiny", seed=4))
    assert key != tpcc_load_key(DataSetup("lsm", scale="tiny", seed=3, engine_options={"compression": "lz4"}))
    assert key != tpcc_load_key(data, warehouses=2)
    assert key != tpcc_load_key(DataSetup("btree", scale="tiny", seed=3))


def test_a_run_needs_a_tpcc_load(loaded):
    from dataclasses import replace

    with pytest.raises(ValueError, match="needs a TPC-C load"):
        tpcc_from(replace(loaded, workload="sysbench"), RunSetup(loaded.data))


def test_a_warmup_is_run_but_left_out_of_the_result(loaded):
    setup = RunSetup(loaded.data, cache_bytes=64 << 20)  # holds everything: only first reads miss
    cold = tpcc_from(loaded, setup, TRANSACTIONS).summary
    warm = tpcc_from(loaded, setup, TRANSACTIONS // 2, warmup=TRANSACTIONS // 2).summary
    assert warm["ops"] == TRANSACTIONS // 2 == sum(warm["by_type"].values())
    assert warm["rows"] == cold["rows"]  # the same transactions ran, the warm-up's too
    assert warm["new_orders"] < cold["new_orders"]  # ... but only the measured ones are counted
    assert warm["reads_per_op"] < cold["reads_per_op"]  # the warm-up read what the measured part needs


def test_a_warmup_of_zero_is_no_warmup_and_below_zero_is_refused(loaded):
    setup = RunSetup(loaded.data)
    assert tpcc_from(loaded, setup, TRANSACTIONS, warmup=0).summary == tpcc_from(loaded, setup, TRANSACTIONS).summary
    with pytest.raises(ValueError, match="warmup >= 0"):
        tpcc_from(loaded, setup, TRANSACTIONS, warmup=-1)


def test_a_warmup_that_ends_inside_a_step_still_measures_every_transaction_after_it(loaded):
    last = tpcc_from(loaded, RunSetup(loaded.data), 1, warmup=TRANSACTIONS - 1).summary
    assert last["ops"] == 1 == sum(last["by_type"].values())
