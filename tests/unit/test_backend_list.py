"""One list of back ends: the CLI choices and the factory's error both come from llm.factory.BACKENDS."""

from __future__ import annotations

import pytest

from refind_desktop.cli import build_parser
from refind_desktop.config import Settings
from refind_desktop.errors import ConfigError
from refind_desktop.llm.factory import BACKENDS, make_backend


def test_cli_backend_choices_are_the_factory_list() -> None:
    ask = next(
        a for a in build_parser()._subparsers._group_actions[0].choices["ask"]._actions if a.dest == "backend"
    )
    assert tuple(ask.choices) == tuple(BACKENDS) == ("llama", "openai")


def test_unknown_backend_error_names_every_known_one() -> None:
    with pytest.raises(ConfigError) as info:
        make_backend(Settings(backend="nope"))
    assert all(name in info.value.message for name in BACKENDS)
