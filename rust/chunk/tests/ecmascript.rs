//! JavaScript and TypeScript, and the Vue and Svelte components that embed them.

use super::*;

#[test]
fn an_object_at_the_end_of_chained_assignments_holds_methods() {
    let source = "const proto = module.exports = {\n\
                  \x20 inspect () {\n\
                  \x20   return this.toJSON()\n\
                  \x20 },\n\
                  \n\
                  \x20 onerror (err) {\n\
                  \x20   if (err == null) return\n\
                  \x20 }\n\
                  }\n\
                  module.exports.helpers = exports.helpers = {\n\
                  \x20 escape (text) { return text }\n\
                  }\n";
    let file = chunk_source(
        "context.js",
        Language::JavaScript,
        source,
        &ChunkOptions::default(),
    );
    let onerror = file
        .chunks
        .iter()
        .find(|c| c.symbol == "onerror")
        .expect("onerror chunked");
    assert_eq!((onerror.start_line, onerror.end_line), (6, 8));
    assert_eq!(onerror.fqn, "proto.onerror");
    assert!(file.chunks.iter().any(|c| c.symbol == "inspect"));
    let escape = file
        .chunks
        .iter()
        .find(|c| c.symbol == "escape")
        .expect("escape chunked");
    assert_eq!(escape.fqn, "module.exports.helpers.escape");
}

#[test]
fn generic_call_signatures_on_their_own_lines_keep_the_file_whole() {
    // tree-sitter-typescript reads the second signature's `<` as part of the first one's
    // return type; without the reparse the class and function after it were one error.
    let source = "export interface CreateHandlers<E> {\n\
                  \x20 <I>(handler1: H<I>): [H<I>]\n\
                  \n\
                  \x20 // two handlers\n\
                  \x20 <\n\
                  \x20   I extends Input = {},\n\
                  \x20 >(handler1: H<I>, handler2: H<I>): [H<I>, H<I>]\n\
                  }\n\
                  \n\
                  export class Factory {\n\
                  \x20 createApp() {\n\
                  \x20   return new Hono()\n\
                  \x20 }\n\
                  }\n\
                  \n\
                  export const createFactory = () => new Factory()\n";
    for language in [Language::TypeScript, Language::Tsx] {
        let file = chunk_source("factory.ts", language, source, &ChunkOptions::default());
        assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
        let spans: Vec<(&str, u32, u32)> = file
            .chunks
            .iter()
            .map(|c| (c.symbol.as_str(), c.start_line, c.end_line))
            .collect();
        for wanted in [
            ("CreateHandlers", 1, 8),
            ("Factory", 10, 14),
            ("createApp", 11, 13),
            ("createFactory", 16, 16),
        ] {
            assert!(spans.contains(&wanted), "{wanted:?} not in {spans:?}");
        }
        // The chunk shows the file as written, not the text that was parsed.
        let interface = &file.chunks[0];
        assert!(interface.code.contains("]\n\n  // two handlers\n  <\n"));
    }
}

#[test]
fn a_class_assigned_to_module_exports_is_a_class() {
    let source = "module.exports = class Application extends Emitter {\n\
                  \x20 constructor () {\n\
                  \x20   super()\n\
                  \x20 }\n\
                  \n\
                  \x20 listen (...args) {\n\
                  \x20   return 1\n\
                  \x20 }\n\
                  }\n\
                  exports.Helper = class {\n\
                  \x20 run () {}\n\
                  }\n";
    let file = chunk_source(
        "application.js",
        Language::JavaScript,
        source,
        &ChunkOptions::default(),
    );
    let class = file
        .chunks
        .iter()
        .find(|c| c.kind == "class" && c.symbol == "Application");
    assert_eq!(class.map(|c| (c.start_line, c.end_line)), Some((1, 9)));
    let listen = file
        .chunks
        .iter()
        .find(|c| c.symbol == "listen")
        .expect("listen");
    assert_eq!(listen.fqn, "Application.listen");
    let helper = file.chunks.iter().find(|c| c.symbol == "run").expect("run");
    assert_eq!(helper.fqn, "exports.Helper.run");
}

