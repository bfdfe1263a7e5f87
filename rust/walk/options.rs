//! What a walk is asked to do: the options and their checks.

use crate::error::{Error, Result};

/// The default for [`WalkOptions::max_file_size`]: 1 MB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1_000_000;

/// What to walk and what to leave out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkOptions {
    /// Extra ignore rules, gitignore syntax relative to the root: `vendor/**`, `*.generated.ts`.
    pub ignore_patterns: Vec<String>,
    /// Extensions (`.vue` or `vue`) indexed with [`Tier::OtherCode`] even if unknown to `lang`.
    ///
    /// [`Tier::OtherCode`]: crate::lang::Tier::OtherCode
    pub custom_extensions: Vec<String>,
    /// Files larger than this many bytes are skipped; 0 disables the limit.
    pub max_file_size: u64,
    /// Walker threads: 0 picks automatically, 1 walks serially.
    pub threads: usize,
    /// Also report paths left out by ignore rules (a dry run); off by default.
    pub report_ignored: bool,
    /// Read the head of each file to skip binaries and private keys. An index sync turns it
    /// off (a stat per file is enough to see what changed) and lets the chunker, which reads
    /// the changed files anyway, apply the same check through [`sniff`](super::sniff).
    pub sniff_content: bool,
}

impl Default for WalkOptions {
    fn default() -> WalkOptions {
        WalkOptions {
            ignore_patterns: Vec::new(),
            custom_extensions: Vec::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            threads: 0,
            report_ignored: false,
            sniff_content: true,
        }
    }
}

/// A custom extension as matched: lowercase, with the leading dot.
pub(super) fn normalize_extension(extension: &str) -> Result<String> {
    let bare = extension.trim().trim_start_matches('.');
    let invalid = |reason: &str| Error::InvalidExtension {
        extension: extension.to_string(),
        reason: reason.to_string(),
    };
    if bare.is_empty() {
        return Err(invalid("empty"));
    }
    if bare.contains(['/', '\\', '*', '?']) || bare.chars().any(char::is_whitespace) {
        return Err(invalid(
            "an extension is a file name suffix, not a path or a glob",
        ));
    }
    Ok(format!(".{}", bare.to_ascii_lowercase()))
}
