"""The one factory: build_services over explicit paths, the typed caches, reindex in the core, settings layers."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from refind_desktop.config import Settings, load_settings, save_settings
from refind_desktop.errors import ConfigError
from refind_desktop.locations import Paths, default_paths
from refind_desktop.services import Services, build_services, reindex


def _chat(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    rows = [("user", text), ("assistant", "noted")]
    path.write_text(
        "".join(
            json.dumps({"role": r, "content": c, "timestamp": "2024-05-01T10:00:00Z"}) + "\n" for r, c in rows
        )
    )
    return path


def test_default_paths_follow_refind_home(refind_home: Path) -> None:
    paths = default_paths()
    assert paths == Paths.under(refind_home)
    assert paths.index_dir == refind_home / "data" / "index"
    assert paths.catalog_file == refind_home / "data" / "catalog.sqlite"
    assert paths.config_file == refind_home / "config" / "config.toml"


def test_build_services_on_explicit_paths_touches_no_other_home(refind_home: Path, tmp_path: Path) -> None:
    other = Paths.under(tmp_path / "elsewhere")
    save_settings(Settings(top_k=7), other.config_file)
    svc = build_services(paths=other)
    try:
        assert svc.paths == other and svc.index.path == other.index_dir
        assert svc.settings.top_k == 7  # that home's config file, through load_settings
        report = svc.ingestor.ingest([_chat(tmp_path / "chats", "a.jsonl", "garlic depth")])
        assert report.added_turns == 1
        assert svc.engine.search("garlic")[0].session_id
        assert other.catalog_file.exists() and (other.data_dir.stat().st_mode & 0o077) == 0
    finally:
        svc.close()
    assert not (refind_home / "data").exists()  # the REFIND_HOME of this test was never used


def test_typed_caches_replace_the_untyped_extras(refind_home: Path) -> None:
    names = {f.name for f in fields(Services)}
    assert "extras" not in names
    assert {"dense", "hybrid", "vectors_current", "eval_sessions", "bm25s_anchor"} <= names
    svc = build_services()
    try:
        assert svc.dense is None and svc.hybrid is None and svc.eval_sessions == []
    finally:
        svc.close()


def test_reindex_rebuilds_from_the_recorded_sources_and_keeps_gone_files(tmp_path: Path) -> None:
    paths = Paths.under(tmp_path / "home")
    kept = _chat(tmp_path / "chats", "kept.jsonl", "tomato fertilizer")
    gone = _chat(tmp_path / "chats", "gone.jsonl", "bicycle chain")
    svc = build_services(Settings(timezone="UTC"), paths)
    try:
        assert svc.ingestor.ingest([tmp_path / "chats"]).added_turns == 2
    finally:
        svc.close()
    gone.unlink()
    seen = []
    result = reindex(Settings(timezone="UTC"), paths, progress=seen.append)
    assert result.gone == [str(gone)] and result.kept_turns == 1  # rebuilt from the archive
    assert result.report.ingested_files == 1
    assert seen and seen[-1].files_done == 1
    svc = build_services(Settings(timezone="UTC"), paths)
    try:
        assert [f.path for f in svc.catalog.files()] == sorted([str(kept), str(gone)])
        assert svc.index.num_turns() == 2
        assert svc.engine.search("bicycle"), "the turns of a file that is gone are kept"
        assert [g["path"] for g in svc.stats()["gone"]] == [str(gone)]
    finally:
        svc.close()


def test_load_settings_without_environment_reads_the_file_layer_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('top_k = 7\nbackend = "openai"\n')
    monkeypatch.setenv("REFIND_TOP_K", "9")
    assert load_settings(path).top_k == 9
    file_only = load_settings(path, environment=False)
    assert (file_only.top_k, file_only.backend) == (7, "openai")
    path.write_text('n_ctx = "big"\n')
    with pytest.raises(ConfigError, match="n_ctx"):
        load_settings(path, environment=False)


def test_models_use_writes_only_the_file_layer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`refind models use` must not copy REFIND_* environment values (REFIND_TIMEZONE here) into config.toml."""
    import tomllib

    from refind_desktop.cli import main

    monkeypatch.setenv("REFIND_TOP_K", "9")
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    assert main(["models", "use", str(gguf)]) == 0
    assert tomllib.loads(default_paths().config_file.read_text()) == {"model": str(gguf.resolve())}
