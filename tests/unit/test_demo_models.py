"""One model store: the model `refind demo` assembles is the one real use finds, and the other way round."""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path

import pytest

from refind_desktop import locations
from refind_desktop.cli import main
from refind_desktop.llm import catalog, model_files

BLOB = bytes(range(256)) * 2048 + b"model"
BLOB_SHA = hashlib.sha256(BLOB).hexdigest()


@pytest.fixture
def fake_embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """A small embedded model assembled from real part files; returns the list of assemblies made."""
    parts = []
    for i, chunk in enumerate((BLOB[:200_000], BLOB[200_000:])):
        p = tmp_path / "parts" / f"part{i:02d}.bin"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(chunk)
        parts.append(p)
    entry = replace(catalog.embedded_entry(), file="fake.gguf", size=len(BLOB), sha256=BLOB_SHA)
    monkeypatch.setattr(catalog, "embedded_entry", lambda: entry)
    monkeypatch.setattr(catalog, "part_files", lambda packages: parts)
    made: list[Path] = []
    real = catalog.assemble

    def counted(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(catalog, "assemble", counted)
    monkeypatch.delenv(catalog.CACHE_ENV, raising=False)
    # the demo sets both: recorded here so that they are restored after the test ("" = not set)
    monkeypatch.setenv(locations.MODELS_ENV, "")
    monkeypatch.setenv("REFIND_HOME", os.environ["REFIND_HOME"])
    return made


def test_demo_and_real_use_share_one_assembled_model(fake_embedded: list[Path], capsys) -> None:
    user_models = locations.models_dir()
    user_home = os.environ["REFIND_HOME"]
    assert main(["demo", "--search-only"]) == 0
    assert os.environ["REFIND_HOME"] != user_home  # now inside the demo home
    in_demo = catalog.resolve_model("")  # what the demo's `ask` loads
    assert in_demo == user_models / "fake.gguf" and in_demo.read_bytes() == BLOB
    os.environ["REFIND_HOME"] = user_home
    os.environ[locations.MODELS_ENV] = ""
    assert catalog.resolve_model("") == in_demo  # what a real `ask` loads afterwards
    assert fake_embedded == [in_demo]  # assembled once
    assert not list((Path(user_home) / "data" / "demo").rglob("*.gguf"))


def test_real_use_first_then_the_demo_reuses_its_model(fake_embedded: list[Path], monkeypatch) -> None:
    first = catalog.resolve_model("")
    monkeypatch.setattr(
        model_files, "sha256_file", lambda *a: pytest.fail("a verified model is not re-hashed")
    )
    assert main(["demo", "--search-only"]) == 0
    assert catalog.resolve_model("") == first and fake_embedded == [first]


def test_a_copy_left_in_the_demo_home_moves_to_the_shared_store(fake_embedded: list[Path], capsys) -> None:
    old_home = locations.data_dir() / "demo"
    old_models = locations.Paths.under(old_home).models_dir
    made = catalog.assemble(catalog.part_files(()), old_models / "fake.gguf", BLOB_SHA, len(BLOB))
    fake_embedded.clear()
    shared = locations.models_dir()
    assert main(["demo", "--search-only"]) == 0
    assert not made.exists() and (shared / "fake.gguf").read_bytes() == BLOB
    assert catalog.resolve_model("") == shared / "fake.gguf" and fake_embedded == []
