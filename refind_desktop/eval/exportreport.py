"""Reports of an export-set run (eval/exportqa.py): the summary and per-question rows as JSON and Markdown."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..terminal import printable
from .report import _table

RETRIEVAL_KEYS = (
    "recall_any@5",
    "recall_all@5",
    "evidence_share@5",
    "recall_any@10",
    "recall_all@10",
    "evidence_share@10",
)
ANSWER_KEYS = (
    "det_correct",
    "right",
    "wrong",
    "unsure",
    "false_not_found",
    "draft_right",
    "draft_wrong",
    "gold_items",
    "draft_gold_items",
    "det_f1",
    "evidence_recall",
    "abstained",
    "false_abstentions",
    "p50_seconds",
    "p90_seconds",
    "median_prompt_tokens",
    "mean_llm_calls",
)
_MARKUP = re.compile(r"([\\`*_{}\[\]<>|#])")


def cell(text: object, limit: int = 160) -> str:
    """Text from a chat or a model as one inert Markdown table cell: control characters escaped,
    markup characters backslashed, cut at `limit`."""
    s = printable(str(text), one_line=True)
    s = s[: limit - 1] + "…" if len(s) > limit else s
    return _MARKUP.sub(r"\\\1", s)


def export_markdown(summary: dict, answers: list[dict] | None = None) -> str:
    """The run as Markdown: ingest, single-shot retrieval by category, answers by category, and one
    row per answered question when there are at most 100."""
    ing, ev = summary["ingest"], summary["evidence"]
    lines = [
        f"# Export set {cell(summary['set'])}: mode {summary['mode']}, back end {summary['backend'] or '(no model)'}",
        "",
        cell(summary.get("description") or "", 400),
        "",
        f"{summary['questions']} questions ({summary['sample']}); language {summary['language']}. Ingested "
        f"{ing['files']} files through the normal readers: {ing['sessions']} sessions, {ing['turns']} turns in "
        f"{ing['seconds']} s ({len(ing['skipped'])} skipped). Evidence: {ev['messages']} messages, "
        f"{ev['not_found_in_index']} not found among the turns, {ev['unresolved_in_set']} unresolved in the set.",
        "",
        "## Single-shot retrieval (no model)",
        "",
        "One search with the question as the query, the top k hit turns with their context as `refind search` "
        "gives them; any / all: some / every evidence turn among them; evidence_share: the share of the "
        "evidence turns among them.",
        "",
    ]
    ret = summary["retrieval"]
    rows = [["all", ret["overall"]["n"], *(ret["overall"].get(k) for k in RETRIEVAL_KEYS)]]
    rows += [[c, v["n"], *(v.get(k) for k in RETRIEVAL_KEYS)] for c, v in ret["by_category"].items()]
    lines += _table(["category", "n", *RETRIEVAL_KEYS], rows) + [""]
    qa = summary.get("qa")
    if qa:
        lines += [
            "## Answers",
            "",
            "det_correct: the deterministic judge (normalised containment; abstention questions: the answer "
            "says it is not there). gold_items: share of the gold's items found after normalisation (dates, "
            "number words, amounts). evidence_recall: evidence turns within 2 turns of a noted turn. "
            "false_abstentions: abstained with an evidence turn noted (count). Seconds per question.",
            "",
        ]
        rows = [["all", qa["overall"]["n"], *(qa["overall"].get(k) for k in ANSWER_KEYS)]]
        rows += [[c, v["n"], *(v.get(k) for k in ANSWER_KEYS)] for c, v in qa["by_category"].items()]
        lines += _table(["category", "n", *ANSWER_KEYS], rows) + [""]
    if answers and len(answers) <= 100:
        lines += ["## Per question", ""]
        rows = [
            [
                cell(r["qid"], 40),
                cell(r["category"], 30),
                cell(r["question"]),
                cell(r["gold"], 80),
                cell(r.get("answer", r.get("error", "")), 200),
                r.get("det_correct"),
                r.get("gold_items"),
                r.get("evidence_recall"),
                "yes" if r.get("false_abstention") else "",
                r.get("seconds"),
            ]
            for r in answers
        ]
        header = [
            "id",
            "category",
            "question",
            "gold",
            "answer",
            "correct",
            "items",
            "evidence",
            "false abst.",
            "s",
        ]
        lines += _table(header, rows) + [""]
    return "\n".join(lines) + "\n"


def write_export_report(summary: dict, retrieval: dict, answers: list[dict], out: Path, stem: str) -> None:
    """<stem>.json (summary, per-question retrieval) and <stem>.md in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    data = {**summary, "per_question_retrieval": retrieval}
    (out / f"{stem}.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / f"{stem}.md").write_text(export_markdown(summary, answers), encoding="utf-8")
