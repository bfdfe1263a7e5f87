//! C and C++: macros, and headers that read as C++.

use super::*;

#[test]
fn a_blanked_macro_after_a_declaration_without_its_semicolon_stays_in_the_class() {
    // Found by fuzzing: the macro is blanked for the reparse, the declaration ends at `)`,
    // and the macro's bytes belong to no node of the class body.
    let source = "class SINK_API sink {\n\
                  public:\n\
                  \x20   void swap(sink &other) SINK_NOEXCEP\n\
                  namespace sinks {\n\
                  int f() { return 1; }\n\
                  }\n\
                  \x20   int level() const;\n\
                  };\n";
    let file = chunk_source("sink.hpp", Language::Cpp, source, &ChunkOptions::default());
    let class = file
        .chunks
        .iter()
        .find(|c| c.kind == "class")
        .expect("class chunked");
    assert!(
        class.code.contains("void swap(sink &other) SINK_NOEXCEP"),
        "{}",
        class.code
    );
    if let Err(error) = super::fuzz::covered(&file, source, 3500) {
        panic!("{error:?}\n{}", render(&file));
    }
}

#[test]
fn function_like_macros_of_a_few_lines_are_chunks() {
    let source = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\n\
                  #define LIBM_DD(name) \\\n\
                  static double f_ ## name(double x) { \\\n\
                  \x20 return name(x); \\\n\
                  }\n\n\
                  int use(void) { return MAX(1, 2); }\n";
    let file = chunk_source("math.c", Language::C, source, &ChunkOptions::default());
    let macros: Vec<(&str, u32, u32)> = file
        .chunks
        .iter()
        .filter(|c| c.kind == "macro")
        .map(|c| (c.symbol.as_str(), c.start_line, c.end_line))
        .collect();
    assert_eq!(macros, [("LIBM_DD", 3, 6)]);
    assert!(file.chunks.iter().any(|c| c.symbol == "use"));
}

#[test]
fn a_header_that_reads_as_cpp_gives_cpp_chunks() {
    let cpp = "namespace log {\nclass sink {\npublic:\n    void flush() { n_ = 0; }\nprivate:\n    int n_;\n};\n}\n";
    let file = chunk_source("sink.h", Language::C, cpp, &ChunkOptions::default());
    assert!(file.chunks.iter().any(|c| c.symbol == "flush"));
    assert!(file.chunks.iter().all(|c| c.language == Language::Cpp));
    let c = "struct point { int x; int y; };\n\nint norm(struct point p) { return p.x * p.x; }\n";
    let file = chunk_source("point.h", Language::C, c, &ChunkOptions::default());
    assert!(file.chunks.iter().all(|c| c.language == Language::C));
}
