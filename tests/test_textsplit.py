"""Tiers 2-4: heading paths, key groups, sizes, overlap and exact line numbers."""

from __future__ import annotations

import itertools

from sharc.textsplit import split_text_file

GUIDE = """# Authentication Guide

Intro paragraph.

## Overview
Authentication in SHARC uses JWT tokens. JWT tokens are signed with HS256.

## Setup
First, configure your environment.

```python
# not a heading
x = 1
```

### Keys
Generate a key.
"""


def _lines_match(chunk, text: str) -> None:
    lines = text.replace("\r\n", "\n").split("\n")
    span = "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    assert chunk.code.strip() in span, (chunk.location, chunk.code, span)


def test_markdown_sections_carry_heading_paths() -> None:
    chunks = split_text_file("docs/auth.md", "markdown", 2, GUIDE)
    headers = [c.header.strip() for c in chunks]
    assert headers == [
        "// File: docs/auth.md > # Authentication Guide",
        "// File: docs/auth.md > # Authentication Guide > ## Overview",
        "// File: docs/auth.md > # Authentication Guide > ## Setup",
        "// File: docs/auth.md > # Authentication Guide > ## Setup > ### Keys",
    ]
    assert all(c.tier == 2 and c.kind == "section" for c in chunks)
    assert chunks[2].symbol == "Setup"
    for chunk in chunks:
        _lines_match(chunk, GUIDE)
        assert chunk.text == chunk.header + chunk.code
    assert len({c.id for c in chunks}) == len(chunks)


def test_long_section_split_with_overlap_and_exact_lines() -> None:
    paragraph = "\n".join(f"Sentence number {i} explains one more detail of the system." for i in range(120))
    text = "# Title\n\n" + paragraph + "\n"
    chunks = split_text_file("README.md", "markdown", 2, text)
    assert len(chunks) > 3
    assert all(len(c.code) <= 1500 for c in chunks)
    for chunk in chunks:
        _lines_match(chunk, text)
    # Consecutive pieces overlap: the next one starts before the previous one ends.
    assert any(b.start_line <= a.end_line for a, b in itertools.pairwise(chunks))
    assert len({c.id for c in chunks}) == len(chunks)


def test_yaml_groups_top_level_keys() -> None:
    text = "database:\n  host: localhost\n  port: 5432\n\nauth:\n  secret: ${JWT_SECRET}\n  expiry: 3600\n"
    chunks = split_text_file("config.yaml", "yaml", 3, text)
    assert len(chunks) == 1
    assert chunks[0].header == "# File: config.yaml > database, auth\n"
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 7)


def test_large_json_is_cut_at_top_level_members() -> None:
    body = ",\n".join(f'  "key{i}": {{\n    "value": "{"x" * 300}"\n  }}' for i in range(12))
    text = "{\n" + body + "\n}\n"
    chunks = split_text_file("data.json", "json", 3, text)
    assert len(chunks) > 2
    assert all(len(c.code) <= 1500 for c in chunks)
    assert "key0" in chunks[0].header
    for chunk in chunks:
        _lines_match(chunk, text)


def test_toml_tables() -> None:
    text = "[project]\nname = 'x'\n\n[tool.ruff]\nline-length = 100\n"
    (chunk,) = split_text_file("pyproject.toml", "toml", 3, text)
    assert chunk.header == "# File: pyproject.toml > project, tool.ruff\n"


def test_other_code_and_edge_cases() -> None:
    vue = "<template>\n  <div>{{ msg }}</div>\n</template>\n<script>\nexport default { data() { return { msg: 'hi' } } }\n</script>\n"
    chunks = split_text_file("App.vue", "vue", 4, vue)
    assert chunks and chunks[0].kind == "code" and chunks[0].start_line == 1
    assert split_text_file("empty.md", "markdown", 2, "") == []
    assert split_text_file("blank.txt", "text", 2, "\n\n  \n") == []
    crlf = split_text_file("w.md", "markdown", 2, "\ufeff# A\r\ntext\r\n# B\r\nmore\r\n")
    assert [(c.start_line, c.end_line) for c in crlf] == [(1, 2), (3, 4)]
