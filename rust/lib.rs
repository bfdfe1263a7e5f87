//! sharc's core: parallel walking with ignore rules, and tree-sitter symbol chunking.
//!
//! Everything here is plain Rust; `py.rs` is the only file that knows about Python.

pub mod chunk;
pub mod error;
pub mod graph;
pub mod lang;
mod parse;
pub mod records;
pub mod tokens;
pub mod walk;

#[cfg(feature = "python")]
mod py;