#[test]
fn component_scripts_keep_the_files_line_numbers() {
    let vue = "<template>\n  <p>{{ count(1) }}</p>\n</template>\n\n<!--\n<script>\nfunction hidden() {}\n</script>\n-->\n<script setup lang=\"ts\">\nfunction count(n: number): number {\n  return n + 1;\n}\n</script>\n\n<style scoped>\np { color: red; }\n</style>\n";
    let file = chunk_source(
        "src/Count.vue",
        Language::Vue,
        vue,
        &ChunkOptions::default(),
    );
    assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
    assert_well_formed(&file, vue, 3500);
    let spans: Vec<(&str, &str, u32, u32)> = file
        .chunks
        .iter()
        .map(|c| (c.id.as_str(), c.kind, c.start_line, c.end_line))
        .collect();
    assert_eq!(
        spans,
        [
            ("src/Count.vue::<template>", "template", 1, 9),
            ("src/Count.vue::count", "function", 10, 13),
            ("src/Count.vue::<style>", "style", 16, 18),
        ]
    );
    let count = &file.chunks[1];
    assert_eq!(count.header, "// Context: module Count (src/Count.vue)\n");
    assert!(count
        .code
        .starts_with("<script setup lang=\"ts\">\nfunction count(n: number)"));
    assert!(file.chunks.iter().all(|c| c.language == Language::Vue));

    // Two scripts, TSX, an unclosed last one: ids stay unique, nothing is lost.
    let svelte = "<script context=\"module\">\n  export const a = 1;\n</script>\n<script lang=\"tsx\">\n  const b = <i>{a}</i>;\n  export let c = 2;\n\n<p>{b}</p>\n";
    let file = chunk_source(
        "Two.svelte",
        Language::Svelte,
        svelte,
        &ChunkOptions::default(),
    );
    assert!(file.error.is_none());
    assert_well_formed(&file, svelte, 3500);
    let ids: Vec<&str> = file.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["Two.svelte::<module>", "Two.svelte::<module>#2"]);
    assert!(file.chunks[1].code.contains("<p>{b}</p>"));
}

#[test]
fn test_suites_and_cases_are_named_by_their_titles() {
    let js = "const assert = require('assert')\n\n\
              describe('router', () => {\n\
              \x20 beforeEach(() => { reset() })\n\n\
              \x20 it('matches a path', () => {\n    assert.ok(match('/a'))\n  })\n\n\
              \x20 test.each([[1], [2]])('adds %i', (n) => {\n    assert.ok(n)\n  })\n\
              })\n\n\
              test.only(`handles ${kind} errors`, async t => {\n  t.plan(1)\n})\n";
    let file = chunk_source(
        "router.test.js",
        Language::JavaScript,
        js,
        &ChunkOptions::default(),
    );
    let tests: Vec<(&str, &str)> = file
        .chunks
        .iter()
        .filter(|c| c.kind == "test")
        .map(|c| (c.symbol.as_str(), c.fqn.as_str()))
        .collect();
    assert_eq!(
        tests,
        [
            ("matches a path", "router.matches a path"),
            ("adds %i", "router.adds %i"),
            ("handles ${kind} errors", "handles ${kind} errors"),
        ]
    );
    let ruby = "describe Sidekiq::Client do\n  context \"when empty\" do\n    it \"pushes a job\" do\n\
                \x20     expect(push).to be_truthy\n    end\n  end\n\n  it(\"handles nil\") { expect(nil).to be_nil }\nend\n";
    let file = chunk_source(
        "client_spec.rb",
        Language::Ruby,
        ruby,
        &ChunkOptions::default(),
    );
    let tests: Vec<&str> = file
        .chunks
        .iter()
        .filter(|c| c.kind == "test")
        .map(|c| c.fqn.as_str())
        .collect();
    assert_eq!(
        tests,
        [
            "Sidekiq::Client.when empty.pushes a job",
            "Sidekiq::Client.handles nil"
        ]
    );
    // A call that is no test framework's stays code.
    let app = "app.get('/users', (req, res) => {\n  res.send(users)\n})\n";
    let file = chunk_source(
        "app.js",
        Language::JavaScript,
        app,
        &ChunkOptions::default(),
    );
    assert!(file.chunks.iter().all(|c| c.kind == "module"));
}

