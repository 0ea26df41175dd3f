"""Fuzz every chat-format reader the format registry knows, bounded in time (hypothesis).

    nice -n 10 python benchmarks/fuzz_parsers.py --seconds 20          # every format
    python benchmarks/fuzz_parsers.py --seconds 5 --formats chatgpt slack --json

Formats come from `refind_desktop.ingest.detect.FORMATS`, so a new reader is fuzzed as soon as it
is registered. Seeds are the reader's test fixtures (`tests/fixtures/<format>/`, and the detection
fixtures); hypothesis mutates them: bytes flipped, inserted, cut or duplicated, deep bracket
nesting, JSON values replaced by values of the wrong type (huge or negative numbers, 1e308,
empty strings, control characters, nested lists), and raw random bytes.

Per format it counts the inputs tried and sorts each outcome:
  ok            the reader returned sessions (or none)
  rejected      the reader raised ParseError (a clear "file skipped" reason)
  exceptions    the reader raised anything else (a reader bug; the ingest catches it per file)
  hangs         an input took longer than --hang seconds
Every input that raised or hung, and every Nth other input (--probe-every), is then ingested
through the real pipeline (detect, parse,
tantivy, catalog); `crashes` counts inputs where that ingest itself raised, or where the file
was neither indexed nor reported as skipped. The target is 0 crashes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from refind_desktop.errors import ParseError  # noqa: E402
from refind_desktop.ingest.base import ParseContext  # noqa: E402
from refind_desktop.ingest.formats import FORMATS, get_parser  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
MAX_SEED = 256 * 1024


class Hang(Exception):
    """An input ran past the per-input time limit."""


@dataclass
class Tally:
    """Outcomes of one format's fuzz run."""

    tried: int = 0
    ok: int = 0
    rejected: int = 0
    exceptions: Counter = field(default_factory=Counter)
    hangs: int = 0
    crashes: list[str] = field(default_factory=list)
    pipeline_checked: int = 0
    samples: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "inputs": self.tried,
            "ok": self.ok,
            "rejected": self.rejected,
            "exceptions": dict(self.exceptions),
            "hangs": self.hangs,
            "pipeline_checked": self.pipeline_checked,
            "crashes": len(self.crashes),
            "crash_details": self.crashes[:5],
            "exception_samples": self.samples,
        }


def seeds_of(fmt: str) -> list[Path]:
    """Fixture files (or folders, for folder formats) of one format, small enough to mutate fast."""
    out: list[Path] = []
    for base in (FIXTURES / fmt, FIXTURES / "detect" / fmt):
        if not base.exists():
            continue
        if fmt == "slack":
            out += [p for p in sorted(base.iterdir()) if p.is_dir()]
            continue
        out += [p for p in sorted(base.rglob("*")) if p.is_file() and p.stat().st_size <= MAX_SEED]
    return out


# -- mutations --------------------------------------------------------------------------------------
WEIRD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([1e10, 1e308, -1.0, 0.0, 253402300799, -62135596800, 1e13, float("1e-300")]),
    st.text(max_size=40),
    st.sampled_from(["", "\x1b[2J", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "not a date", "[" * 50]),
)
JSON_VALUES = st.recursive(
    WEIRD,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)


def _nodes(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, (*path, i))


