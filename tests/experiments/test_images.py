"""The image cache: each load a sweep needs is made once and reused; a corrupt or stale image is rebuilt, never
used."""

import functools
import os
from concurrent.futures import Executor, ThreadPoolExecutor

import pytest

from minidb.experiments import f3_memory_sweep as f3
from minidb.experiments import images, sweep
from minidb.experiments.images import ImageError, Load

MADE = []


def make_base(base):
    MADE.append(base)
    return {"base": base}


def load_of(x, base):
    return Load(f"toy-{base}", functools.partial(make_base, base))


def point(x, base, loaded):
    return {"value": x + loaded["base"]}


def run(tmp_path, xs, bases=(100,), **kw):
    return sweep(point, {"x": list(xs), "base": list(bases)}, cache_dir=tmp_path, executor=False, progress=False,
                 load=load_of, **kw)


@pytest.fixture(autouse=True)
def clear():
    MADE.clear()


def image(tmp_path, base=100):
    return images.path(tmp_path, f"toy-{base}")


def test_each_load_is_made_once_and_every_point_gets_it(tmp_path):
    df = run(tmp_path, [1, 2, 3], bases=(100, 200))
    assert df.value.tolist() == [101, 201, 102, 202, 103, 203]
    assert sorted(MADE) == [100, 200]
    assert image(tmp_path).is_file() and image(tmp_path, 200).is_file()


def test_another_sweep_needing_the_same_load_reuses_its_image(tmp_path):
    run(tmp_path, [1])
    stamp = image(tmp_path).stat().st_mtime_ns
    df = sweep(point, {"x": [5, 6], "base": [100]}, name="other-chapter", cache_dir=tmp_path, executor=False,
               progress=False, load=load_of)
    assert df.value.tolist() == [105, 106]
    assert MADE == [100] and image(tmp_path).stat().st_mtime_ns == stamp


def test_no_load_is_made_when_every_point_is_cached(tmp_path):
    run(tmp_path, [1, 2])
    os.remove(image(tmp_path))
    run(tmp_path, [1, 2])
    assert MADE == [100] and not image(tmp_path).exists()


def test_without_a_cache_the_load_is_made_once_and_kept_nowhere(tmp_path):
    df = sweep(point, {"x": [1, 2], "base": [7]}, cache_dir=False, executor=False, progress=False, load=load_of)
    assert df.value.tolist() == [8, 9] and MADE == [7]
    assert not any(tmp_path.iterdir())


def corrupt(path):
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x40
    path.write_bytes(bytes(data))


def truncate(path):
    path.write_bytes(path.read_bytes()[:-5])


def bad_header(path):
    lines = path.read_bytes().split(b"\n", 2)
    path.write_bytes(lines[0] + b"\n{not json\n" + lines[2])


def other_magic(path):
    path.write_bytes(b"X" + path.read_bytes()[1:])


@pytest.mark.parametrize("damage, message", [(corrupt, "fails its SHA-256"), (truncate, "truncated"),
                                             (bad_header, "corrupt header"), (other_magic, "bad magic")])
def test_a_damaged_image_is_detected_and_rebuilt(tmp_path, damage, message):
    run(tmp_path, [1])
    damage(image(tmp_path))
    with pytest.raises(ImageError, match=message):
        images.read(image(tmp_path), "toy-100")
    assert run(tmp_path, [2]).value.tolist() == [102]
    assert MADE == [100, 100]  # made again, not read
    assert images.read(image(tmp_path), "toy-100") == {"base": 100}  # and replaced by a sound one


def test_a_stale_image_is_detected_and_rebuilt(tmp_path, monkeypatch):
    run(tmp_path, [1])
    monkeypatch.setattr(images, "source_fingerprint", lambda: "another-commit")  # the code changed since then
    with pytest.raises(ImageError, match="stale"):
        images.read(image(tmp_path), "toy-100")
    run(tmp_path, [2])
    assert MADE == [100, 100]
    assert images.read(image(tmp_path), "toy-100") == {"base": 100}


def test_an_image_of_another_minidb_version_is_stale(tmp_path, monkeypatch):
    run(tmp_path, [1])
    monkeypatch.setattr(images, "__version__", "0.0.1")
    assert not images.usable(image(tmp_path), "toy-100")
    run(tmp_path, [2])
    assert MADE == [100, 100]


def test_an_image_of_another_load_is_never_used(tmp_path):
    run(tmp_path, [1], bases=(100, 200))
    os.replace(image(tmp_path, 200), image(tmp_path))
    with pytest.raises(ImageError, match="holds load 'toy-200'"):
        images.read(image(tmp_path), "toy-100")
    assert run(tmp_path, [3]).value.tolist() == [103]


def test_a_point_finding_its_image_damaged_loads_again(tmp_path):
    load = load_of(1, 100)
    images.make(load, tmp_path)
    truncate(image(tmp_path))
    assert images.get(load, tmp_path) == {"base": 100}
    assert MADE == [100, 100] and images.usable(image(tmp_path), "toy-100")


def test_f3_measures_the_same_from_a_rebuilt_image(tmp_path):
    """A sweep of real loads in worker processes: one image per engine, and the same rows after a corrupt one."""
    first = f3.run("tiny", memory_gb=(5, 100), cache_dir=tmp_path, progress=False)
    found = sorted(p.name.split("-")[1] for p in (tmp_path / images.FOLDER).iterdir())
    assert found == ["btree", "lsm"]
    for p in (tmp_path / images.FOLDER).iterdir():
        corrupt(p)
    for p in (tmp_path / "f3-memory-sweep").iterdir():
        p.unlink()
    again = f3.run("tiny", memory_gb=(5, 100), cache_dir=tmp_path, progress=False)
    assert again.equals(first)
    assert all(images.usable(p, p.stem) for p in (tmp_path / images.FOLDER).iterdir())


def test_a_cache_that_cannot_be_written_still_gives_the_load(tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache would be")
    assert images.get(load_of(1, 100), blocked) == {"base": 100}


class ElsewhereExecutor(Executor):
    """An executor of another library (as Dask's): its workers may not share this machine's disk."""

    def __init__(self):
        self.pool = ThreadPoolExecutor(2)
        self.submitted = []

    def submit(self, fn, *args, **kwargs):
        self.submitted.append(fn)
        return self.pool.submit(fn, *args, **kwargs)


def test_with_a_foreign_executor_images_are_made_here_and_points_run_there(tmp_path):
    pool = ElsewhereExecutor()
    df = sweep(point, {"x": [1, 2], "base": [100, 200]}, cache_dir=tmp_path, executor=pool, progress=False,
               load=load_of)
    assert df.value.tolist() == [101, 201, 102, 202] and sorted(MADE) == [100, 200]
    assert len(pool.submitted) == 4  # the points only
    pool.pool.shutdown()
