//! The crate's one error type. Per-file problems are not errors: they are reported as skips.

use std::path::PathBuf;

/// What can stop a whole walk or chunking call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("root not found: {path}")]
    RootNotFound { path: PathBuf },

    #[error("root is not a directory: {path}")]
    RootNotDirectory { path: PathBuf },

    #[error("invalid ignore pattern {pattern:?}: {reason}")]
    InvalidPattern { pattern: String, reason: String },

    #[error("not a path inside the root: {path}")]
    PathOutsideRoot { path: PathBuf },

    #[error("invalid extension {extension:?}: {reason}")]
    InvalidExtension { extension: String, reason: String },

    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("tree-sitter grammar for {language} failed to load: {reason}")]
    Grammar { language: String, reason: String },
}

pub type Result<T> = std::result::Result<T, Error>;
