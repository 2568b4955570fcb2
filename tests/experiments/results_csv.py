"""What ``minidb experiment`` writes for a finding's results, checked against the results themselves."""

import pandas as pd

from minidb.commands.experiment import results_table


def assert_written_whole(results, path) -> None:
    """``results`` (a DataFrame, or a dict of them by part) written as the command writes them, then read back:
    every row of every part is there, a dict's rows under their part's name."""
    results_table(results).to_csv(path, index=False)
    back = pd.read_csv(path)
    parts = results if isinstance(results, dict) else {None: results}
    assert len(back) == sum(len(f) for f in parts.values())
    for name, frame in parts.items():
        rows = back if name is None else back[back.part == name]
        assert len(rows) == len(frame) and set(frame.columns) <= set(rows.columns)
