"""Definitions declared private, read from their declaration line."""

from __future__ import annotations

import pytest
from sharc.ranking.query import QueryIntent
from sharc.ranking.visibility import class_level, declared_private

PRIVATE = [
    ("elixir", "connect", "@doc false\ndefp connect(host, port) do\n  :ok\nend"),
    ("elixir", "status", "defmacrop status(opts) do\nend"),
    ("rust", "parse", "/// Parses it; see `parse`.\nfn parse(input: &str) -> u8 {\n}"),
    ("zig", "init", "fn init(self: *Self) void {}"),
    ("java", "run", "  // run() is called once\n  private void run() {\n  }"),
    ("kotlin", "load", "@JvmStatic\nprivate fun load(): Int = 1"),
    ("swift", "reset", "fileprivate func reset() {}"),
    ("lua", "helper", "local function helper(x)\n  return x\nend"),
    ("typescript", "flush", "  private async flush(): Promise<void> {}"),
]
PUBLIC = [
    ("elixir", "connect", "@impl true\ndef connect(opts) do\n  # defp connect below\nend"),
    ("rust", "parse", "#[inline]\npub fn parse(input: &str) -> u8 {}"),
    ("rust", "parse", "pub(crate) fn parse(input: &str) -> u8 {}"),
    ("zig", "init", "pub fn init(self: *Self) void {}"),
    ("java", "run", "public void run() { private_helper(); }"),
    ("python", "_private", "def _private(self):\n    pass"),  # the name says it, not the line
    ("go", "parse", "func parse(s string) int {"),  # Go's case gives another name
    ("ruby", "push", "def push(item)\n  raw_push(item)\nend"),
    ("c", "run", "int run(void);"),
    ("rust", "fmt", ""),  # no line names it: nothing to judge
]


@pytest.mark.parametrize(("language", "symbol", "code"), PRIVATE)
def test_private_declarations(language: str, symbol: str, code: str) -> None:
    assert declared_private(language, symbol, code)


@pytest.mark.parametrize(("language", "symbol", "code"), PUBLIC)
def test_public_or_unknown_declarations(language: str, symbol: str, code: str) -> None:
    assert not declared_private(language, symbol, code)


@pytest.mark.parametrize(
    ("header", "code", "expected"),
    [
        ("# Context: class Client (c.rb)\n", "def self.push(item)\n  new.push(item)\nend", True),
        ("# Context: class << self > class Client (c.rb)\n", "def push(item)\nend", True),
        ("# Context: class Client (c.rb)\n", "# push it\ndef push(item)\nend", False),
    ],
)
def test_ruby_class_methods(header: str, code: str, expected: bool) -> None:
    assert class_level("ruby", "push", header, code) is expected
    assert class_level("python", "push", header, code) is False


@pytest.mark.parametrize(
    ("query", "instance"),
    [
        ("Sidekiq::Client#push", True),
        ("Client#valid?", True),
        ("Client.push", False),
        ("Sidekiq::Client", False),
        ("#push", False),
    ],
)
def test_a_hash_before_the_last_part_names_an_instance_method(query: str, instance: bool) -> None:
    assert QueryIntent.of(query).instance_member is instance
