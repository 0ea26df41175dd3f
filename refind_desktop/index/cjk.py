"""Character bigrams of CJK runs: Chinese, Japanese and Korean words inside unspaced text become findable.

The word tokenizer keeps an unspaced run ("東京タワーに行った") as one token, so a word inside it
cannot be found. Each run of Han, kana or Hangul characters is also indexed as overlapping character
bigrams (a one-character run as itself) in a second field, and a query's CJK runs are searched there
as bigrams too (the usual CJK bigram scheme of search engines). Text without CJK characters adds
nothing to that field, so English scoring is unchanged.
"""

from __future__ import annotations

import re

_CJK_RUN = re.compile(
    "["
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # Katakana (with the phonetic extensions, half-width)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs (extension A, unified, compatibility)
    "\U00020000-\U0002ebef"  # CJK ideographs, extensions B-F
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"  # Hangul jamo, compatibility jamo, syllables
    "]+"
)


def cjk_runs(text: str) -> list[str]:
    """The maximal runs of CJK characters in `text`, in order."""
    return _CJK_RUN.findall(text or "")


def bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of one run ("東京タ" → 東京, 京タ); a single character stays itself."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_terms(text: str) -> list[str]:
    """Every bigram of every CJK run of `text` (repeats kept: they are term frequencies)."""
    return [g for run in cjk_runs(text) for g in bigrams(run)]


def cjk_field_text(text: str) -> str:
    """The text of the bigram field: the terms separated by spaces ('' when `text` has no CJK)."""
    return " ".join(cjk_terms(text))
