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

/// The symbols of `file`'s chunks of `kind`.
fn symbols<'f>(file: &'f FileChunks, kind: &str) -> Vec<&'f str> {
    file.chunks
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| c.symbol.as_str())
        .collect()
}

#[test]
fn a_class_whose_head_or_signatures_a_conditional_splits_is_one_class() {
    // Eigen's `DenseBase` and `Ref`: the base clause differs by branch, and two constructors'
    // signatures share one body. Tree-sitter reads a directive only between whole items.
    let source = "namespace Eigen {\n\
                  template<typename Derived> class DenseBase\n\
                  #ifndef EIGEN_PARSED_BY_DOXYGEN\n\
                  \x20 : public DenseCoeffsBase<Derived, accessors_level<Derived>::value>\n\
                  #else\n\
                  \x20 : public DenseCoeffsBase<Derived, DirectWriteAccessors>\n\
                  #endif // not EIGEN_PARSED_BY_DOXYGEN\n\
                  {\n\
                  \x20 public:\n\
                  \x20   EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR\n\
                  \x20   inline Index nonZeros() const { return size(); }\n\
                  \x20   template<typename Other>\n\
                  \x20   EIGEN_DEVICE_FUNC inline Ref(PlainObjectBase<Other>& expr)\n\
                  \x20   {\n\
                  \x20     construct(expr);\n\
                  \x20   }\n\
                  #ifndef EIGEN_PARSED_BY_DOXYGEN\n\
                  \x20   template<typename Other>\n\
                  \x20   EIGEN_DEVICE_FUNC inline Ref(const DenseBase<Other>& expr,\n\
                  \x20                                int* tag = 0)\n\
                  #else\n\
                  \x20   template<typename Other>\n\
                  \x20   inline Ref(DenseBase<Other>& expr)\n\
                  #endif\n\
                  \x20   {\n\
                  \x20     construct(expr.derived());\n\
                  \x20   }\n\
                  \x20   EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE\n\
                  \x20   Derived& setZero() { return derived(); }\n\
                  };\n\
                  }\n";
    for (path, language) in [("DenseBase.h", Language::C), ("dense.cpp", Language::Cpp)] {
        let file = chunk_source(path, language, source, &ChunkOptions::default());
        assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
        assert_eq!(symbols(&file, "class"), ["DenseBase"], "{}", render(&file));
        assert_eq!(
            symbols(&file, "method"),
            ["nonZeros", "Ref", "Ref#2", "setZero"].map(|name| name.split('#').next().unwrap())
        );
        let class = file.chunks.iter().find(|c| c.kind == "class").unwrap();
        // The branches set aside for the parse are still the class's code.
        assert!(class
            .code
            .contains(": public DenseCoeffsBase<Derived, DirectWriteAccessors>"));
        if let Err(error) = super::fuzz::covered(&file, source, 3500) {
            panic!("{error:?}\n{}", render(&file));
        }
    }
}

#[test]
fn conditionals_between_whole_functions_keep_every_branch() {
    // The file has an error elsewhere, so it is read again; the conditional around whole
    // functions stays, and each branch keeps its function.
    let source = "class SINK_API sink {\n\
                  public:\n\
                  \x20   void flush();\n\
                  };\n\
                  #ifdef _WIN32\n\
                  void open_file(const wchar_t *name) { open(name); }\n\
                  #else\n\
                  void open_file(const char *name) { open(name); }\n\
                  #endif\n\
                  int broken(void) { return 1 }\n\
                  int level(void) {\n\
                  #if 0\n\
                  \x20 return old_level(\n\
                  #else\n\
                  \x20 return new_level(\n\
                  #endif\n\
                  \x20   1);\n\
                  }\n";
    let file = chunk_source("sink.cpp", Language::Cpp, source, &ChunkOptions::default());
    let functions = symbols(&file, "function");
    assert_eq!(
        functions
            .iter()
            .filter(|name| **name == "open_file")
            .count(),
        2,
        "{}",
        render(&file)
    );
    assert!(functions.contains(&"level"), "{}", render(&file));
    if let Err(error) = super::fuzz::covered(&file, source, 3500) {
        panic!("{error:?}\n{}", render(&file));
    }
}

#[test]
fn a_class_defined_inside_a_class_has_its_own_chunk() {
    let source = "struct binary_evaluator {\n\
                  \x20 class InnerIterator {\n\
                  \x20 public:\n\
                  \x20   InnerIterator& operator++() { step(); return *this; }\n\
                  \x20   Index index() const { return m_id; }\n\
                  \x20   Index m_id;\n\
                  \x20 };\n\
                  \x20 struct Data { int rows; int cols; };\n\
                  \x20 struct { int z; } anonymous;\n\
                  \x20 enum { Flags = 1 };\n\
                  \x20 Index nonZerosEstimate() const { return 0; }\n\
                  };\n";
    let file = chunk_source(
        "evaluator.hpp",
        Language::Cpp,
        source,
        &ChunkOptions::default(),
    );
    let ids: Vec<&str> = file.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "evaluator.hpp::binary_evaluator::class",
            "evaluator.hpp::binary_evaluator.InnerIterator::class",
            "evaluator.hpp::binary_evaluator.InnerIterator.operator++",
            "evaluator.hpp::binary_evaluator.InnerIterator.index",
            "evaluator.hpp::binary_evaluator.Data",
            "evaluator.hpp::binary_evaluator.nonZerosEstimate",
        ],
        "{}",
        render(&file)
    );
    if let Err(error) = super::fuzz::covered(&file, source, 3500) {
        panic!("{error:?}\n{}", render(&file));
    }
}

