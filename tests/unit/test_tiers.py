"""The test tiers: `pytest -m "not slow"` leaves out exactly the tests that load the real GGUF, build a
wheel or spawn many processes, and keeps every other test."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ALWAYS_SLOW = {
    "tests/ops/test_wheel.py::test_wheel_installs_in_a_fresh_venv_and_works",
    "tests/ops/test_kill.py::test_random_sigkills_lose_and_duplicate_nothing",
    "tests/hardening/test_kill_forget_reindex.py::test_kills_during_forget_and_reindex_lose_and_resurrect_nothing",
    "tests/ops/test_lock.py::test_three_processes_one_writes_second_writer_told_readers_read",
}
REAL_MODEL = {  # collected only where llama-cpp-python is installed
    "tests/llm/test_llama_backend.py::test_schema_call_returns_valid_json",
    "tests/llm/test_llama_backend.py::test_no_network_connection_is_opened",
    "tests/eval/test_agent_vs_raw.py::test_each_call_is_replayed_with_the_same_tokens_and_the_same_cached_prefix",
    "tests/agent/test_agent_real_model.py::test_local_model_answers_an_easy_question",
}


WHERE = [  # the modules above, and two folders of fast tests (collecting everything takes long)
    *sorted({name.split("::")[0] for name in ALWAYS_SLOW | REAL_MODEL}),
    "tests/llm",
    "tests/search",
    "tests/ingest/test_detect.py",
]


def collect(marker: str) -> set[str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            marker,
            *WHERE,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line.split("[")[0] for line in done.stdout.splitlines() if "::" in line}


def test_slow_tier_holds_the_model_wheel_and_process_tests_only() -> None:
    slow = collect("slow")
    assert ALWAYS_SLOW <= slow
    if importlib.util.find_spec("llama_cpp") is not None:
        assert REAL_MODEL <= slow
    # a test in a model module that needs no model stays in the fast tier
    assert "tests/llm/test_llama_backend.py::test_reused_prefix_rules" not in slow
    assert not any(name.startswith(("tests/ingest/", "tests/search/")) for name in slow)