def _replace(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        value = dict(value)
        value[head] = _replace(value[head], rest, new)
    else:
        value = list(value)
        value[head] = _replace(value[head], rest, new)
    return value


def _json_mutation(data: st.DataObject, raw: bytes) -> bytes | None:
    """Replace a few JSON (or JSONL line) values by values of the wrong type; None if not JSON."""
    text = raw.decode("utf-8", "replace")
    try:
        doc = json.loads(text)
        lines = None
    except ValueError:
        try:
            lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            return None
        if not lines:
            return None
        doc = lines
    nodes = list(_nodes(doc))
    if len(nodes) > 5000:
        nodes = nodes[:5000]
    for _ in range(data.draw(st.integers(1, 4), label="replacements")):
        target = data.draw(st.sampled_from(nodes), label="node")
        try:
            doc = _replace(doc, target, data.draw(JSON_VALUES, label="value"))
        except (KeyError, IndexError, TypeError):
            continue
        nodes = list(_nodes(doc))[:5000]
    if lines is not None and isinstance(doc, list):
        return "\n".join(json.dumps(x) for x in doc).encode() + b"\n"
    return json.dumps(doc).encode()


def _byte_mutation(data: st.DataObject, raw: bytes) -> bytes:
    buf = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 6), label="edits")):
        op = data.draw(st.sampled_from(["flip", "insert", "cut", "truncate", "dup", "nest"]), label="op")
        at = data.draw(st.integers(0, max(len(buf), 1)), label="at") if buf else 0
        if op == "flip" and buf:
            buf[min(at, len(buf) - 1)] ^= data.draw(st.integers(1, 255), label="mask")
        elif op == "insert":
            buf[at:at] = data.draw(st.binary(max_size=32), label="bytes")
        elif op == "cut" and buf:
            del buf[at : at + data.draw(st.integers(1, 64), label="len")]
        elif op == "truncate":
            del buf[at:]
        elif op == "dup" and buf:
            buf[at:at] = buf[max(0, at - 64) : at]
        elif op == "nest":
            n = data.draw(st.integers(100, 6000), label="depth")
            buf[at:at] = (b"[" if data.draw(st.booleans(), label="kind") else b'{"a":') * n
    return bytes(buf)


def mutate(data: st.DataObject, seed: bytes) -> bytes:
    """One fuzz input derived from a seed (or raw random bytes)."""
    kind = data.draw(st.sampled_from(["json", "bytes", "both", "random"]), label="kind")
    if kind == "random" or not seed:
        return data.draw(st.binary(max_size=2048), label="random")
    out = seed
    if kind in ("json", "both"):
        out = _json_mutation(data, seed) or seed
    if kind in ("bytes", "both"):
        out = _byte_mutation(data, out)
    return out


# -- running ----------------------------------------------------------------------------------------
def _alarm(_sig, _frame):
    raise Hang()


