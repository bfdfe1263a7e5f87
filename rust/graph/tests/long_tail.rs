//! Ruby, PHP, Lua, Elixir, Bash and Perl, then the other compiled and long-tail languages.

use super::*;

#[test]
fn scripting_languages_calls_requires_and_mixins() {
    assert_edges(
        "lib/store.rb",
        "require 'json'\nrequire_relative 'cache/lru'\n\n\
class Store < Base\n  include Enumerable\n  def load(key)\n    parse(fetch(key)).to_h\n    Item.new(key)\n  end\nend\n",
        &[
            ("", "json", "import"),
            ("", "lru", "import"),
            ("Store", "Base", "inherit"),
            ("Store", "Enumerable", "inherit"),
            ("load", "parse", "call"),
            ("load", "fetch", "call"),
            ("load", "to_h", "call"),
            ("load", "Item", "call"),
        ],
    );
    assert_edges(
        "src/Store.php",
        "<?php\nnamespace App;\n\nuse App\\Models\\User;\n\n\
class Store extends Base implements Countable {\n  use Cached;\n\
  public function find(int $id): User { $this->log($id); return User::query(helper($id)); }\n}\n",
        &[
            ("", "User", "import"),
            ("Store", "Base", "inherit"),
            ("Store", "Countable", "inherit"),
            ("Store", "Cached", "inherit"),
            ("find", "log", "call"),
            ("find", "query", "call"),
            ("find", "helper", "call"),
            ("find", "User", "type"),
        ],
    );
    assert_edges(
        "src/init.lua",
        "local json = require(\"json\")\n\nlocal function load(path)\n  return json.decode(read(path))\nend\n",
        &[
            ("", "json", "import"),
            ("load", "decode", "call"),
            ("load", "read", "call"),
        ],
    );
    assert_edges(
        "lib/store.ex",
        "defmodule Store do\n  alias Acme.Repo\n\n  def load(id) do\n    Repo.get(id) |> normalize()\n  end\nend\n",
        &[("load", "get", "call"), ("load", "normalize", "call")],
    );
    assert_edges(
        "bin/deploy.sh",
        "source ./lib/common.sh\n\ndeploy() {\n  build_image \"$1\"\n  docker push \"$1\"\n}\n",
        &[
            ("", "common", "import"),
            ("deploy", "build_image", "call"),
            ("deploy", "docker", "call"),
        ],
    );
}

#[test]
fn other_compiled_languages() {
    assert_edges(
        "Sources/Store.swift",
        "import Foundation\n\nclass Store: Base, Codable {\n    func load(key: Key) -> Item {\n        return fetch(key).decode()\n    }\n}\n",
        &[
            ("", "Foundation", "import"),
            ("Store", "Base", "inherit"),
            ("Store", "Codable", "inherit"),
            ("load", "Key", "type"),
            ("load", "fetch", "call"),
            ("load", "decode", "call"),
        ],
    );
    assert_edges(
        "src/main.zig",
        "const std = @import(\"std\");\n\npub fn main() void {\n    std.debug.print(\"hi\", .{});\n    run();\n}\n",
        &[("", "std", "import"), ("main", "print", "call"), ("main", "run", "call")],
    );
    assert_edges(
        "src/Main.hs",
        "module Main where\n\nimport Data.Map (fromList)\n\nmain :: IO ()\nmain = print (compute 3)\n",
        &[
            ("", "Map", "import"),
            ("main", "print", "call"),
            ("main", "IO", "type"),
        ],
    );
}

#[test]
fn long_tail_languages() {
    assert_edges(
        "lib/main.dart",
        "import 'package:app/store.dart';\n\nclass Store extends Base {\n  void load() { fetch(); }\n}\n",
        &[
            ("", "store", "import"),
            ("Store", "Base", "inherit"),
            ("load", "fetch", "call"),
        ],
    );
    assert_edges(
        "src/Store.m",
        "#import \"Store.h\"\n\n@implementation Store\n- (void)load {\n  [self fetch:key];\n  NSLog(@\"x\");\n}\n@end\n",
        &[("", "Store", "import"), ("load", "fetch", "call"), ("load", "NSLog", "call")],
    );
    assert_edges(
        "R/model.R",
        "fit_model <- function(data) {\n  summary(lm(y ~ x, data = data))\n}\n",
        &[
            ("fit_model", "summary", "call"),
            ("fit_model", "lm", "call"),
        ],
    );
    assert_edges(
        "src/run.jl",
        "using LinearAlgebra\n\nfunction solve(a)\n    return factorize(a)\nend\n",
        &[
            ("", "LinearAlgebra", "import"),
            ("solve", "factorize", "call"),
        ],
    );
    assert_edges(
        "src/store.erl",
        "-module(store).\n-include(\"records.hrl\").\n\nload(Key) ->\n    Value = cache:get(Key),\n    parse(Value).\n",
        &[("", "records", "import"), ("load/1", "get/1", "call"), ("load/1", "parse/1", "call")],
    );
    assert_edges(
        "src/store.ml",
        "let load key =\n  let value = Cache.get key in\n  parse value\n",
        &[("load", "get", "call"), ("load", "parse", "call")],
    );
    assert_edges(
        "src/store.clj",
        "(ns store)\n\n(defn load [key]\n  (parse (fetch key)))\n",
        &[("load", "parse", "call"), ("load", "fetch", "call")],
    );
    assert_edges(
        "src/Store.fs",
        "module Store\n\nopen System.IO\n\nlet load path =\n    parse (File.ReadAllText path)\n",
        &[("", "IO", "import"), ("load", "parse", "call")],
    );
    assert_edges(
        "schema.graphql",
        "type Query {\n  user(id: ID!): User\n}\n",
        &[("Query", "User", "type")],
    );
    assert_edges(
        "api/store.proto",
        "syntax = \"proto3\";\nimport \"common/item.proto\";\n\nmessage Store {\n  repeated Item items = 1;\n}\n",
        &[("", "item", "import"), ("Store", "Item", "type")],
    );
    assert_edges(
        "main.tf",
        "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = lower(var.name)\n}\n",
        &[("aws_s3_bucket.logs", "lower", "call")],
    );
}

