"""The damage fuzzing campaign (see fuzz.py): every case is detected or leaves all acknowledged data intact, no
open hangs or deletes a file after finding damage, and ``minidb verify`` refuses whatever the open refuses.

The normal suite runs a couple of hundred cases; ``-m fuzz_long`` runs thousands. Both print the tally.
"""

import pytest

from damage.fuzz import SETUPS, campaign, tally


def _check(tmp_path, cases, seed):
    results = campaign(str(tmp_path), cases, seed=seed)
    counts = tally(results)
    print(f"\ndamage fuzzing: {len(results)} cases: " + ", ".join(f"{v} {n}" for v, n in counts.items()))
    bad = [c for c in results if c.verdict in ("wrong", "hang", "signal")]
    assert not bad, "\n".join(map(str, bad[:10]))
    lost = [c for c in results if c.verdict == "lost-tail"]
    # only the end of the newest log, cut, zeroed, deleted or rolled back, loses data without an error
    assert all(c.kind in ("truncate", "delete", "directory", "zero", "older", "cut-record") for c in lost), lost
    deleting = [c for c in results if c.deleted]
    assert not deleting, "\n".join(map(str, deleting[:10]))
    missed = [c for c in results if c.verdict == "detected" and c.verify_passed]
    assert not missed, "\n".join(map(str, missed[:10]))
    assert counts["detected"] > 0 and counts["intact"] > 0
    assert {c.setup for c in results if c.kind == "lock"} == set(SETUPS)
    return counts


def test_damage_campaign(tmp_path):
    _check(tmp_path, 200, seed=7)


@pytest.mark.fuzz_long
def test_damage_campaign_long(tmp_path):
    _check(tmp_path, 3000, seed=11)
