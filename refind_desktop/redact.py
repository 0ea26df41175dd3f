"""Secret redaction for text that leaves refind: keys, tokens and passwords become `[redacted: KIND]` markers.

The detectors are Yelp's detect-secrets (https://github.com/Yelp/detect-secrets): its provider plugins
(AWS, GitHub, GitLab, OpenAI, Stripe, Slack, JWT, private keys, ...), its keyword detector (`PASSWORD=`,
`api_key: "..."`), its entropy measure for long random strings, and its false-positive filters (UUIDs,
sequences, templates). Provider key formats it has no plugin for are added below as its own
`RegexBasedDetector` subclasses. Its scan API reports secret values line by line under process-wide
settings; redaction needs positions and runs in server threads, so `Redactor` applies the same plugin
patterns to a whole text and replaces what they match. docs/redaction.md lists what is caught and what
is not. The archive on disk is never redacted: only what a front end prints or sends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

MARKER = "[redacted: {}]"
"""The text that replaces one secret; the braces take the kind of secret."""

MIN_RANDOM_CHARS = 20
"""Shortest unquoted run of base64 characters judged by its entropy (shorter words are prose)."""

BASE64_ENTROPY = 4.5
"""detect-secrets' default entropy limit for base64 strings (bits per character)."""

HEX_ENTROPY = 3.0
"""detect-secrets' default entropy limit for quoted hex strings."""

_CACHED_CHARS = 64 * 1024  # texts up to this size are remembered (the same turns come back in results)
_LABELS = {
    "Secret Keyword": "password or secret",
    "Base64 High Entropy String": "random-looking secret",
    "Hex High Entropy String": "random-looking hex secret",
}
_EXCLUDED = {"Public IP (ipv4)"}  # an address is not a credential (and is common in coding chats)
_TOKEN_CHARS = "A-Za-z0-9_\\-"  # a partial key match is widened to the whole token around it
_JWT_CHARS = "A-Za-z0-9_\\-.+/="
_EDGES = frozenset(" \t\r\n\"'=:`")
_ASSIGNMENT_BEGIN = r"(?:(?<=\W)|(?<=^))"  # how RegexBasedDetector.build_assignment_regex patterns open
_LONG_TOKEN = re.compile(r"[A-Za-z0-9_\-]{24,}")  # the shortest secret those patterns take is 24 characters
_ASSIGNMENT_LINE = re.compile(r"""^\s*(?:export\s+|set\s+)?["']?[\w.\-\[\]]+["']?\s*(?::=|=|:)""")
_PEM_END = re.compile(r"-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")


