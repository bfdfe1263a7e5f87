"""Tiers 2-4: documentation, configuration and code without a grammar, split as text.

Sizes follow SHARC's spec: docs 1500 characters with 150 overlap, split at headings first, each
chunk carrying its heading path; config 1500/100, grouped by top-level keys; other code 1500/100
with LangChain's language-aware separators where it has them.

LangChain's splitters return text only, so sections and groups are cut here (where the line
numbers are known) and LangChain splits inside them with `add_start_index` to keep offsets.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from sharc._core import Chunk

if TYPE_CHECKING:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

log = logging.getLogger(__name__)

DOCS, CONFIG, OTHER_CODE = 2, 3, 4
SIZES = {DOCS: (1500, 150), CONFIG: (1500, 100), OTHER_CODE: (1500, 100)}

# LangChain's names for the languages sharc sends to tier 4 (or splits as docs).
LANGCHAIN_LANGUAGE = {
    "markdown": "markdown",
    "rst": "rst",
    "html": "html",
}

COMMENT_PREFIX = {"yaml": "#", "toml": "#", "ini": "#", "python": "#", "other": "#"}

_MARKDOWN_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")


@dataclass(frozen=True)
class _Section:
    """A run of lines [start, end) with its heading path."""

    start: int
    end: int
    title: str


def split_text_file(path: str, language: str, tier: int, text: str) -> list[Chunk]:
    """Chunk a tier 2-4 file. Line numbers in the chunks are 1-based and inclusive."""
    if tier not in SIZES:
        raise ValueError(f"tier {tier} is not split as text")
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.strip():
        return []
    lines = text.split("\n")
    if tier == DOCS:
        sections = _doc_sections(lines, language)
    elif tier == CONFIG:
        sections = _config_sections(lines, language)
    else:
        sections = [_Section(0, len(lines), "")]
    size, overlap = SIZES[tier]
    splitter = _splitter(language, size, overlap)
    prefix = COMMENT_PREFIX.get(language, "//")
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for section in _pack(sections, lines, size):
        body = "\n".join(lines[section.start : section.end])
        if not body.strip():
            continue
        location = f"{path} > {section.title}" if section.title else path
        header = f"{prefix} File: {location}\n"
        line_starts = _line_starts(body)
        for piece in splitter.create_documents([body]):
            code = piece.page_content
            offset = piece.metadata.get("start_index", -1)
            if offset < 0:
                offset = body.find(code)
            first = section.start + bisect_right(line_starts, max(offset, 0))
            last = first + code.count("\n")
            name = section.title or "text"
            ordinal = seen.get(name, 0) + 1
            seen[name] = ordinal
            chunk_id = f"{path}::{name}" + (f"#{ordinal}" if ordinal > 1 else "")
            chunks.append(
                Chunk(
                    id=chunk_id,
                    path=path,
                    language=language,
                    tier=tier,
                    kind=_kind(tier),
                    symbol=section.title.split(" > ")[-1].lstrip("# ") if section.title else "",
                    fqn=section.title,
                    start_line=first,
                    end_line=last,
                    header=header,
                    text=header + code,
                    code=code,
                )
            )
    return chunks


def _kind(tier: int) -> str:
    return {DOCS: "section", CONFIG: "config", OTHER_CODE: "code"}[tier]


def separators_for(language: str) -> list[str] | None:
    """The split points (regular expressions) of `language`'s text, most structural first; None
    for plain text.

    Raises when the language is mapped to a LangChain language that LangChain cannot split.
    """
    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

    langchain_name = LANGCHAIN_LANGUAGE.get(language)
    if not langchain_name:
        return None
    return RecursiveCharacterTextSplitter.get_separators_for_language(Language(langchain_name))


@lru_cache(maxsize=64)
def _splitter(language: str, size: int, overlap: int) -> RecursiveCharacterTextSplitter:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    try:
        separators = separators_for(language)
    except ValueError as error:
        # Another LangChain version may drop a language: split it as plain text, not fail.
        log.warning("no language-aware splitting for %s (%s); splitting as plain text",
                    language, error)
        separators = None
    return RecursiveCharacterTextSplitter(
        separators=separators,
        is_separator_regex=True,
        chunk_size=size,
        chunk_overlap=overlap,
        add_start_index=True,
    )


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(match.end() for match in re.finditer("\n", text))
    return starts


def _doc_sections(lines: list[str], language: str) -> list[_Section]:
    """Cut a document at its headings; each section's title is its heading path."""
    headings: list[tuple[int, int, str]] = []  # (line, level, title)
    if language == "markdown":
        in_fence = False
        for number, line in enumerate(lines):
            if _FENCE.match(line):
                in_fence = not in_fence
                continue
            match = None if in_fence else _MARKDOWN_HEADING.match(line)
            if match:
                headings.append((number, len(match.group(1)), f"{match.group(1)} {match.group(2)}"))
    elif language == "rst":
        levels: list[str] = []
        for number in range(1, len(lines)):
            underline = _RST_UNDERLINE.match(lines[number])
            title = lines[number - 1].strip()
            if underline and title and not _RST_UNDERLINE.match(lines[number - 1]):
                marker = underline.group(1)
                if marker not in levels:
                    levels.append(marker)
                headings.append((number - 1, levels.index(marker) + 1, title))
    sections: list[_Section] = []
    path: list[tuple[int, str]] = []
    previous_start, previous_title = 0, ""
    for line, level, title in headings:
        if line > previous_start:
            sections.append(_Section(previous_start, line, previous_title))
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        previous_start, previous_title = line, " > ".join(t for _, t in path)
    sections.append(_Section(previous_start, len(lines), previous_title))
    return sections


