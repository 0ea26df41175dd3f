"""docs/configuration.md documents every setting the program reads, and no setting it does not."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from refind_desktop.config import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_the_settings_table_matches_the_settings():
    text = DOC.read_text(encoding="utf-8")
    table = text.split("## Settings", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `([a-z_0-9]+)` \|", table, re.M)
    assert documented == [f.name for f in fields(Settings)]
