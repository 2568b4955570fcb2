"""The damage fuzzing campaign (see fuzz.py): every case is detected or leaves all acknowledged data intact.

The normal suite runs a few hundred cases; ``-m fuzz_long`` runs thousands. Both print the tally.
"""

import pytest

from damage.fuzz import campaign, tally


def _check(tmp_path, cases, seed):
    results = campaign(str(tmp_path), cases, seed=seed)
    counts = tally(results)
    print(f"\ndamage fuzzing: {len(results)} cases: " + ", ".join(f"{v} {n}" for v, n in counts.items()))
    bad = [c for c in results if c.verdict in ("wrong", "hang", "signal")]
    assert not bad, "\n".join(map(str, bad[:10]))
    lost = [c for c in results if c.verdict == "lost-tail"]
    assert all(c.kind in ("truncate", "delete", "directory", "zero") for c in lost), lost  # a cut or lost newest log end
    assert counts["detected"] > 0 and counts["intact"] > 0
    return counts


def test_damage_campaign(tmp_path):
    _check(tmp_path, 200, seed=7)


@pytest.mark.fuzz_long
def test_damage_campaign_long(tmp_path):
    _check(tmp_path, 3000, seed=11)
