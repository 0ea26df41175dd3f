"""Layered settings: defaults <- config.toml <- REFIND_* environment <- command-line flags."""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from . import locations
from .errors import ConfigError


@dataclass(frozen=True)
class Settings:
    """User settings; each attribute's comment is its documentation."""

    chat_folder: str = ""
    """Folder of chat exports that the app and `refind watch` ingest."""
    sources: tuple[str, ...] = ()
    """More files and folders to ingest (coding-agent logs found by `refind sources discover --add`).
    In the environment: REFIND_SOURCES, paths separated by the OS path separator."""
    timezone: str = "local"
    """Zone for exports whose times carry no zone (WhatsApp, Telegram, SillyTavern): "local" (this machine's
    IANA zone, DST included), "UTC" or an IANA name like "Europe/Berlin"."""
    conversation_gap_hours: float = 4.0
    """A messenger chat (WhatsApp, Telegram, Discord, SillyTavern) is cut into conversations: a pause of
    this many hours starts a new one (negative: never on the pause alone). Takes effect at `refind
    reindex`."""
    conversation_night_gap_hours: float = -1.0
    """A pause of this many hours that crosses midnight (in `timezone`) also starts a new conversation
    (0: every new day does; negative, the default: the day plays no part). Takes effect at `refind
    reindex`."""
    backend: str = "llama"
    """Model back end for `refind ask`: "llama" (local GGUF) or "openai" (OpenAI-compatible server)."""
    model: str = ""
    """Catalog name or GGUF path for the llama back end; empty = the embedded default model."""
    n_ctx: int = 8192
    """Context size of the local model."""
    n_threads: int = 0
    """CPU threads for the local model (0 = all cores)."""
    n_gpu_layers: int = 0
    """Layers offloaded to a GPU by llama.cpp (0 = CPU only)."""
    openai_base_url: str = ""
    """Base URL of an OpenAI-compatible server (empty = api.openai.com)."""
    openai_api_key: str = ""
    """API key for the openai back end (or set OPENAI_API_KEY)."""
    openai_model: str = "gpt-4o-mini"
    """Model name sent to the OpenAI-compatible server."""
    openai_parallel: int = 4
    """Requests the openai back end sends at once when a question's calls do not depend on each other (the
    readings of a question that adds things up, its relevance calls); 1 = one at a time. A server that
    decodes requests side by side (OpenAI, vLLM, llama.cpp's server with several slots, Ollama with
    OLLAMA_NUM_PARALLEL) answers them together."""
    mode: str = "refind"
    """Default answering mode: refind, generic, one-search, rawrag, hybrid."""
    top_k: int = 5
    """Results per search."""
    context_window: int = 2
    """Turns of context before and after each hit."""
    max_searches: int = 4
    """Search rounds per question in ReFind mode (one-shot controller)."""
    controller: str = "auto"
    """ReFind controller: "small" (stepwise, for small local models: a relevance call per search when the
    question adds things up),
    "reader" (the first searches with no relevance call and no follow-up: the answer stage's reading
    judges), "oneshot" (the paper's take_note controller, for strong models) or "auto" (by the model: the
    catalog's default, else by size)."""
    embed_model: str = ""
    """Sentence-transformers model for Raw-RAG/hybrid: a local folder or cached name (empty = the packaged
    all-MiniLM-L6-v2). Nothing is fetched from a model hub. Changing it needs `refind embed --rebuild`."""
    rerank_model: str = ""
    """Cross-encoder for the Raw-RAG rerank: a local CrossEncoder folder (empty = none: dense-order fallback)."""
    embed_threads: int = 0
    """CPU threads for embedding and reranking (0 = torch's default)."""
    lock_wait: float = 5.0
    """Seconds a write (ingest, forget, reindex) waits for another refind process that is writing."""
    max_unpacked_mb: int = 8192
    """Largest size (MiB) one zip member or `.zst`/`.gz` stream may unpack to; a bigger one is skipped."""
    max_unpack_ratio: float = 200.0
    """Largest compression ratio (unpacked / packed, judged past 8 MiB) before a file counts as a bomb."""
    max_archive_members: int = 200000
    """Most members a zip archive may have; an archive with more is skipped."""
    max_string_mb: int = 16
    """Longest JSON string or JSONL line (MiB); a file (or line) with a longer one is skipped."""
    redact: bool = True
    """Replace secrets (API keys, tokens, private keys, `PASSWORD=` values; see docs/redaction.md) with
    `[redacted: KIND]` markers in everything refind prints or sends: MCP results, `--json`, the terminal
    and prompts to a remote model. RISK: off (REFIND_REDACT=0) hands every key in your chats verbatim to
    each MCP client, to the cloud model behind it and to a remote openai back end. The archive on disk is
    verbatim either way; `--reveal` shows secrets in one command's output without turning this off."""
    mcp_max_result_bytes: int = 16000
    """Most bytes of chat text one MCP search result (or one `show` turn) carries; the rest is cut with a
    marker saying how to read it (`show` with a turn range and text_from)."""
    mcp_max_call_bytes: int = 100000
    """Most bytes of chat text one MCP tool call returns; results past it are left out with a marker."""

    # -- remote sources (`refind sources add ssh://…`) --------------------------------------------
    remote_pull_interval: int = 900
    """Seconds between two pulls of the remote sources while the app watches its folder or `refind watch`
    runs (0 = never: only `refind ingest` pulls). Each pull copies only new and changed bytes, then
    ingests the mirrors; a host that is down is reported and tried again at the next pull."""

    def replace(self, **changes: object) -> Settings:
        """A copy with some fields changed (None values are ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _coerce(name: str, value: object, kind: type) -> object:
    if kind is tuple:
        if isinstance(value, str):
            return tuple(p for p in value.split(os.pathsep) if p)
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise ConfigError(f"setting {name!r} must be a list of paths, got {value!r}")
    if kind is bool:
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise ConfigError(f"setting {name!r} must be true or false (1/0, yes/no, on/off), got {value!r}")
    try:
        if kind is int:
            return int(value)  # type: ignore[arg-type]
        if kind is float:
            return float(value)  # type: ignore[arg-type]
        return str(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"setting {name!r} must be {kind.__name__}, got {value!r}") from exc


RETIRED = frozenset({"answer_style", "premise_check"})
"""Settings of earlier versions that no longer do anything: read from an old config.toml and ignored
(the answer stage reads one passage at a time; its checks are agent/checks.py)."""


def load_settings(path: Path | None = None, environment: bool = True) -> Settings:
    """Read defaults, then config.toml, then (unless `environment` is False: what a front end saves
    back to the file) REFIND_<NAME> environment variables; every value is checked and typed."""
    path = path or locations.config_file()
    values: dict[str, object] = {}
    kinds: dict[object, type] = {
        "int": int,
        int: int,
        "float": float,
        float: float,
        "bool": bool,
        bool: bool,
        "tuple[str, ...]": tuple,
    }
    known = {f.name: kinds.get(f.type, str) for f in fields(Settings)}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML ({exc}); fix or delete it") from exc
        for key, value in data.items():
            if key in RETIRED:
                continue
            if key not in known:
                raise ConfigError(f"{path}: unknown setting {key!r}; known: {', '.join(sorted(known))}")
            values[key] = _coerce(key, value, known[key])
    for name, kind in known.items():
        env = os.environ.get("REFIND_" + name.upper()) if environment else None
        if env is not None:
            values[name] = _coerce(name, env, kind)
    return Settings(**values)  # type: ignore[arg-type]


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write non-default settings to config.toml, readable by the user only (it may hold a key)."""
    path = path or locations.config_file()
    default = Settings()
    lines = []
    for f in fields(Settings):
        value = getattr(settings, f.name)
        if value == getattr(default, f.name):
            continue
        if isinstance(value, bool):
            lines.append(f"{f.name} = {'true' if value else 'false'}")
        elif isinstance(value, int | float):
            lines.append(f"{f.name} = {value}")
        elif isinstance(value, list | tuple):
            items = ", ".join(json.dumps(str(v), ensure_ascii=False) for v in value)  # valid TOML strings
            lines.append(f"{f.name} = [{items}]")
        else:
            escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'{f.name} = "{escaped}"')
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + ("\n" if lines else ""))
    os.chmod(path, 0o600)
    return path
