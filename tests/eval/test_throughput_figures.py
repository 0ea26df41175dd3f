"""The throughput benchmark's arithmetic: raw prompt rates by length, and the agent's calls priced at them."""

from __future__ import annotations

import json

import pytest
from helpers.scripts import benchmark

bench = benchmark("llama_throughput")

RAW = {
    "prompt_tps": {"512": 100.0, "2048": 80.0, "6144": 60.0},
    "gen_tps": 25.0,
    "gen_tps_at": {"512": 25.0, "2048": 15.0},
    "gen_json_tps": {"grammar_first": 20.0},
}


def test_a_prompt_is_priced_at_the_rate_of_where_its_new_tokens_sit():
    assert bench.pp_rate(RAW, 200, 200) == 100.0  # short: held at the smallest size
    assert bench.pp_rate(RAW, 1280, 1280) == pytest.approx(90.0)  # 2*1280-1280 = 1280: halfway 512..2048
    assert bench.pp_rate(RAW, 1536, 1024) == pytest.approx(80.0)  # a 1,024-token suffix ending at 1,536
    assert bench.pp_rate(RAW, 9000, 9000) == 60.0  # long: held at the largest size


def test_agent_calls_are_priced_per_call_strictly_and_with_the_json_rate(tmp_path):
    calls = [
        {
            "stage": "controller",
            "json": True,
            "prompt_tokens": 1280,
            "reprocessed_prompt_tokens": 1280,
            "completion_tokens": 20,
            "seconds": 16.0,
        },
        {
            "stage": "answer",
            "json": False,
            "prompt_tokens": 200,
            "reprocessed_prompt_tokens": 100,
            "completion_tokens": 25,
            "seconds": 2.5,
        },
    ]
    usage = {
        "prompt_tokens": 1480,
        "reprocessed_prompt_tokens": 1380,
        "completion_tokens": 45,
        "model_seconds": 18.5,
        "per_call": calls,
    }
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps({"usage": usage}) + "\n", encoding="utf-8")
    a = bench.agent_figures(path, RAW)
    # prompts: 1280/90 + 100/100 s; replies: 45/25 strict, or 20/20 + 25/25 at the JSON rate
    assert a["raw_predicted_seconds_strict"] == round(1280 / 90 + 1 + 45 / 25, 1)
    assert a["raw_predicted_seconds_json"] == round(1280 / 90 + 1 + 1 + 1, 1)
    assert a["achieved_vs_raw_json"] == round((1280 / 90 + 3) / 18.5, 3)
    assert a["raw_predicted_seconds_flat"] == round(1380 / 100 + 45 / 25, 1)
    # matched: the JSON reply after a 1,280-token prompt at 20.0 * (20/25) tok/s, the free one at 25
    assert a["raw_predicted_seconds_matched"] == round(1280 / 90 + 1 + 20 / (20.0 * 0.8) + 25 / 25, 1)
    assert bench.gen_rate(RAW, 1280) == pytest.approx(20.0) and bench.gen_rate(RAW, 9000) == 15.0