def materialise(seed: Path, payload: bytes, choice: int, work: Path) -> Path:
    """Write the fuzz input where the reader expects it: a file, or one file of a copied folder."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    if seed.is_dir():
        target = work / seed.name
        shutil.copytree(seed, target)
        files = sorted(p for p in target.rglob("*") if p.is_file())
        files[choice % len(files)].write_bytes(payload)
        return target
    target = work / seed.name
    target.write_bytes(payload)
    return target


def _seed_bytes(seed: Path, choice: int) -> bytes:
    if seed.is_dir():
        files = sorted(p for p in seed.rglob("*") if p.is_file())
        return files[choice % len(files)].read_bytes()
    return seed.read_bytes()


class PipelineProbe:
    """Ingest a suspicious input through the real pipeline in a scratch REFIND_HOME."""

    def __init__(self, home: Path) -> None:
        os.environ["REFIND_HOME"] = str(home)
        os.environ.setdefault("REFIND_TIMEZONE", "UTC")
        from refind_desktop.services import build_services

        self.svc = build_services()

    def check(self, path: Path) -> str | None:
        """None when the ingest survived and either indexed the file or said why it skipped it."""
        try:
            report = self.svc.ingestor.ingest([path], force=True)
        except Exception as exc:  # exactly what must never happen
            return f"{type(exc).__name__}: {str(exc)[:200]}"
        if report.skipped or report.ingested_files or report.warnings or report.unchanged_files:
            return None
        return "the file was neither indexed nor reported"

    def close(self) -> None:
        self.svc.close()


def fuzz_format(
    fmt: str,
    seconds: float,
    hang: float,
    probe: PipelineProbe,
    work: Path,
    cap: int,
    every: int = 0,
    chunk: int = 25,
) -> Tally:
    """Run hypothesis on one format for about `seconds`."""
    parser = get_parser(fmt)
    seeds = seeds_of(fmt)
    tally = Tally()
    suspicious: list[tuple[Path, bytes, int]] = []
    deadline = time.monotonic() + seconds

    @settings(
        max_examples=chunk,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        seed = data.draw(st.sampled_from(seeds), label="seed") if seeds else None
        choice = data.draw(st.integers(0, 1000), label="file") if seed is not None and seed.is_dir() else 0
        payload = mutate(data, _seed_bytes(seed, choice) if seed is not None else b"")
        path = materialise(seed or Path(f"input.{fmt}"), payload, choice, work / "input")
        tally.tried += 1
        if every and tally.tried % every == 0 and len(suspicious) < 2 * cap:
            suspicious.append((seed or Path(f"input.{fmt}"), payload, choice))  # detection too
        signal.setitimer(signal.ITIMER_REAL, hang)
        try:
            list(parser(path, ParseContext()))
            tally.ok += 1
        except ParseError:
            tally.rejected += 1
        except Hang:
            tally.hangs += 1
            if len(suspicious) < cap:
                suspicious.append((seed or Path(f"input.{fmt}"), payload, choice))
        except Exception as exc:  # a reader bug: counted, then checked through the pipeline
            name = type(exc).__name__
            tally.exceptions[name] += 1
            if name not in tally.samples:
                tb = traceback.extract_tb(exc.__traceback__)[-1]
                tally.samples[name] = f"{Path(tb.filename).name}:{tb.lineno}: {str(exc)[:120]}"
            if len(suspicious) < cap:
                suspicious.append((seed or Path(f"input.{fmt}"), payload, choice))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    signal.signal(signal.SIGALRM, _alarm)
    while time.monotonic() < deadline:  # fresh random runs of `chunk` inputs until the time is up
        run()
    for seed, payload, choice in suspicious:
        path = materialise(seed, payload, choice, work / "probe")
        tally.pipeline_checked += 1
        problem = probe.check(path)
        if problem:
            tally.crashes.append(f"{seed.name}: {problem}")
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="fuzz time per format")
    ap.add_argument("--formats", nargs="*", default=None, help="default: every registered format")
    ap.add_argument("--hang", type=float, default=5.0, help="seconds after which one input counts as a hang")
    ap.add_argument(
        "--probe-cap", type=int, default=40, help="suspicious inputs per format run through the pipeline"
    )
    ap.add_argument(
        "--probe-every",
        type=int,
        default=10,
        help="also ingest every Nth input through the pipeline (0: never)",
    )
    ap.add_argument(
        "--chunk", type=int, default=25, help="inputs per hypothesis run (the time is checked between runs)"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    formats = args.formats or list(FORMATS)
    scratch = Path(tempfile.mkdtemp(prefix="refind-fuzz-"))
    probe = PipelineProbe(scratch / "home")
    results: dict[str, dict] = {}
    started = time.monotonic()
    try:
        for fmt in formats:
            tally = fuzz_format(
                fmt,
                args.seconds,
                args.hang,
                probe,
                scratch / fmt,
                args.probe_cap,
                args.probe_every,
                args.chunk,
            )
            results[fmt] = tally.to_json()
            if not args.json:
                exc = ", ".join(f"{k} {v}" for k, v in tally.exceptions.most_common()) or "none"
                print(
                    f"{fmt:<14} inputs {tally.tried:>6}  ok {tally.ok:>5}  rejected {tally.rejected:>5}  "
                    f"hangs {tally.hangs}  reader exceptions: {exc}  "
                    f"pipeline-checked {tally.pipeline_checked}  crashes {len(tally.crashes)}",
                    flush=True,
                )
                for c in tally.crashes[:3]:
                    print(f"    CRASH {c}", flush=True)
    finally:
        probe.close()
        shutil.rmtree(scratch, ignore_errors=True)
    total = {
        "formats": len(results),
        "inputs": sum(r["inputs"] for r in results.values()),
        "crashes": sum(r["crashes"] for r in results.values()),
        "hangs": sum(r["hangs"] for r in results.values()),
        "reader_exceptions": sum(sum(r["exceptions"].values()) for r in results.values()),
        "seconds": round(time.monotonic() - started, 1),
    }
    if args.json:
        print(json.dumps({"total": total, "formats": results}, indent=2))
    else:
        print(
            f"total: {total['formats']} formats, {total['inputs']} inputs, {total['crashes']} crashes, "
            f"{total['hangs']} hangs, {total['reader_exceptions']} reader exceptions caught by the "
            f"pipeline, {total['seconds']} s"
        )
    return 1 if total["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
