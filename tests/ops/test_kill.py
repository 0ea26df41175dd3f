"""SIGKILL a real `refind ingest` at random points; every turn must end up indexed exactly once."""

from __future__ import annotations

import pytest
from helpers.scripts import benchmark


@pytest.mark.slow  # some sixty `refind` processes, thirty of them killed
def test_random_sigkills_lose_and_duplicate_nothing(tmp_path, refind_home):
    kt = benchmark("kill_test")
    res = kt.run(kills=30, workdir=tmp_path, seed=7, n_jsonl=20, n_chatgpt=3, max_delay=0.8, budget_s=60)
    print(res)
    assert res["kills"] >= 5  # kill delays up to 0.8 s: an ingest of this archive often finishes in about 1 s
    assert res["turns_checked"] > 150
    assert (res["lost"], res["duplicates"], res["extra"], res["changed"]) == (0, 0, 0, 0), res
    assert res["max_duplicates_after_a_kill"] == 0
    assert res["catalog_turns"] == res["turns_checked"]
    assert res["show_json_mismatches"] == 0
