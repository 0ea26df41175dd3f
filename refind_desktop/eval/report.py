"""Eval reports: the summary as JSON, Markdown tables and a PNG plot of recall@k per mode."""

from __future__ import annotations

import json
import sys
from pathlib import Path

RETRIEVAL_FAMILIES = (
    ("recall_any", "Session recall_any@k (some answer session in the top k sessions)"),
    ("recall_all", "Session recall_all@k (every answer session in the top k sessions)"),
    ("ndcg", "Session NDCG@k"),
    ("turn_recall", "Turn recall@k (share of evidence turns among the top k hit turns)"),
    ("ctx_turn_recall", "Turn recall@k with each hit's context window (what the mode returns)"),
)


def _fmt(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else ("–" if value is None else str(value))


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return lines


def retrieval_markdown(summary: dict) -> str:
    """Markdown: one table per metric family (rows modes, columns k), then recall_any@5 per type."""
    ks = summary["ks"]
    modes = summary["modes"]
    skipped = ", ".join(f"{k} {v}" for k, v in summary["skipped"].items())
    setting = summary.get("setting", "haystack")
    if setting == "archive":
        a = summary.get("archive", {})
        where = (
            f"Archive setting: every haystack in one index ({a.get('sessions')} sessions, "
            f"{a.get('turns')} turns; {a.get('duplicate_sessions_dropped')} duplicate copies dropped, "
            f"{a.get('conflicting_duplicates')} of them differing), each question asked as of its "
            "date (later sessions invisible to every mode, bm25s included). "
        )
    else:
        where = "Haystack setting: one index per question's haystack (the benchmark). "
    lines = [
        f"# Retrieval: {summary['dataset']} ({setting})",
        "",
        f"{summary['questions']} questions, {summary['scored']} scored (skipped: {skipped}). "
        + where
        + "Single-shot: the question is the query. Sessions are ranked by first appearance in the "
        "turn ranking. `bm25s` is the external reference (bm25s library, k1 1.2, b 0.75, English "
        "stop-words, Snowball stemmer) on the same turns.",
        "",
    ]
    for fam, title in RETRIEVAL_FAMILIES:
        rows = [[m] + [e["overall"].get(f"{fam}@{k}") for k in ks] for m, e in modes.items()]
        if all(v is None for r in rows for v in r[1:]):
            continue
        lines += [f"## {title}", ""] + _table(["mode"] + [f"@{k}" for k in ks], rows) + [""]
    k = 5 if 5 in ks else ks[len(ks) // 2]
    types = sorted({t for e in modes.values() for t in e["by_type"]})
    if types:
        rows = [
            [t, next(iter(modes.values()))["by_type"].get(t, {}).get("n")]
            + [e["by_type"].get(t, {}).get(f"recall_any@{k}") for e in modes.values()]
            for t in types
        ]
        lines += [f"## recall_any@{k} by question type", ""] + _table(["type", "n", *modes], rows) + [""]
    lines += ["## Mode notes", ""] + [
        f"- `{m}`: {e['note']}" + (f" — errors: {e['errors']}" if e.get("errors") else "")
        for m, e in modes.items()
    ]
    return "\n".join(lines) + "\n"


def plot_recall(summary: dict, path: Path) -> bool:
    """PNG of session recall_any@k and turn recall@k per mode; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            'refind: no PNG plot: matplotlib is missing (pip install "refind-desktop[bench]")',
            file=sys.stderr,
        )
        return False
    ks = summary["ks"]
    panels = (
        ("recall_any", "session recall_any@k"),
        ("turn_recall", "turn recall@k (hit turns)"),
        ("ctx_turn_recall", "turn recall@k (with context)"),
    )
    fig, axes = plt.subplots(1, len(panels), figsize=(15, 4.4))
    for ax, (fam, title) in zip(axes, panels, strict=True):
        curves: dict[tuple, list[str]] = {}
        for name, entry in summary["modes"].items():
            ys = tuple(entry["overall"].get(f"{fam}@{k}") for k in ks)
            if all(y is not None for y in ys):
                curves.setdefault(ys, []).append(name)
        for ys, names in curves.items():  # identical curves are drawn once, named together
            label = names[0] + (f" (= {', '.join(names[1:])})" if names[1:] else "")
            ax.plot(ks, ys, marker="o", linestyle="--" if "bm25s" in names else "-", label=label)
        ax.set_xticks(ks)
        ax.set_xlabel("k")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{summary['dataset']}: {title}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_retrieval_report(summary: dict, out: Path, stem_name: str | None = None) -> None:
    """<stem>.json/.md/.png in `out` (default stem: retrieval-<dataset>)."""
    out.mkdir(parents=True, exist_ok=True)
    stem = out / (stem_name or f"retrieval-{summary['dataset']}")
    stem.with_suffix(".json").write_text(
        json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    stem.with_suffix(".md").write_text(retrieval_markdown(summary), encoding="utf-8")
    plot_recall(summary, stem.with_suffix(".png"))


def qa_markdown(summary: dict) -> str:
    """Markdown of a QA run: accuracy per scorer, evidence recall, resources, and per-type accuracy."""
    o = summary["overall"]
    lines = [
        f"# QA: {summary['dataset']} — mode {summary['mode']}, back end {summary['backend']}",
        "",
        f"{summary['questions']} questions. Judge: {summary['judge']}. The deterministic scores are "
        "always computed and are labelled as such.",
        "",
    ]
    rows = [[key, o.get(key)] for key in o if key != "n"]
    lines += _table(["figure (mean per question)", "value"], rows) + [""]
    types = summary.get("by_type", {})
    if types:
        keys = [
            k
            for k in (
                "judge_correct",
                "det_correct",
                "right",
                "wrong",
                "unsure",
                "false_not_found",
                "draft_right",
                "draft_wrong",
                "det_f1",
                "evidence_recall",
                "false_abstentions",
            )
            if k in o
        ]
        rows = [[t, v.get("n")] + [v.get(k) for k in keys] for t, v in types.items()]
        lines += ["## By question type", ""] + _table(["type", "n", *keys], rows) + [""]
    return "\n".join(lines) + "\n"


def plot_qa(summary: dict, path: Path) -> bool:
    """PNG bar chart of accuracy per question type (judge and deterministic)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    types = list(summary.get("by_type", {}))
    if not types:
        return False
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(types)), 4))
    keys = [k for k in ("judge_correct", "det_correct", "evidence_recall") if k in summary["overall"]]
    width = 0.8 / max(len(keys), 1)
    for i, key in enumerate(keys):
        ax.bar(
            [x + i * width for x in range(len(types))],
            [summary["by_type"][t].get(key) or 0 for t in types],
            width,
            label=key,
        )
    ax.set_xticks(
        [x + width * (len(keys) - 1) / 2 for x in range(len(types))], types, rotation=20, fontsize=8
    )
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8)
    ax.set_title(f"{summary['dataset']} QA ({summary['mode']}, {summary['backend']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_qa_report(summary: dict, out: Path, stem_name: str) -> None:
    """<stem>.json/.md/.png in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    stem = out / stem_name
    stem.with_suffix(".json").write_text(
        json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    stem.with_suffix(".md").write_text(qa_markdown(summary), encoding="utf-8")
    plot_qa(summary, stem.with_suffix(".png"))
