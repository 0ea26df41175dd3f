"""The app with the scripted model, for driving in a real terminal (test_tmux.py): tmux_app.py FOLDER."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for the helpers package

from helpers.tui import responder  # noqa: E402

from refind_desktop.llm.lazy import traits_of  # noqa: E402
from refind_desktop.llm.scripted import ScriptedBackend  # noqa: E402
from refind_desktop.services import build_services  # noqa: E402
from refind_desktop.tui import RefindApp  # noqa: E402


def main() -> None:
    backend = ScriptedBackend(responder())
    svc = build_services()
    try:
        RefindApp(
            svc,
            folder=sys.argv[1],
            backend_factory=lambda settings, progress=None: backend,
            backend_traits=lambda settings: traits_of(backend),
        ).run()
    finally:
        svc.close()


if __name__ == "__main__":
    main()