#[test]
fn elixir_definition_heads_are_not_calls() {
    let found = edges(
        "lib/enc.ex",
        "defmodule Enc do\n  defp encode(x, opts) when is_map(opts) do\n    encode_map(x)\n  end\n\n  def run(x), do: encode(x, %{})\nend\n",
    );
    let calls: Vec<(&str, &str)> = found
        .iter()
        .filter(|(_, _, kind)| *kind == "call")
        .map(|(symbol, name, _)| (symbol.as_str(), name.as_str()))
        .collect();
    assert!(calls.contains(&("encode", "encode_map")), "{calls:?}");
    assert!(calls.contains(&("run", "encode")), "{calls:?}");
    assert!(!calls.contains(&("encode", "encode")), "{calls:?}");
    assert!(!calls.contains(&("run", "run")), "{calls:?}");
}

#[test]
fn ruby_qualified_superclasses_and_mixins_keep_their_qualifier() {
    let file = chunked(
        "lib/job.rb",
        "class Job < ActiveJob::Base\n  include ActiveSupport::Callbacks, Comparable\n  \
extend Forwardable\n  prepend Http::Auth::Basic\nend\n",
    );
    let inherits: Vec<(&str, &str)> = file.chunks[0]
        .references
        .iter()
        .filter(|r| r.kind == "inherit")
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    for expected in [
        ("Base", "ActiveJob"),
        ("Callbacks", "ActiveSupport"),
        ("Comparable", ""),
        ("Forwardable", ""),
        ("Basic", "Http::Auth"),
    ] {
        assert!(
            inherits.contains(&expected),
            "{expected:?} not in {inherits:?}"
        );
    }
}

#[test]
fn ruby_bang_and_predicate_methods_keep_their_suffix() {
    assert_edges(
        "lib/t.rb",
        "def run\n  Sidekiq.testing!(:inline)\n  valid?\n  item.empty?\nend\n",
        &[("run", "testing!", "call"), ("run", "empty?", "call")],
    );
}

#[test]
fn zig_enum_literal_calls_have_no_receiver_but_count() {
    assert_edges(
        "src/config.zig",
        "pub fn main() void {\n    const a = .{ .address = .localhost(8080) };\n    _ = a;\n}\n",
        &[("main", "localhost", "call")],
    );
}

#[test]
fn perl_calls_methods_uses_and_parents() {
    let source = "\
package Foo::Bar;
use parent -norequire, 'Store';
use parent qw(Base::One Two);
use List::Util qw(first);
require Data::Dumper;

sub run {
    my $s = Foo::Bar->new(1);
    $s->add(2);
    helper($s);
    Other::Pkg::helper2(3);
}
";
    assert_edges(
        "lib/Foo/Bar.pm",
        source,
        &[
            ("", "Store", "inherit"),
            ("", "One", "inherit"),
            ("", "Two", "inherit"),
            ("", "Util", "import"),
            ("", "Dumper", "import"),
            ("run", "new", "call"),
            ("run", "add", "call"),
            ("run", "helper", "call"),
            ("run", "helper2", "call"),
        ],
    );
    let qualified = chunked("lib/Foo/Bar.pm", source);
    let run = qualified.chunks.iter().find(|c| c.symbol == "run").unwrap();
    let receivers: Vec<(&str, &str)> = run
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    assert!(receivers.contains(&("new", "Foo::Bar")), "{receivers:?}");
    assert!(receivers.contains(&("add", "$s")), "{receivers:?}");
    assert!(
        receivers.contains(&("helper2", "Other::Pkg")),
        "{receivers:?}"
    );
}

#[test]
fn erlang_calls_carry_the_arity_and_the_module_their_definitions_are_named_by() {
    let file = chunked(
        "src/store.erl",
        "-module(store).\n\nload(Key, Default) ->\n    Value = cache:get(Key),\n    \
         lists:map(fun parse/1, [Value]),\n    merge(Value, Default, []).\n",
    );
    let load = file.chunks.iter().find(|c| c.symbol == "load/2").unwrap();
    let found: Vec<(&str, &str)> = load
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    for expected in [
        ("get/1", "cache"),
        ("map/2", "lists"),
        ("parse/1", ""),
        ("merge/3", ""),
    ] {
        assert!(found.contains(&expected), "{expected:?} not in {found:?}");
    }
}

#[test]
fn an_elixir_call_through_a_module_names_the_module() {
    let file = chunked(
        "test/stream_test.exs",
        "defmodule StreamTest do\n  def run(conn) do\n    Postgrex.Protocol.rollback(conn, :done)\n    \
rollback(conn)\n    conn |> query()\n  end\nend\n",
    );
    let calls: Vec<(&str, &str)> = file.chunks[0]
        .references
        .iter()
        .filter(|r| r.kind == "call")
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("rollback", "Postgrex.Protocol"),
            ("rollback", ""),
            ("query", "")
        ]
    );
}
