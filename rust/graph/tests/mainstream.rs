//! Python, JavaScript and TypeScript (and components), Go, Rust, the JVM and the C family.

use super::*;

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
fn a_rust_module_declared_in_its_own_file_is_imported() {
    // `mod common;` brings `common.rs` or `common/mod.rs` in; an inline `mod tests { ... }`
    // is code of this file, no import.
    assert_edges(
        "tests/test_downcast.rs",
        "mod common;\n\nuse self::common::*;\n\n#[cfg(test)]\nmod tests {\n    fn check() {}\n}\n",
        &[("", "common", "import"), ("", "common", "import")],
    );
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
