//! What a walk reports: the files it keeps, the paths it leaves out and why.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::lang::{Language, Tier};

/// A file the walk will index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkedFile {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    pub language: Language,
    pub tier: Tier,
}

/// Why a path was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// An ignore rule matched; `rule` names its source and pattern, e.g. `.gitignore: build/`.
    Ignored {
        rule: String,
    },
    /// A credentials file or a private key.
    Secret,
    /// A NUL byte in the first 8 KiB.
    Binary,
    TooLarge {
        size: u64,
        limit: u64,
    },
    SymlinkOutsideRoot,
    SymlinkLoop,
    Unreadable {
        message: String,
    },
    /// No known language and not one of the custom extensions.
    Unsupported,
}

impl SkipReason {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            SkipReason::Ignored { .. } => "ignored",
            SkipReason::Secret => "secret",
            SkipReason::Binary => "binary",
            SkipReason::TooLarge { .. } => "too_large",
            SkipReason::SymlinkOutsideRoot => "symlink_outside_root",
            SkipReason::SymlinkLoop => "symlink_loop",
            SkipReason::Unreadable { .. } => "unreadable",
            SkipReason::Unsupported => "unsupported",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Ignored { rule } => write!(f, "ignored by {rule}"),
            SkipReason::Secret => f.write_str("secret (credentials file or private key)"),
            SkipReason::Binary => f.write_str("binary (NUL byte in the first 8 KiB)"),
            SkipReason::TooLarge { size, limit } => {
                write!(
                    f,
                    "too large ({} > {})",
                    human_size(*size),
                    human_size(*limit)
                )
            }
            SkipReason::SymlinkOutsideRoot => f.write_str("symlink to a target outside the root"),
            SkipReason::SymlinkLoop => f.write_str("symlink loop"),
            SkipReason::Unreadable { message } => write!(f, "unreadable: {message}"),
            SkipReason::Unsupported => f.write_str("unsupported file type"),
        }
    }
}

/// A path the walk left out. Directories end with `/` and stand for everything below them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedFile {
    pub path: String,
    pub reason: SkipReason,
}

/// The result of a walk, both lists sorted by path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The canonical root every path is relative to.
    pub root: PathBuf,
    pub files: Vec<WalkedFile>,
    pub skipped: Vec<SkippedFile>,
}

pub(super) fn unreadable(error: &io::Error) -> SkipReason {
    let error = innermost(error);
    if is_loop_error(error) {
        return SkipReason::SymlinkLoop;
    }
    SkipReason::Unreadable {
        message: error.to_string(),
    }
}

/// The error of resolving a symlink: a loop, or a target that is missing or unreadable.
pub(super) fn link_error(error: &io::Error) -> SkipReason {
    if innermost(error).kind() == io::ErrorKind::NotFound {
        return SkipReason::Unreadable {
            message: "broken symlink: the target does not exist".to_string(),
        };
    }
    unreadable(error)
}

/// The OS error under walkdir's wrapping (the serial walker), so both walkers say the same.
fn innermost(error: &io::Error) -> &io::Error {
    let mut innermost = error;
    let mut cause = error
        .get_ref()
        .map(|inner| inner as &(dyn std::error::Error + 'static));
    while let Some(current) = cause {
        if let Some(io_error) = current.downcast_ref::<io::Error>() {
            innermost = io_error;
        }
        cause = current.source();
    }
    innermost
}

fn is_loop_error(error: &io::Error) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const ELOOP: i32 = 40;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const ELOOP: i32 = 62;
    error.raw_os_error() == Some(ELOOP)
}

pub(super) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["kB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 999.95 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}
