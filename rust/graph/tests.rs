//! Reference extraction per language family, on small real snippets parsed by the grammars.

use std::path::Path;

use super::*;
use crate::chunk::{chunk_source, ChunkOptions, FileChunks};

fn chunked(path: &str, source: &str) -> FileChunks {
    let language = Language::from_path(Path::new(path)).expect("a known extension");
    chunk_source(path, language, source, &ChunkOptions::default())
}

/// `(chunk symbol, name, kind)` for every reference in the file, in chunk order.
fn edges(path: &str, source: &str) -> Vec<(String, String, &'static str)> {
    chunked(path, source)
        .chunks
        .iter()
        .flat_map(|chunk| {
            chunk
                .references
                .iter()
                .map(|r| (chunk.symbol.clone(), r.name.clone(), r.kind))
        })
        .collect()
}

/// Assert that each `(symbol, name, kind)` is among the file's edges.
#[track_caller]
fn assert_edges(path: &str, source: &str, expected: &[(&str, &str, &str)]) {
    let found = edges(path, source);
    for (symbol, name, kind) in expected {
        assert!(
            found
                .iter()
                .any(|(s, n, k)| s == symbol && n == name && k == kind),
            "{path}: no {kind} of {name} in {symbol:?}; found {:?}",
            found
                .iter()
                .map(|(s, n, k)| format!("{s}:{n}:{k}"))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn every_query_compiles() {
    for language in Language::all() {
        if let Err(error) = compile(language) {
            panic!("{error}");
        }
        if crate::chunk::supports(language) && !matches!(language, Language::Vue | Language::Svelte)
        {
            assert!(
                compile(language).unwrap().is_some(),
                "{} has a grammar but no references query",
                language.name()
            );
        }
    }
}

#[test]
fn python_calls_imports_bases_and_annotations() {
    let source = "\
import os.path
from sharc.graph import resolve as r, Graph

class Store(Base, abc.ABC):
    def load(self, key: Key) -> list[Item]:
        return self.cache.get(key) or fetch(key)

def main():
    Store().load(os.getcwd())
";
    assert_edges(
        "app/store.py",
        source,
        &[
            ("", "path", "import"),
            ("", "graph", "import"),
            ("", "resolve", "import"),
            ("", "Graph", "import"),
            ("Store", "Base", "inherit"),
            ("Store", "ABC", "inherit"),
            ("load", "Key", "type"),
            ("load", "Item", "type"),
            ("load", "get", "call"),
            ("load", "fetch", "call"),
            ("main", "Store", "call"),
            ("main", "load", "call"),
            ("main", "getcwd", "call"),
        ],
    );
    let file = chunked("app/store.py", source);
    let import = file.chunks[0]
        .references
        .iter()
        .find(|r| r.name == "graph")
        .unwrap();
    assert_eq!((import.qualifier.as_str(), import.line), ("sharc", 2));
    // The method's calls belong to the method, not to the class chunk around it.
    let class = file.chunks.iter().find(|c| c.kind == "class").unwrap();
    assert!(class.references.iter().all(|r| r.name != "fetch"));
}

#[test]
fn ecmascript_calls_imports_heritage_and_jsx() {
    assert_edges(
        "src/app.js",
        "import React, { useState } from 'react';\nconst fs = require('./lib/fs.js');\n\
class App extends Component {\n  render() { return <Panel title={format(this.x)} />; }\n}\n\
function boot() { new App().mount(document.body); }\n",
        &[
            ("", "react", "import"),
            ("", "React", "import"),
            ("", "useState", "import"),
            ("", "fs", "import"),
            ("App", "Component", "inherit"),
            ("render", "Panel", "call"),
            ("render", "format", "call"),
            ("boot", "App", "call"),
            ("boot", "mount", "call"),
        ],
    );
    assert_edges(
        "src/service.ts",
        "import { Repo } from './repo';\n\
export class Service extends Base<T> implements Runner, Closer {\n\
  constructor(private repo: Repo) { super(); }\n\
  run(input: Request): Promise<Response> { return this.repo.find(input.id); }\n}\n",
        &[
            ("", "repo", "import"),
            ("Service", "Base", "inherit"),
            ("Service", "Runner", "inherit"),
            ("Service", "Closer", "inherit"),
            ("run", "Request", "type"),
            ("run", "Promise", "type"),
            ("run", "Response", "type"),
            ("run", "find", "call"),
        ],
    );
    assert_edges(
        "src/view.tsx",
        "function View(props: Props) { return <Card>{render(props)}</Card>; }\n",
        &[
            ("View", "Props", "type"),
            ("View", "Card", "call"),
            ("View", "render", "call"),
        ],
    );
}

#[test]
fn component_scripts_have_references_on_file_lines() {
    let source = "<template>\n  <div/>\n</template>\n\n<script>\nimport api from './api'\n\
export default {\n  methods: { load() { return api.fetchAll() } }\n}\n</script>\n";
    let file = chunked("ui/List.vue", source);
    let found: Vec<(&str, u32)> = file
        .chunks
        .iter()
        .flat_map(|c| c.references.iter().map(|r| (r.name.as_str(), r.line)))
        .collect();
    assert!(found.contains(&("api", 6)), "{found:?}");
    assert!(found.contains(&("fetchAll", 8)), "{found:?}");
}

#[test]
fn go_calls_imports_embedding_and_types() {
    assert_edges(
        "auth/handler.go",
        "package auth\n\nimport (\n\t\"fmt\"\n\t\"github.com/acme/store\"\n)\n\n\
type Server struct {\n\tBase\n\tdb *store.DB\n}\n\n\
func (s *Server) Handle(r *Request) error {\n\tfmt.Println(r)\n\treturn s.check(r)\n}\n",
        &[
            ("", "fmt", "import"),
            ("", "store", "import"),
            ("Server", "Base", "inherit"),
            ("Server", "DB", "type"),
            ("Handle", "Request", "type"),
            ("Handle", "Println", "call"),
            ("Handle", "check", "call"),
        ],
    );
    // A type's own name is its definition, not a reference.
    let found = edges("a.go", "package a\n\ntype Server struct{}\n");
    assert!(
        found.iter().all(|(_, name, _)| name != "Server"),
        "{found:?}"
    );
}

#[test]
fn rust_calls_macros_uses_and_impls() {
    assert_edges(
        "src/lib.rs",
        "use crate::chunk::{chunk_source, ChunkOptions};\nuse std::fmt;\n\n\
struct Wrapper(Inner);\n\n\
impl fmt::Display for Wrapper {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n\
        let chunks = chunk_source(\"a\", Language::Rust, \"\", &ChunkOptions::default());\n\
        self.0.render(f);\n        write!(f, \"{}\", chunks.len())\n    }\n}\n",
        &[
            ("", "chunk", "import"),
            ("", "chunk_source", "import"),
            ("", "fmt", "import"),
            ("Wrapper", "Inner", "type"),
            ("fmt", "chunk_source", "call"),
            ("fmt", "default", "call"),
            ("fmt", "render", "call"),
            ("fmt", "write", "call"),
            ("fmt", "Formatter", "type"),
        ],
    );
}

#[test]
fn jvm_calls_imports_and_supertypes() {
    assert_edges(
        "src/Main.java",
        "import java.util.List;\n\n\
public class Main extends Base implements Runnable {\n\
    public void run() { List<Item> items = new ArrayList<>(); helper.process(items); }\n}\n",
        &[
            ("", "List", "import"),
            ("Main", "Base", "inherit"),
            ("Main", "Runnable", "inherit"),
            ("run", "ArrayList", "call"),
            ("run", "process", "call"),
            ("run", "Item", "type"),
        ],
    );
    assert_edges(
        "src/Main.kt",
        "import com.acme.store.Repo\n\n\
class Service(val repo: Repo) : Base(), Runner {\n    fun run(): Int { return repo.find(load()) }\n}\n",
        &[
            ("", "Repo", "import"),
            ("Service", "Base", "inherit"),
            ("Service", "Runner", "inherit"),
            ("run", "find", "call"),
            ("run", "load", "call"),
            ("run", "Int", "type"),
        ],
    );
    assert_edges(
        "src/Main.scala",
        "import scala.collection.mutable\n\n\
class Service extends Base with Runner {\n  def run(x: Item): Int = helper.process(compute(x))\n}\n",
        &[
            ("", "mutable", "import"),
            ("", "scala", "import"),
            ("Service", "Base", "inherit"),
            ("Service", "Runner", "inherit"),
            ("run", "process", "call"),
            ("run", "compute", "call"),
            ("run", "Item", "type"),
        ],
    );
}

#[test]
fn c_family_calls_includes_and_bases() {
    assert_edges(
        "src/io.c",
        "#include <stdio.h>\n#include \"util/buffer.h\"\n\n\
int flush(Buffer *b) {\n    printf(\"%d\", b->len);\n    return b->ops->write(b);\n}\n",
        &[
            ("", "stdio", "import"),
            ("", "buffer", "import"),
            ("flush", "Buffer", "type"),
            ("flush", "printf", "call"),
            ("flush", "write", "call"),
        ],
    );
    assert_edges(
        "src/shape.cpp",
        "class Circle : public Shape {\npublic:\n  double area() const { return std::pow(r, 2) * pi(); }\n};\n\
void draw() { auto c = new Circle(); render<int>(c); }\n",
        &[
            ("Circle", "Shape", "inherit"),
            ("area", "pow", "call"),
            ("area", "pi", "call"),
            ("draw", "Circle", "call"),
            ("draw", "render", "call"),
        ],
    );
    assert_edges(
        "src/Service.cs",
        "using System.Collections.Generic;\n\nnamespace Acme {\n\
public class Service : BaseService, IRunner {\n\
  public Result Run(Request request) { var items = new List<Item>(); return Handle(request, items.Count()); }\n}\n}\n",
        &[
            ("", "Generic", "import"),
            ("Service", "BaseService", "inherit"),
            ("Service", "IRunner", "inherit"),
            ("Run", "Result", "type"),
            ("Run", "Request", "type"),
            ("Run", "List", "call"),
            ("Run", "Handle", "call"),
            ("Run", "Count", "call"),
        ],
    );
}

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
fn references_are_sorted_deduplicated_and_bounded_to_lines_in_chunks() {
    let source = "def a():\n    b(); b()\n    c()\n";
    let file = chunked("m.py", source);
    let names: Vec<(&str, u32)> = file.chunks[0]
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.line))
        .collect();
    assert_eq!(names, [("b", 2), ("c", 3)]);
}

#[test]
fn import_paths_split_into_qualifier_and_name() {
    assert_eq!(split_path("sharc.graph"), ("sharc", "graph"));
    assert_eq!(
        split_path("std::collections::HashMap"),
        ("std::collections", "HashMap")
    );
    assert_eq!(split_path("App\\Models\\User"), ("App\\Models", "User"));
    assert_eq!(split_path("plain"), ("", "plain"));
    assert_eq!(
        split_file_path("./utils/helpers.js"),
        ("./utils", "helpers")
    );
    assert_eq!(
        split_file_path("github.com/acme/store"),
        ("github.com/acme", "store")
    );
    assert_eq!(split_file_path("stdio.h"), ("", "stdio"));
}

/// `SHARC_DUMP=path cargo test --lib dump_tree -- --nocapture --ignored` prints a file's tree.
#[test]
#[ignore]
fn dump_tree() {
    let path = std::env::var("SHARC_DUMP").unwrap();
    let language = Language::from_path(Path::new(&path)).unwrap();
    let source = std::fs::read_to_string(&path).unwrap();
    let tree = crate::parse::parse_for_tests(language, &source);
    println!("{}", tree.root_node().to_sexp());
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
fn rust_calls_inside_macro_arguments_count() {
    assert_edges(
        "tests/chain.rs",
        "fn check() {\n    assert!(chain.next_back().is_none());\n    println!(\"{}\", render(x));\n}\n",
        &[
            ("check", "next_back", "call"),
            ("check", "is_none", "call"),
            ("check", "render", "call"),
            ("check", "assert", "call"),
        ],
    );
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
fn calls_through_a_receiver_keep_it_as_their_qualifier() {
    let file = chunked(
        "app/run.py",
        "def run(store):\n    store.load(1)\n    self.save()\n    load(2)\n    make(a, b).close()\n",
    );
    let found: Vec<(&str, &str)> = file.chunks[0]
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("load", "store"),
            ("save", "self"),
            ("load", ""),
            ("close", "…"),
            ("make", "")
        ]
    );
    let java = chunked(
        "A.java",
        "class A { void f() { repo.find(1); helper(); } }\n",
    );
    let calls: Vec<(&str, &str)> = java
        .chunks
        .iter()
        .flat_map(|c| c.references.iter())
        .filter(|r| r.kind == "call")
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    assert_eq!(calls, [("find", "repo"), ("helper", "")]);
}

#[test]
fn method_calls_inside_macro_arguments_have_a_receiver() {
    let file = chunked(
        "src/de.rs",
        "fn f(&mut self) {\n    tri!(self.next_char());\n    tri!(parse(x));\n}\n",
    );
    let calls: Vec<(&str, &str)> = file.chunks[0]
        .references
        .iter()
        .filter(|r| r.name != "tri")
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    assert_eq!(calls, [("next_char", "…"), ("parse", "")]);
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