#[test]
fn a_class_chunk_shows_the_macros_that_stand_for_members_whole() {
    // Each macro is read as a statement for the parse; the class chunk is sliced from the file
    // as written, so no character of it may go (`IGEN_DEVICE_FUNC` was shown).
    let source = "class Map : public MapBase<Map>\n\
                  {\n\
                  \x20 public:\n\
                  \x20   EIGEN_DENSE_PUBLIC_INTERFACE(Map)\n\
                  \x20   EIGEN_DEVICE_FUNC\n\
                  \x20   explicit inline Map(PointerArgType dataPtr) : Base(dataPtr)\n\
                  \x20   {\n\
                  \x20     check();\n\
                  \x20   }\n\
                  \x20   EIGEN_DEVICE_FUNC\n\
                  \x20   inline Index innerStride() const { return 1; }\n\
                  };\n";
    let file = chunk_source("Map.h", Language::C, source, &ChunkOptions::default());
    let class = file
        .chunks
        .iter()
        .find(|c| c.kind == "class")
        .expect("class chunked");
    for line in [
        "    EIGEN_DENSE_PUBLIC_INTERFACE(Map)",
        "    EIGEN_DEVICE_FUNC\n    explicit inline Map(",
    ] {
        assert!(class.code.contains(line), "{}", class.code);
    }
    if let Err(error) = super::fuzz::covered(&file, source, 3500) {
        panic!("{error:?}\n{}", render(&file));
    }
}

#[test]
fn a_template_declared_without_a_body_is_a_chunk() {
    // Eigen declares `traits` once and only specialises it: the declaration is its primary
    // template. A plain forward declaration and a specialisation's declaration stay code.
    let source = "namespace Eigen {\nnamespace internal {\n\n\
                  template<typename T> struct traits;\n\n\
                  template<typename T> struct traits<const T> : traits<T> {};\n\n\
                  class Forward;\n\
                  template<> struct traits<Forward>;\n\n\
                  template<typename Scalar, int Rows>\nclass Matrix;\n\n\
                  int use(void) { return 1; }\n\n}\n}\n";
    let file = chunk_source(
        "ForwardDeclarations.h",
        Language::Cpp,
        source,
        &ChunkOptions::default(),
    );
    // Each chunk ends where its declaration does (the namespaces' opening lines lead the
    // first one, as they lead any first definition).
    let declared: Vec<(&str, &str, u32)> = file
        .chunks
        .iter()
        .filter(|c| c.symbol == "traits" || c.symbol == "Matrix" || c.symbol == "Forward")
        .map(|c| (c.kind, c.symbol.as_str(), c.end_line))
        .collect();
    assert_eq!(
        declared,
        [
            ("struct", "traits", 4),
            ("struct", "traits", 6),
            ("class", "Matrix", 12)
        ],
        "{}",
        render(&file)
    );
    if let Err(error) = super::fuzz::covered(&file, source, 3500) {
        panic!("{error:?}\n{}", render(&file));
    }
}

#[test]
fn a_nested_class_defined_outside_its_class_is_named_by_its_last_segment() {
    // Eigen defines its iterators after the class that declares them; a pimpl's `Impl` is
    // defined in the source file the same way. (Its constructor is a constructor, in the
    // class's chunk, as any class's is: it was a method named after the class before.)
    let source = "namespace Eigen {\ntemplate<typename Derived>\n\
                  class SparseCompressedBase<Derived>::InnerIterator\n{\n  public:\n\
                  \x20   InnerIterator() : m_id(0) {}\n\
                  \x20   Index index() const { return m_id; }\n  protected:\n\
                  \x20   Index m_id;\n};\n}\n\n\
                  class Widget::Impl {\n  public:\n    void draw() { paint(); }\n};\n";
    let file = chunk_source(
        "SparseCompressedBase.h",
        Language::Cpp,
        source,
        &ChunkOptions::default(),
    );
    let named: Vec<(&str, &str, &str)> = file
        .chunks
        .iter()
        .filter(|c| !c.symbol.is_empty())
        .map(|c| (c.kind, c.symbol.as_str(), c.fqn.as_str()))
        .collect();
    assert_eq!(
        named,
        [
            (
                "class",
                "InnerIterator",
                "Eigen.SparseCompressedBase.InnerIterator"
            ),
            (
                "method",
                "index",
                "Eigen.SparseCompressedBase.InnerIterator.index"
            ),
            ("class", "Impl", "Widget.Impl"),
            ("method", "draw", "Widget.Impl.draw"),
        ],
        "{}",
        render(&file)
    );
}
