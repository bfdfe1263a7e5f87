//! C and C++: the attribute-like macros found for a reparse (`c_macros`).

use crate::chunk::c_macros::{attribute_macros, Place};

fn blanked(text: &str) -> Vec<&str> {
    attribute_macros(text)
        .into_iter()
        .map(|(a, b, _)| &text[a..b])
        .collect()
}

#[test]
fn a_macro_before_a_name_is_blanked_one_leading_a_declaration_is_a_specifier() {
    let places: Vec<Place> = attribute_macros("class MY_API A {\n  MY_NODISCARD int f();")
        .into_iter()
        .map(|(_, _, place)| place)
        .collect();
    assert_eq!(places, [Place::Name, Place::Declaration]);
}

#[test]
fn finds_macros_in_attribute_positions() {
    assert_eq!(blanked("class SPDLOG_API logger {"), ["SPDLOG_API"]);
    assert_eq!(
        blanked("    CLI11_NODISCARD std::string name() const"),
        ["CLI11_NODISCARD"]
    );
    assert_eq!(
        blanked("SPDLOG_INLINE logger::logger(std::string n)"),
        ["SPDLOG_INLINE"]
    );
    assert_eq!(blanked("static MY_INLINE int f(void)"), ["MY_INLINE"]);
    assert_eq!(blanked("template <class T> MY_API T get();"), ["MY_API"]);
    // Between the return type and the name.
    assert_eq!(
        blanked("void SPDLOG_INLINE thread_pool::post_log(int n) {"),
        ["SPDLOG_INLINE"]
    );
    assert_eq!(
        blanked("size_t MY_INLINE counter() { return 1; }"),
        ["MY_INLINE"]
    );
    assert_eq!(blanked("const char *MY_API name (void);"), ["MY_API"]);
    assert_eq!(
        blanked(
            "logger::~logger() {}
int MY_API logger::~logger();"
        )
        .len(),
        1
    );
}

#[test]
fn the_last_macro_of_a_line_leads_the_declaration_on_the_next() {
    assert_eq!(
        blanked("    EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE\n    Derived& setZero();"),
        ["EIGEN_DEVICE_FUNC", "EIGEN_STRONG_INLINE"]
    );
    assert_eq!(
        blanked("    inline EIGEN_DEVICE_FUNC\n    Select(const Cond& c);"),
        ["EIGEN_DEVICE_FUNC"]
    );
    // Alone on its line it stands for a statement, as before; a label or a statement
    // on the next line is no declaration.
    assert_eq!(
        attribute_macros("    Q_OBJECT\n    int x;")[0].2,
        Place::Statement
    );
    assert!(blanked("    int x = SIZE_A SIZE_B\n    return x;").is_empty());
    assert_eq!(blanked("  MY_EXPORT MY_MACRO\n  public:"), ["MY_EXPORT"]);
    // Alone on its line over a declaration, under a template clause too.
    for text in [
        "  template<typename O>\n  EIGEN_DEVICE_FUNC\n  inline Init(X& x, const O& o)",
        "  EIGEN_DEVICE_FUNC\n  Derived& operator=(const Derived& other);",
        "  EIGEN_DEVICE_FUNC\n  const Scalar coeff(Index i) const",
    ] {
        assert_eq!(attribute_macros(text)[0].2, Place::Declaration, "{text}");
    }
    for text in [
        "  LOCK_GUARD\n  run(x);",
        "  LOCK_GUARD\n  m_x.resize(n);",
        "  LOCK_GUARD\n  x = make(y);",
        "  LOCK_GUARD\n  return f(x);",
    ] {
        assert_eq!(attribute_macros(text)[0].2, Place::Statement, "{text}");
    }
}

#[test]
fn finds_macros_after_a_parameter_list() {
    assert_eq!(
        blanked("    void swap(logger &other) SPDLOG_NOEXCEPT;"),
        ["SPDLOG_NOEXCEPT"]
    );
    assert_eq!(blanked("  int size() const MY_NOEXCEPT {"), ["MY_NOEXCEPT"]);
    assert_eq!(
        blanked("void f(int a,\n       int b) MY_NOEXCEPT;"),
        ["MY_NOEXCEPT"]
    );
    assert_eq!(
        blanked("T &operator=(T other) MY_NOEXCEPT;"),
        ["MY_NOEXCEPT"]
    );
    assert!(blanked("    if (ready) RETURN_NOW;").is_empty());
    assert!(blanked("    return MAKE_ERROR(code);").is_empty());
    assert!(blanked("    foo(a, b MY_FLAG c(d));").is_empty());
    assert!(blanked("    x = (size_t) SIZE_MAX;").is_empty());
}

#[test]
fn a_macro_with_arguments_after_a_parameter_list_goes_whole() {
    assert_eq!(
        blanked("  void Lock() ABSL_LOCKS_EXCLUDED(mu_);"),
        ["ABSL_LOCKS_EXCLUDED(mu_)"]
    );
    let text = "  inline ~CommaInitializer()\n#if defined X\n  \
                EIGEN_EXCEPTION_SPEC(Eigen::eigen_assert_exception)\n#endif\n  {\n";
    assert_eq!(
        attribute_macros(text),
        [(
            text.find("EIGEN_EXCEPTION").unwrap(),
            text.find(")\n#endif").unwrap() + 1,
            Place::Name
        )]
    );
    // A call's arguments are no parameter list.
    assert!(blanked("  if (ready) LOG_ERROR(code);").is_empty());
}

#[test]
fn finds_statement_macros_alone_or_opening_a_block() {
    assert_eq!(
        blanked("    SPDLOG_TRY {\n        run();\n    }\n    SPDLOG_CATCH_STD\n}"),
        ["SPDLOG_TRY", "SPDLOG_CATCH_STD"]
    );
    assert!(blanked("    x = LIMIT\n        + 1;").is_empty());
    let trailing = "int f(int a)\n    MY_NOEXCEPT {\n    return a;\n}";
    assert_eq!(attribute_macros(trailing)[0].2, Place::Name);
    assert_eq!(
        blanked("class A : public E {\n    CLI11_ERROR_DEF(E, A)\n};"),
        ["CLI11_ERROR_DEF(E, A)"]
    );
    // A call with its semicolon, or a block after it, is code as it stands.
    assert!(blanked("    MY_CHECK(ready(x));").is_empty());
    assert!(blanked("TEST_CASE(\"parses\") {").is_empty());
    assert!(blanked("TEST_SETUP(ProductionCode)\n{\n  Counter = 1;\n}").is_empty());
    assert!(blanked("    MY_CHECK(a,\n             b)").is_empty());
    assert!(blanked("    run(LIMIT\n        , 1);").is_empty());
}

#[test]
fn leaves_other_capitals_alone() {
    assert!(blanked("#define SPDLOG_API __attribute__((visibility(\"default\")))").is_empty());
    assert!(blanked("CJSON_PUBLIC(cJSON *) cJSON_Parse(const char *value)").is_empty());
    assert!(blanked("    return NULL_VALUE;").is_empty());
    assert!(blanked("FILE *file = fopen(path, \"r\");").is_empty());
    assert!(blanked("    MAX_SIZE = 10,").is_empty());
    assert!(blanked("int x = FLAG_ONE | FLAG_TWO;").is_empty());
    assert!(blanked("// SPDLOG_API logger is exported").is_empty());
}
