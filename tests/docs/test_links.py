"""Relative links in README.md and docs/*.md point at files and headings that exist."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt  # rich's own Markdown parser, so always installed

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _tokens(text: str):
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        yield token
        yield from token.children or ()


def anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    out = set()
    tokens = list(_tokens(text))
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        title = "".join(c.content for c in tokens[i + 1].children or () if c.type in ("text", "code_inline"))
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def broken_links(page: Path) -> list[str]:
    """Each relative link of `page` whose file, or heading in that file, does not exist."""
    text = page.read_text(encoding="utf-8")
    problems = []
    for token in _tokens(text):
        if token.type != "link_open":
            continue
        href = str(token.attrs.get("href", ""))
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("mailto:"):
            continue
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not target.exists():
            problems.append(f"{href}: no file {target}")
        elif parts.fragment and target.suffix == ".md":
            if parts.fragment not in anchors(target.read_text(encoding="utf-8")):
                problems.append(f"{href}: no heading #{parts.fragment} in {target.name}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    assert broken_links(page) == []


def test_the_readme_links_every_docs_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in PAGES[1:] if f"(docs/{p.name})" not in readme]
    assert missing == []


def test_a_missing_file_or_heading_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "usage.md").write_text("# Using it\n\n## The terminal app\n\ntext\n")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/usage.md) [ok](docs/usage.md#the-terminal-app) [ok](#top) [web](https://example.com)\n"
        "[gone](docs/gone.md) [bad](docs/usage.md#the-app)\n\n# Top\n\n"
        "```\n[in code](docs/nothing.md)\n```\n"
    )
    problems = broken_links(page)
    assert len(problems) == 2
    assert problems[0].startswith("docs/gone.md: no file")
    assert problems[1] == "docs/usage.md#the-app: no heading #the-app in usage.md"


def test_anchors_follow_github_slugs():
    text = "# Finding chat logs: `refind sources`\n\n## Ingest: batches and the write journal\n\n## Notes\n\n## Notes\n"
    assert anchors(text) == {
        "finding-chat-logs-refind-sources",
        "ingest-batches-and-the-write-journal",
        "notes",
        "notes-1",
    }
