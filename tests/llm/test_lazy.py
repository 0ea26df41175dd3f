"""LazyBackend and `backend_traits`: what the agent reads before the first model call never builds the
back end, and tells the same controller as the back end `make_backend` builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from refind_desktop import locations
from refind_desktop.agent.controllers import controller_for
from refind_desktop.config import Settings
from refind_desktop.llm import catalog
from refind_desktop.llm.factory import backend_traits, make_backend
from refind_desktop.llm.lazy import TRAITS, LazyBackend, traits_of
from refind_desktop.llm.scripted import ScriptedBackend


def never(*_a: object) -> None:
    raise AssertionError("the back end was built")


def test_traits_are_answered_without_building():
    lazy = LazyBackend(never, traits={"name": "llama", "controller_hint": "small"})
    assert lazy.name == "llama" and lazy.controller_hint == "small"
    assert getattr(lazy, "model", "none") == "none"  # a trait the back end lacks: not an attribute
    assert controller_for(lazy) == "small" and not lazy.built


def test_other_attributes_build_once_then_speak_for_the_back_end():
    built = []
    real = ScriptedBackend(lambda messages, schema: "hi", name="real")

    def acquire():
        built.append(1)
        return real

    lazy = LazyBackend(acquire, traits=traits_of(real))
    assert lazy.name == "real" and not built
    assert lazy.can_stream and lazy.built and built == [1]
    assert lazy.name == "real" and lazy.supports_schema and built == [1]


def test_without_traits_any_attribute_builds():
    built = []
    lazy = LazyBackend(lambda: built.append(1) or ScriptedBackend())
    assert lazy.name == "scripted" and built == [1]


def _gguf(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"GGUF")  # enough to build a back end: the weights load at the first call
    return path


@pytest.mark.parametrize(
    "file",
    ["my-finetune-3b.Q4.gguf", "mystery-model.gguf", "Qwen2.5-7B-Instruct-Q4_K_M.gguf"],
)
def test_traits_of_a_gguf_path_choose_the_built_back_ends_controller(tmp_path: Path, file: str):
    pytest.importorskip("llama_cpp")
    settings = Settings(model=str(_gguf(tmp_path, file)))
    traits = backend_traits(settings)
    built = make_backend(settings)
    assert set(traits) <= set(TRAITS) and traits["name"] == built.name
    assert traits["controller_hint"] == built.controller_hint
    lazy = LazyBackend(never, traits=traits)
    for setting in ("auto", "small", "oneshot"):
        assert controller_for(lazy, setting) == controller_for(built, setting)


def test_traits_of_catalog_models_choose_the_built_back_ends_controller():
    pytest.importorskip("llama_cpp")
    for entry in catalog.list_models():
        if entry.embedded:  # assembled from its parts on first use: compared by the catalog's word
            assert backend_traits(Settings())["controller_hint"] == entry.controller
            continue
        _gguf(locations.models_dir(), entry.file)
        settings = Settings(model=entry.name)
        built = make_backend(settings)
        assert controller_for(LazyBackend(never, traits=backend_traits(settings))) == controller_for(built)


@pytest.mark.parametrize("model", ["gpt-4o-mini", "qwen2.5-3b-instruct", "llama3.2:1b"])
def test_traits_of_a_served_model_choose_the_built_back_ends_controller(model: str):
    pytest.importorskip("openai")
    settings = Settings(backend="openai", openai_model=model, openai_base_url="http://127.0.0.1:9/v1")
    built = make_backend(settings)
    lazy = LazyBackend(never, traits=backend_traits(settings))
    assert controller_for(lazy) == controller_for(built)


def test_a_setting_the_factory_rejects_has_no_controller_hint():
    traits = backend_traits(Settings(model="no-such-model"))
    assert traits == {"name": "llama"}
    assert backend_traits(Settings(), backend="gpt5-on-a-toaster") == {}
