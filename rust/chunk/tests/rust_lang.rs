//! Rust: inline modules and items inside macro invocations.

use super::*;

#[test]
fn rust_inline_modules_carry_their_visibility_in_the_header() {
    let source =
        "mod ext {\n    pub trait StdError {\n        fn context(self) -> u8;\n    }\n}\n\n\
                  pub mod api {\n    pub fn open() -> u8 {\n        1\n    }\n}\n\n\
                  pub(crate) mod shared {\n    pub fn close() -> u8 {\n        2\n    }\n}\n";
    let file = chunk_source(
        "src/lib.rs",
        Language::Rust,
        source,
        &ChunkOptions::default(),
    );
    let header_of = |symbol: &str| {
        file.chunks
            .iter()
            .find(|c| c.symbol == symbol)
            .unwrap_or_else(|| panic!("{symbol} chunked"))
            .header
            .clone()
    };
    assert_eq!(
        header_of("StdError"),
        "// Context: trait StdError > mod ext (src/lib.rs)\n"
    );
    assert_eq!(header_of("open"), "// Context: pub mod api (src/lib.rs)\n");
    assert_eq!(
        header_of("close"),
        "// Context: pub(crate) mod shared (src/lib.rs)\n"
    );
    // The qualified name is the module's name, whatever its visibility.
    let open = file.chunks.iter().find(|c| c.symbol == "open").unwrap();
    assert_eq!(open.fqn, "api.open");
}

#[test]
fn items_inside_macro_invocations_are_chunked() {
    let source = "use crate::task::JoinHandle;\n\
                  \n\
                  cfg_rt! {\n\
                  \x20   /// Spawns a new asynchronous task.\n\
                  \x20   #[track_caller]\n\
                  \x20   pub fn spawn<F>(future: F) -> JoinHandle<F::Output> {\n\
                  \x20       spawn_inner(future, None)\n\
                  \x20   }\n\
                  \n\
                  \x20   pub(crate) struct Spawner {\n\
                  \x20       id: u64,\n\
                  \x20   }\n\
                  }\n\
                  \n\
                  mod inner {\n\
                  \x20   cfg_net!(\n\
                  \x20       pub fn bind() {}\n\
                  \x20   );\n\
                  }\n\
                  \n\
                  macro_rules! cfg_rt {\n\
                  \x20   ($($item:item)*) => { $( #[cfg(feature = \"rt\")] $item )* }\n\
                  }\n\
                  \n\
                  vec_of! { 1, 2, 3 }\n";
    let file = chunk_source("spawn.rs", Language::Rust, source, &ChunkOptions::default());
    assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
    let spawn = file
        .chunks
        .iter()
        .find(|c| c.symbol == "spawn")
        .expect("spawn chunked");
    assert_eq!((spawn.start_line, spawn.end_line), (4, 8));
    assert!(spawn
        .code
        .trim_start()
        .starts_with("/// Spawns a new asynchronous task."));
    let spawner = file
        .chunks
        .iter()
        .find(|c| c.symbol == "Spawner")
        .expect("Spawner");
    assert_eq!((spawner.start_line, spawner.end_line), (10, 12));
    let bind = file
        .chunks
        .iter()
        .find(|c| c.symbol == "bind")
        .expect("bind in mod inner");
    assert_eq!(bind.fqn, "inner.bind");
    assert!(file
        .chunks
        .iter()
        .any(|c| c.kind == "macro" && c.symbol == "cfg_rt"));
    // A macro that holds no items stays code, as written.
    assert!(file
        .chunks
        .iter()
        .any(|c| c.code.contains("vec_of! { 1, 2, 3 }")));
}
