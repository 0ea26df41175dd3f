"""ModelCache: one back end per choosing settings, loaded once even when threads ask together."""

from __future__ import annotations

import threading

from refind_desktop.config import Settings
from refind_desktop.tui.model_cache import ModelCache


def test_backend_is_kept_until_a_choosing_setting_changes() -> None:
    made, loads = [], []

    def factory(settings, progress=None):
        made.append(settings.backend)
        return object()

    cache = ModelCache(factory)
    first, loaded = cache.get(Settings(), on_load=lambda: loads.append(1))
    assert loaded and cache.backend is first
    again, loaded = cache.get(Settings(top_k=9))  # not a setting that chooses the back end
    assert again is first and not loaded
    other, loaded = cache.get(Settings(backend="openai"))
    assert loaded and other is not first
    assert made == ["llama", "openai"] and loads == [1]


def test_concurrent_askers_share_one_load() -> None:
    gate = threading.Event()
    calls = []

    def slow(settings, progress=None):
        calls.append(1)
        gate.wait(5)
        return object()

    cache = ModelCache(slow)
    got = []
    threads = [threading.Thread(target=lambda: got.append(cache.get(Settings())[0])) for _ in range(3)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and len(got) == 3 and len({id(b) for b in got}) == 1


def test_a_back_end_with_load_is_loaded_before_it_is_called_ready() -> None:
    order = []

    class Local:
        def load(self) -> None:  # the local model's weights: "ready" means they are in memory
            order.append("weights")

    def factory(settings, progress=None):
        order.append("built")
        return Local()

    cache = ModelCache(factory)
    cache.get(Settings(), on_load=lambda: order.append("loading"))
    assert order == ["loading", "built", "weights"]
    cache.get(Settings())
    assert order == ["loading", "built", "weights"]