def _extra_detectors() -> list[Any]:
    """Provider key formats detect-secrets 1.5 has no plugin for, as its own RegexBasedDetector subclasses."""
    from detect_secrets.plugins.base import RegexBasedDetector

    class OpenAIProjectKeyDetector(RegexBasedDetector):
        """OpenAI project, service-account and admin keys (`sk-proj-...`); the library's OpenAI plugin
        needs 20 letters or digits on both sides of its marker, which keys holding `-` or `_` lack."""

        secret_type = "OpenAI API Key"
        denylist = (re.compile(r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}"),)

    class AnthropicKeyDetector(RegexBasedDetector):
        """Anthropic API and admin keys."""

        secret_type = "Anthropic API Key"
        denylist = (re.compile(r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{20,}"),)

    class StripeTestKeyDetector(RegexBasedDetector):
        """Stripe test-mode secret and restricted keys (the library's plugin covers live keys only)."""

        secret_type = "Stripe Test Key"
        denylist = (re.compile(r"\b[rs]k_test_[0-9A-Za-z]{24,}"),)

    class GitHubFineGrainedTokenDetector(RegexBasedDetector):
        """GitHub fine-grained personal access tokens (the library's plugin knows the `ghp_` family)."""

        secret_type = "GitHub Token"
        denylist = (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}"),)

    class GoogleAPIKeyDetector(RegexBasedDetector):
        """Google Cloud / Maps / Gemini API keys."""

        secret_type = "Google API Key"
        denylist = (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"),)

    class HuggingFaceTokenDetector(RegexBasedDetector):
        """Hugging Face access tokens."""

        secret_type = "Hugging Face Token"
        denylist = (re.compile(r"\bhf_[A-Za-z]{34,}"),)

    class AWSSecretKeyDetector(RegexBasedDetector):
        """An AWS secret access key assigned to its usual name, quoted or not (`.env` and shell pastes);
        the library's AWS plugin finds a secret key only in quotes."""

        secret_type = "AWS Secret Key"
        denylist = (
            re.compile(
                r"aws_?secret(?:_?access)?_?key[\"']?\s*(?:=|:|=>)\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
                re.IGNORECASE,
            ),
        )

    return [
        OpenAIProjectKeyDetector(),
        AnthropicKeyDetector(),
        StripeTestKeyDetector(),
        GitHubFineGrainedTokenDetector(),
        GoogleAPIKeyDetector(),
        HuggingFaceTokenDetector(),
        AWSSecretKeyDetector(),
    ]


@dataclass(frozen=True, slots=True)
class Found:
    """One secret in a text: characters start..end, and the kind of secret."""

    start: int
    end: int
    kind: str


class _Detectors:
    """detect-secrets' plugins and filters, built once per process (imports take ~0.2 s)."""

    def __init__(self) -> None:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.filters import heuristic
        from detect_secrets.plugins import keyword
        from detect_secrets.plugins.base import RegexBasedDetector
        from detect_secrets.plugins.high_entropy_strings import (
            Base64HighEntropyString,
            HexHighEntropyString,
        )

        self.heuristic = heuristic
        classes = get_mapping_from_secret_type_to_class()
        regex_plugins = [
            cls()
            for kind, cls in classes.items()
            if kind not in _EXCLUDED and issubclass(cls, RegexBasedDetector)
        ]
        # (pattern, kind, priority): a span two detectors find is named by the first (most specific)
        self.patterns: list[tuple[re.Pattern, str, int]] = []
        self.assignments: list[tuple[re.Pattern, str, int]] = []  # run on lines with a long token only
        for priority, plugin in enumerate([*_extra_detectors(), *regex_plugins]):
            for pattern in plugin.denylist:
                kind = (pattern, plugin.secret_type, priority)
                (self.assignments if pattern.pattern.startswith(_ASSIGNMENT_BEGIN) else self.patterns).append(
                    kind
                )
        self.private_key = "Private Key"
        self.keyword_type = keyword.KeywordDetector.secret_type
        # the keyword names, matched in lower-cased text: 20x faster than the library's IGNORECASE pattern
        self.keyword_hint = re.compile("|".join(keyword.DENYLIST))
        self.keyword_quoted = list(keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP.items())
        self.keyword_config = list(keyword.CONFIG_DENYLIST_REGEX_TO_GROUP.items())
        self.keyword_plugin = keyword.KeywordDetector()
        self.base64 = Base64HighEntropyString(limit=BASE64_ENTROPY)
        self.hex = HexHighEntropyString(limit=HEX_ENTROPY)
        run = re.escape(self.base64.charset.replace("=", ""))  # '=' only as padding: `NAME=value` splits
        self.base64_runs = re.compile(rf"(?<![{run}=])[{run}]{{{MIN_RANDOM_CHARS},}}={{0,2}}(?![{run}=])")
        self.widen = re.compile(f"[{_TOKEN_CHARS}]*")
        self.widen_back = re.compile(f"[{_TOKEN_CHARS}]*$")
        self.widen_jwt = re.compile(f"[{_JWT_CHARS}]*")

    def filtered(self, secret: str, line: str, plugin: Any) -> bool:
        """detect-secrets' false-positive filters: UUIDs, sequences, templates, `$VAR`, calls, ids."""
        h = self.heuristic
        return (
            h.is_sequential_string(secret)
            or h.is_potential_uuid(secret)
            or h.is_templated_secret(secret)
            or h.is_prefixed_with_dollar_sign(secret)
            or h.is_not_alphanumeric_string(secret)
            or h.is_likely_id_string(secret, line, plugin)
        )

    def find(self, text: str) -> list[Found]:
        """Every secret in `text`, overlapping finds merged (the most specific kind named)."""
        found: list[tuple[int, int, str, int]] = []
        for offset, part, pattern, kind, priority in self._pattern_runs(text):
            for m in pattern.finditer(part):
                spans = [m.span(g) for g in range(1, pattern.groups + 1) if m.group(g)] or [m.span()]
                for start, end in ((offset + a, offset + b) for a, b in spans):
                    if kind == self.private_key:
                        start, end = self._key_block(text, start, end)
                    else:
                        start, end = self._widened(text, start, end, kind)
                    if kind == self.private_key or not self.filtered(text[start:end], "", None):
                        found.append((start, end, kind, priority))
        found += self._keywords(text)
        found += self._random(text)
        return _merged(found)

    def _pattern_runs(self, text: str):
        """(offset, text part, pattern, kind, priority) to scan: every pattern over the whole text, except
        the library's `name = value` credential patterns (IBM, Cloudant, SoftLayer: a lookbehind at every
        character makes them the slowest), which only lines holding a 24-character token can match."""
        for pattern, kind, priority in self.patterns:
            yield 0, text, pattern, kind, priority
        lines = {}
        for m in _LONG_TOKEN.finditer(text):
            start = text.rfind("\n", 0, m.start()) + 1
            if start not in lines:
                end = text.find("\n", m.end())
                lines[start] = text[start : len(text) if end < 0 else end]
        for start, line in lines.items():
            for pattern, kind, priority in self.assignments:
                yield start, line, pattern, kind, priority

    def _widened(self, text: str, start: int, end: int, kind: str) -> tuple[int, int]:
        while start < end and text[start] in _EDGES:  # some plugins match the space or quote around a key
            start += 1
        while end > start and text[end - 1] in _EDGES:
            end -= 1
        forward = self.widen_jwt if kind == "JSON Web Token" else self.widen
        back = self.widen_back.search(text, max(0, start - 200), start)
        return (back.start() if back else start), forward.match(text, end).end()

    @staticmethod
    def _key_block(text: str, start: int, end: int) -> tuple[int, int]:
        """A private key from its BEGIN line to its END line (or to the first blank line when cut)."""
        begin = text.rfind("\n", 0, start) + 1
        close = _PEM_END.search(text, end, end + 64 * 1024)
        if close:
            return begin, close.end()
        blank = text.find("\n\n", end)
        return begin, len(text) if blank < 0 else blank

    def _lines(self, text: str, wanted: Callable[[str], bool]):
        pos = 0
        for line in text.split("\n"):
            if wanted(line):
                yield pos, line
            pos += len(line) + 1

    def _keywords(self, text: str) -> list[tuple[int, int, str, int]]:
        """Values assigned to secret-sounding names: quoted anywhere, unquoted on `NAME=value` lines."""
        if not self.keyword_hint.search(text.lower()):
            return []
        out = []
        for pos, line in self._lines(text, lambda ln: self.keyword_hint.search(ln.lower()) is not None):
            rules = self.keyword_config if _ASSIGNMENT_LINE.match(line) else self.keyword_quoted
            for pattern, group in rules:
                m = pattern.search(line)
                if not m or not m.group(group):
                    continue
                value = m.group(group)
                if self.filtered(value, line, self.keyword_plugin) or self.heuristic.is_indirect_reference(
                    line
                ):
                    continue
                start, end = m.span(group)
                out.append((pos + start, pos + end, self.keyword_type, 1000))
                break
        return out

    def _random(self, text: str) -> list[tuple[int, int, str, int]]:
        """Long random-looking strings: unquoted base64 runs, and quoted base64 or hex strings."""
        out = []
        for m in self.base64_runs.finditer(text):
            value = m.group()
            if self.base64.calculate_shannon_entropy(value) > BASE64_ENTROPY and not self.filtered(
                value, _line_at(text, m.start()), self.base64
            ):
                out.append((m.start(), m.end(), self.base64.secret_type, 2000))
        for plugin, limit in ((self.hex, HEX_ENTROPY), (self.base64, BASE64_ENTROPY)):
            for m in plugin.regex.finditer(text):  # the plugin's own quoted-string pattern
                value = m.group(2)
                if plugin.calculate_shannon_entropy(value) > limit and not self.filtered(
                    value, _line_at(text, m.start()), plugin
                ):
                    out.append((m.start(2), m.end(2), plugin.secret_type, 2001))
        return out


def _line_at(text: str, index: int) -> str:
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return text[start : len(text) if end < 0 else end]


def _merged(found: list[tuple[int, int, str, int]]) -> list[Found]:
    """Overlapping spans joined; the joined span keeps the kind with the lowest priority number."""
    out: list[list] = []
    for start, end, kind, priority in sorted(found):
        if out and start < out[-1][1]:
            last = out[-1]
            last[1] = max(last[1], end)
            if priority < last[3]:
                last[2], last[3] = kind, priority
        else:
            out.append([start, end, kind, priority])
    return [Found(s, e, k) for s, e, k, _ in out]


@cache
def _detectors() -> _Detectors:
    return _Detectors()


def label(kind: str) -> str:
    """The marker text for one kind of secret."""
    return MARKER.format(_LABELS.get(kind, kind))


def find_secrets(text: str) -> list[Found]:
    """The secrets in `text`, in order (detect-secrets' detectors; see the module docstring)."""
    return _detectors().find(text) if text else []


@lru_cache(maxsize=4096)
def _redacted(text: str) -> str:
    found = _detectors().find(text)
    if not found:
        return text
    parts, pos = [], 0
    for f in found:
        parts += [text[pos : f.start], label(f.kind)]
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def redact_text(text: str) -> str:
    """`text` with every secret replaced by its marker."""
    if not text:
        return text
    if len(text) <= _CACHED_CHARS:
        return _redacted(text)
    return _redacted.__wrapped__(text)


class Redactor:
    """Redaction switched by a setting: `text` and `data` return their input unchanged when off."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled

    def text(self, text: str) -> str:
        """`text` redacted (when on)."""
        return redact_text(text) if self.enabled and isinstance(text, str) else text

    def data(self, value: Any) -> Any:
        """A JSON-like value with every string in it redacted (dict keys are left as they are)."""
        if not self.enabled:
            return value
        if isinstance(value, str):
            return redact_text(value)
        if isinstance(value, dict):
            return {k: self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value
