"""`make_backend`, missing optional dependencies, and the `refind models` commands."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from refind_desktop.cli import main
from refind_desktop.config import Settings, load_settings
from refind_desktop.errors import ConfigError, MissingDependencyError
from refind_desktop.llm import catalog
from refind_desktop.llm.base import ChatMessage
from refind_desktop.llm.factory import make_backend
from refind_desktop.llm.schema import parse_json_output, schema_errors


def test_missing_llama_cpp_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    with pytest.raises(MissingDependencyError, match=r'pip install "refind-desktop\[local\]"'):
        make_backend(Settings(model=str(gguf)))


def test_missing_openai_names_the_extra(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "refind-desktop\[openai\]"'):
        make_backend(Settings(openai_api_key="sk-test"), backend="openai")


def test_openai_needs_a_key_or_a_local_server(monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("openai")
    with pytest.raises(ConfigError, match="No OpenAI key: set OPENAI_API_KEY"):
        make_backend(Settings(), backend="openai")
    local = make_backend(Settings(openai_base_url="http://127.0.0.1:9/v1"), backend="openai", model="m")
    assert local.name == "openai" and local.model == "m"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert make_backend(Settings(), backend="openai").model == "gpt-4o-mini"


def test_unknown_backend_is_a_config_error():
    with pytest.raises(ConfigError, match="llama, openai"):
        make_backend(Settings(), backend="gpt5-on-a-toaster")


def test_schema_check_and_json_errors():
    schema = {
        "type": "object",
        "required": ["action"],
        "additionalProperties": False,
        "properties": {
            "action": {"enum": ["search", "answer"]},
            "k": {"type": "integer", "minimum": 1},
            "words": {"type": "array", "items": {"type": "string", "maxLength": 5}},
        },
    }
    assert schema_errors({"action": "search", "k": 2, "words": ["a"]}, schema) == []
    problems = schema_errors({"action": "dance", "k": True, "words": ["toolong"], "x": 1}, schema)
    assert len(problems) == 4
    assert parse_json_output('{"action": "answer"}', schema, "m") == {"action": "answer"}
    from refind_desktop.errors import BackendError

    with pytest.raises(BackendError, match="max_tokens"):
        parse_json_output('{"action": "ans', schema, "m", truncated=True)
    with pytest.raises(BackendError, match="does not fit the schema"):
        parse_json_output('{"k": 3}', schema, "m")


# --- refind models ------------------------------------------------------------------------------------


def test_models_list_json_marks_the_default_in_use(capsys: pytest.CaptureFixture[str]):
    assert main(["models", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["models"]
    in_use = [r["name"] for r in rows if r["in_use"]]
    assert in_use == [catalog.embedded_entry().name]
    assert {r["name"] for r in rows if not r["verified_digest"]} >= {"llama-3.2-3b-instruct"}


def test_models_use_writes_the_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["models", "use", "qwen2.5-7b-instruct"]) == 0
    assert load_settings().model == "qwen2.5-7b-instruct"
    assert "not downloaded yet" in capsys.readouterr().err
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    assert main(["models", "use", str(gguf)]) == 0
    assert load_settings().model == str(gguf.resolve())
    main(["models", "list"])
    assert f"* {gguf.resolve()}" in capsys.readouterr().out
    assert main(["models", "use", ""]) == 0 and load_settings().model == ""


def test_models_use_rejects_unknown_names_and_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["models", "use", "no-such-model"]) == 5
    assert main(["models", "use", str(tmp_path / "nope.gguf")]) == 5
    err = capsys.readouterr().err
    assert "refind: not found:" in err and "known:" in err


def test_unreachable_openai_server_says_what_to_do():
    pytest.importorskip("openai")
    from refind_desktop.errors import BackendError
    from refind_desktop.llm.openai_backend import OpenAIBackend

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    b = OpenAIBackend(model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(BackendError, match="start the server or fix openai_base_url"):
        b.complete([ChatMessage("user", "hi")], max_tokens=2)


def test_only_backend_modules_import_the_engines():
    code = (
        "import sys, refind_desktop.llm.factory, refind_desktop.llm.catalog, refind_desktop.cli.models;"
        "print(sorted(m for m in ('llama_cpp', 'openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