#[test]
fn functions_inside_wrapping_functions_are_chunks() {
    let umd = ";(function (root, factory) {\n  root.lib = factory()\n})(this, function () {\n\
               \x20 'use strict'\n\n  function parse(text) {\n    return text.split(',')\n  }\n\n\
               \x20 return { parse: parse }\n})\n\n\
               $(function () {\n  function init() {\n    bind()\n  }\n  init()\n})\n";
    let file = chunk_source(
        "lib.js",
        Language::JavaScript,
        umd,
        &ChunkOptions::default(),
    );
    let functions: Vec<(&str, u32, u32)> = file
        .chunks
        .iter()
        .filter(|c| c.kind == "function")
        .map(|c| (c.symbol.as_str(), c.start_line, c.end_line))
        .collect();
    assert_eq!(functions, [("parse", 6, 8), ("init", 14, 16)]);
    let lua = "local M = {}\n\ndo\n  local cache = {}\n  function M.get(k)\n    return cache[k]\n  end\nend\n\nreturn M\n";
    let file = chunk_source("cache.lua", Language::Lua, lua, &ChunkOptions::default());
    assert!(file
        .chunks
        .iter()
        .any(|c| c.symbol == "M.get" || c.fqn == "M.get"));
}

#[test]
fn a_namespace_that_defines_values_is_a_chunk_named_after_it() {
    let source = "import { x } from \"./x\";\n\
                  \n\
                  /** Validation helpers. */\n\
                  export namespace Validation {\n\
                  \x20 export interface StringValidator {\n\
                  \x20   isAcceptable(s: string): boolean;\n\
                  \x20 }\n\
                  \x20 const letters = /^[A-Za-z]+$/;\n\
                  \x20 export function check(s: string): boolean {\n\
                  \x20   return letters.test(s);\n\
                  \x20 }\n\
                  }\n\
                  \n\
                  namespace Shapes {\n\
                  \x20 export class Circle {\n\
                  \x20   area() { return 1; }\n\
                  \x20 }\n\
                  }\n";
    let file = chunk_source(
        "validation.ts",
        Language::TypeScript,
        source,
        &ChunkOptions::default(),
    );
    let validation = file
        .chunks
        .iter()
        .find(|c| c.symbol == "Validation")
        .expect("the namespace is a chunk");
    assert_eq!(validation.kind, "namespace");
    assert_eq!((validation.start_line, validation.end_line), (3, 12));
    assert!(validation.code.contains("/** Validation helpers. */"));
    assert!(validation.code.contains("const letters"));
    let check = file.chunks.iter().find(|c| c.symbol == "check").unwrap();
    assert_eq!(check.fqn, "Validation.check");
    // A namespace of classes only gives its members context, no chunk of its own.
    assert!(!file.chunks.iter().any(|c| c.symbol == "Shapes"));
    let circle = file.chunks.iter().find(|c| c.symbol == "Circle").unwrap();
    assert_eq!(circle.fqn, "Shapes.Circle");
}

#[test]
fn a_dotted_namespace_is_found_by_its_last_name() {
    let source = "namespace Outer.Inner {\n\
                  \x20 export function check(x: number) { return x > 0; }\n\
                  \x20 export const limit = 3;\n\
                  }\n";
    let file = chunk_source(
        "a.ts",
        Language::TypeScript,
        source,
        &ChunkOptions::default(),
    );
    let inner = file
        .chunks
        .iter()
        .find(|c| c.kind == "namespace")
        .expect("the namespace is a chunk");
    assert_eq!(
        (inner.symbol.as_str(), inner.fqn.as_str()),
        ("Inner", "Outer.Inner")
    );
    let check = file.chunks.iter().find(|c| c.symbol == "check").unwrap();
    assert_eq!(check.fqn, "Outer.Inner.check");
}
