"""SIGKILL `refind ingest`, `forget` and `reindex` at random points: nothing lost, duplicated or resurrected."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from .helpers import ROOT


@pytest.mark.slow  # some forty `refind` processes, sixteen of them killed
def test_kills_during_forget_and_reindex_lose_and_resurrect_nothing(tmp_path, refind_home, monkeypatch):
    spec = importlib.util.spec_from_file_location("kill_test", ROOT / "benchmarks" / "kill_test.py")
    kt = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "kill_test", kt)
    spec.loader.exec_module(kt)
    res = kt.run(
        kills=16,
        workdir=tmp_path,
        seed=11,
        n_jsonl=12,
        n_chatgpt=2,
        max_delay=1.5,
        budget_s=30,
        ops=("ingest", "forget", "reindex"),
    )
    print({k: v for k, v in res.items() if k != "final_report"})
    ops = res["ops"]
    assert ops.get("forget_killed", 0) + ops.get("reindex_killed", 0) >= 3, ops
    assert (res["lost"], res["duplicates"], res["extra"], res["changed"]) == (0, 0, 0, 0), res
    assert res["resurrected"] == res["forgotten_words_on_disk"] == res["finished_forgets_not_listed"] == 0, (
        res
    )
    assert res["catalog_turns"] == res["turns_checked"] and res["show_json_mismatches"] == 0