def _config_sections(lines: list[str], language: str) -> list[_Section]:
    """Cut a config file at its top-level keys (YAML keys, TOML tables, JSON members)."""
    starts: list[tuple[int, str]] = []
    if language in ("yaml",):
        key = re.compile(r"^([A-Za-z0-9_.\"'-][^:#]*):")
        starts = [(n, m.group(1).strip("\"'")) for n, line in enumerate(lines) if (m := key.match(line))]
    elif language in ("toml", "ini"):
        table = re.compile(r"^\s*\[+([^\]]+)\]+")
        starts = [(n, m.group(1).strip()) for n, line in enumerate(lines) if (m := table.match(line))]
    elif language == "json":
        member = re.compile(r'^(\s*)"([^"]+)"\s*:')
        indents = [len(m.group(1)) for line in lines if (m := member.match(line))]
        if indents:
            top = min(indents)
            starts = [
                (n, m.group(2))
                for n, line in enumerate(lines)
                if (m := member.match(line)) and len(m.group(1)) == top
            ]
    if not starts:
        return [_Section(0, len(lines), "")]
    sections = []
    if starts[0][0] > 0:
        sections.append(_Section(0, starts[0][0], ""))
    for index, (line, title) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        sections.append(_Section(line, end, title))
    return sections


def _pack(sections: list[_Section], lines: list[str], size: int) -> list[_Section]:
    """Merge consecutive small sections of the same parent so related keys stay together."""
    packed: list[_Section] = []
    length = 0
    for section in sections:
        section_length = sum(len(line) + 1 for line in lines[section.start : section.end])
        if packed and length + section_length <= size and _same_parent(packed[-1], section):
            last = packed[-1]
            titles = last.title if last.title == section.title else _join_titles(last, section)
            packed[-1] = _Section(last.start, section.end, titles)
            length += section_length
        else:
            packed.append(section)
            length = section_length
    return packed


def _same_parent(left: _Section, right: _Section) -> bool:
    return " > " not in left.title and " > " not in right.title and not left.title.startswith("#")


def _join_titles(left: _Section, right: _Section) -> str:
    if not left.title:
        return right.title
    names = left.title.split(", ")
    if len(names) >= 4:
        return left.title if names[-1] == "…" else left.title + ", …"
    return f"{left.title}, {right.title}"
