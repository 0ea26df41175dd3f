"""A few seconds of the parser fuzzer over every registered format (the long run is benchmarks/fuzz_parsers.py)."""

from __future__ import annotations

import importlib.util
import json
import sys

from refind_desktop.ingest.formats import FORMATS

from .helpers import ROOT


def test_fuzz_smoke_every_format_no_crash(capsys, monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("fuzz_parsers", ROOT / "benchmarks" / "fuzz_parsers.py")
    fuzz = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fuzz_parsers", fuzz)
    spec.loader.exec_module(fuzz)
    monkeypatch.setenv("REFIND_HOME", str(tmp_path / "home"))
    code = fuzz.main(["--seconds", "0.1", "--chunk", "4", "--probe-every", "40", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert set(result["formats"]) == set(FORMATS)
    assert all(r["inputs"] > 0 for r in result["formats"].values())
    assert result["total"]["crashes"] == 0 and code == 0, result["total"]
