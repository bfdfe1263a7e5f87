//! Walking a source tree: which files sharc indexes, and why it leaves the others out.
//!
//! The `ignore` crate does the traversal (parallel or serial) and notices symlink loops; every
//! rule lives in [`Filter`], which the walk asks about each directory and file and which the file
//! watcher can ask about a single path, so the two can never disagree.
//!
//! Ignore rules are gitignore syntax. For one path the first layer with an opinion decides,
//! so a `!negation` in a stronger layer re-includes what a weaker one ignores:
//!
//! 1. `ignore_patterns` from the options, relative to the root;
//! 2. `.sharcignore`, then `.ignore`, then `.gitignore` files inside the root, the nearest
//!    directory first within each kind (ripgrep's layering);
//! 3. [`DEFAULT_IGNORES`], like a global gitignore.
//!
//! Ignore files above the root, `.git/info/exclude` and the user's global git excludes are never
//! read: the result depends on the tree and the options only, not on the machine, on where the
//! tree sits, or on whether it is a git repository.
//!
//! Hard blocks come after the rules and no negation lifts them: secrets (by name, or a private
//! key at the start of the content), binaries (a NUL byte in the first 8 KiB), files over the
//! size limit, symlinks that leave the root, and symlink loops. Symlinks inside the root are
//! followed, unless the target is walked at its real path anyway: then the link is an alias and
//! is left out, so no content is listed twice.

mod blocks;
mod changes;
pub(crate) mod extensionless;
mod filter;
mod options;
mod report;
mod rules;
mod traversal;

#[cfg(test)]
mod tests;

pub use blocks::sniff;
pub use changes::{changes, Changes, KnownFile};
pub use filter::Filter;
pub use options::{WalkOptions, DEFAULT_MAX_FILE_SIZE};
pub use report::{SkipReason, SkippedFile, Walk, WalkedFile};
pub use rules::{DEFAULT_IGNORES, IGNORE_FILES};
pub use traversal::{walk, walk_scope};
