"""The dict test double as an engine opener, so the runners run without the real engines."""

import pytest
from table.kv_double import open_dict_engine


@pytest.fixture
def dict_opener():
    """An opener that records the engine it opened (``dict_opener.engines[-1]``)."""
    engines = []

    def opener(device, *, cache_bytes, clock=None, **options):
        engine = open_dict_engine(device, cache_bytes=cache_bytes, clock=clock, **options)
        engines.append(engine)
        return engine

    opener.engines = engines
    opener.__name__ = "dict"
    return opener

