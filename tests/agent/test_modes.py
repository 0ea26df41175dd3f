"""The one registry of answer modes: every front end lists the same modes and calls one signature."""

from __future__ import annotations

import inspect
import threading

import pytest
from helpers.agent import by_stage, day

from refind_desktop import modes
from refind_desktop.agent import AgentCancelled
from refind_desktop.llm.scripted import ScriptedBackend


def test_every_front_end_reads_the_registry():
    from refind_desktop.cli import ask as ask_cli
    from refind_desktop.cli import evalcmd
    from refind_desktop.tui.screens.ask import UI_MODES

    names = modes.mode_names()
    assert names[0] == "refind" and {"refind", "generic", "one-search", "rawrag", "hybrid"} <= set(names)
    assert tuple(UI_MODES) == names and tuple(ask_cli.MODE_RUNNERS) == names
    assert set(evalcmd.QA_MODES) <= set(names)


def test_one_runner_signature_with_now_on_event_cancel_and_date_hint():
    for mode in modes.MODES.values():
        params = inspect.signature(mode.run).parameters
        assert {"now", "on_event", "cancel", "date_hint"} <= set(params), mode.name
    from refind_desktop.rag import rawrag

    for fn in (rawrag.run_rawrag, rawrag.run_hybrid):  # Esc cancels the raw-RAG modes too
        assert "cancel" in inspect.signature(fn).parameters


def test_cancel_reaches_the_agent_through_the_registry(svc):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(AgentCancelled):
        modes.run_mode("refind", svc, ScriptedBackend(by_stage()), "umbrella?", now=day(3, 15), cancel=cancel)


def test_unknown_mode_names_the_available_ones():
    from refind_desktop.errors import ConfigError

    with pytest.raises(ConfigError, match="one-search"):
        modes.get_mode("telepathy")
