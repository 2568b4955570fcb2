"""Where sweeps run: MINIDB_EXECUTOR picks the process pool, this process or a Dask cluster, with the same results."""

import pandas as pd
import pytest

from minidb.experiments import executors, f2_write_efficiency


@pytest.mark.parametrize("value, expected", [("", None), ("processes", None), (" processes ", None),
                                             ("serial", False)])
def test_local_executors(value, expected):
    assert executors.from_env(value) is expected


def test_unset_means_the_process_pool(monkeypatch):
    monkeypatch.delenv(executors.ENV, raising=False)
    assert executors.spec() == "processes"


@pytest.mark.parametrize("value", ["threads", "scheduler:8786", "http://host:8786", "tcp://"])
def test_anything_else_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv(executors.ENV, value)
    with pytest.raises(ValueError, match=r"MINIDB_EXECUTOR=.* is not an executor.*tcp://scheduler-host:8786"):
        executors.spec()


def test_a_sweep_on_a_dask_cluster_gives_the_process_pools_frame(monkeypatch):
    """F2 at tiny through MINIDB_EXECUTOR=<a LocalCluster's scheduler> and through the default process pool."""
    distributed = pytest.importorskip("distributed")
    monkeypatch.delenv(executors.ENV, raising=False)
    pool = f2_write_efficiency.run("tiny", cache_dir=False, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        monkeypatch.setenv(executors.ENV, cluster.scheduler_address)
        client = executors.dask_client(cluster.scheduler_address)
        try:
            with distributed.get_task_stream(client) as stream:  # records each task the workers ran
                dask = f2_write_efficiency.run("tiny", cache_dir=False, progress=False)
            ran_on_workers = len(stream.data)
        finally:
            client.close()
            executors.dask_client.cache_clear()
    assert ran_on_workers == len(pool)  # every point went to the cluster, none ran here
    pd.testing.assert_frame_equal(dask, pool)

