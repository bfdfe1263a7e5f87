//! Ignore rules: the options' patterns, the ignore files of the tree, the default list.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::error::{Error, Result};

/// Paths always left out unless a rule re-includes them (the spec's default ignore list).
///
/// A `name/**` entry prunes directories of that name at any depth, as `name/` does in a
/// `.gitignore`.
pub const DEFAULT_IGNORES: &[&str] = &[
    "node_modules/**",
    "target/**",
    "dist/**",
    "build/**",
    "out/**",
    ".next/**",
    ".nuxt/**",
    ".svelte-kit/**",
    ".turbo/**",
    ".parcel-cache/**",
    ".cache/**",
    "coverage/**",
    ".nyc_output/**",
    "__pycache__/**",
    ".pytest_cache/**",
    ".mypy_cache/**",
    ".ruff_cache/**",
    ".tox/**",
    ".nox/**",
    ".venv/**",
    "venv/**",
    "env/**",
    ".git/**",
    ".svn/**",
    ".hg/**",
    ".idea/**",
    ".vscode/**",
    "tmp/**",
    "temp/**",
    "logs/**",
    "*.log",
    "*.min.js",
    "*.min.css",
    "*.bundle.js",
    "*.chunk.js",
    "*.map",
];

/// The ignore files read in every directory of the tree, strongest first.
pub const IGNORE_FILES: [&str; 3] = [".sharcignore", ".ignore", ".gitignore"];

const USER_SOURCE: &str = "ignore_patterns";
const DEFAULT_SOURCE: &str = "defaults";

type IgnoreChain = Arc<[Arc<IgnoreFile>]>;

struct IgnoreFile {
    /// Index in [`IGNORE_FILES`]: lower is stronger.
    rank: usize,
    matcher: Gitignore,
    /// The file's path relative to the root, for reports.
    label: String,
}

/// Every ignore rule of a walk: the options' patterns, the defaults, and the ignore files of
/// the tree, read lazily and cached per directory.
pub(super) struct IgnoreRules {
    /// The canonical root; no rules are read above it.
    root: PathBuf,
    user: PatternSet,
    defaults: PatternSet,
    /// The ignore files that apply inside each directory, nearest first.
    ignore_files: RwLock<HashMap<PathBuf, IgnoreChain>>,
}

impl IgnoreRules {
    /// Compile the options' `patterns` and the defaults for the canonical `root`.
    pub(super) fn new(root: &Path, patterns: &[String]) -> Result<IgnoreRules> {
        Ok(IgnoreRules {
            root: root.to_path_buf(),
            user: PatternSet::user(root, patterns)?,
            defaults: PatternSet::defaults(root),
            ignore_files: RwLock::new(HashMap::new()),
        })
    }

    /// The ignore rule that leaves `path` out, if any; `describe` formats it for a report.
    pub(super) fn ignored(&self, path: &Path, is_dir: bool, describe: bool) -> Option<String> {
        let rule = |source: &str, pattern: &str| {
            if describe {
                format!("{source}: {pattern}")
            } else {
                String::new()
            }
        };
        match self.user.matched(path, is_dir) {
            Match::Ignore(pattern) => return Some(rule(USER_SOURCE, pattern)),
            Match::Whitelist(_) => return None,
            Match::None => {}
        }
        let chain = self.ignore_files_for(path.parent().unwrap_or(&self.root));
        let mut decided: Option<(&IgnoreFile, Match<&ignore::gitignore::Glob>)> = None;
        for file in chain.iter() {
            // The nearest file of a kind decides for that kind; a stronger kind overrides.
            if decided
                .as_ref()
                .is_some_and(|(best, _)| best.rank <= file.rank)
            {
                continue;
            }
            let matched = file.matcher.matched(path, is_dir);
            if !matched.is_none() {
                decided = Some((file, matched));
            }
        }
        match decided {
            Some((file, Match::Ignore(glob))) => return Some(rule(&file.label, glob.original())),
            Some(_) => return None,
            None => {}
        }
        match self.defaults.matched(path, is_dir) {
            Match::Ignore(pattern) => Some(rule(DEFAULT_SOURCE, pattern)),
            _ => None,
        }
    }

    fn ignore_files_for(&self, dir: &Path) -> IgnoreChain {
        if let Some(chain) = read(&self.ignore_files).get(dir) {
            return Arc::clone(chain);
        }
        // Never read rules above the root.
        if !dir.starts_with(&self.root) {
            return Arc::new([]);
        }
        let inherited: IgnoreChain = match dir.parent() {
            Some(parent) if dir != self.root => self.ignore_files_for(parent),
            _ => Arc::new([]),
        };
        let own = self.read_ignore_files(dir);
        let chain = if own.is_empty() {
            inherited
        } else {
            own.into_iter().chain(inherited.iter().cloned()).collect()
        };
        let mut cache = self
            .ignore_files
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(cache.entry(dir.to_path_buf()).or_insert(chain))
    }

    fn read_ignore_files(&self, dir: &Path) -> Vec<Arc<IgnoreFile>> {
        let mut files = Vec::new();
        for (rank, name) in IGNORE_FILES.iter().enumerate() {
            let path = dir.join(name);
            // A missing or unreadable ignore file has no rules, as in git and ripgrep.
            let Ok(bytes) = fs::read(&path) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let mut builder = GitignoreBuilder::new(dir);
            for line in text.trim_start_matches('\u{feff}').lines() {
                // A line that is not a valid glob is skipped, as git and ripgrep do.
                let _ = builder.add_line(None, line);
            }
            match builder.build() {
                Ok(matcher) if !matcher.is_empty() => files.push(Arc::new(IgnoreFile {
                    rank,
                    matcher,
                    label: relative(&self.root, &path),
                })),
                _ => {}
            }
        }
        files
    }
}

/// The options' patterns, or the defaults: one gitignore matcher, reported as written.
struct PatternSet {
    matcher: Gitignore,
    /// (line as compiled, pattern as written), for patterns rewritten to prune directories.
    rewritten: Vec<(String, String)>,
}

impl PatternSet {
    fn user(root: &Path, patterns: &[String]) -> Result<PatternSet> {
        // With a negation in the set, `dir/**` must stay as written: `!dir/keep.py` can only
        // re-include a file if `dir/` itself is entered.
        let prune = !patterns
            .iter()
            .any(|pattern| pattern.trim().starts_with('!'));
        PatternSet::build(root, patterns.iter().map(String::as_str), prune, true)
    }

    fn defaults(root: &Path) -> PatternSet {
        PatternSet::build(root, DEFAULT_IGNORES.iter().copied(), true, false)
            .expect("the default ignore patterns are valid")
    }

    fn build<'a>(
        root: &Path,
        patterns: impl Iterator<Item = &'a str>,
        prune: bool,
        anchored: bool,
    ) -> Result<PatternSet> {
        let patterns: Vec<&str> = patterns.collect();
        let mut builder = GitignoreBuilder::new(root);
        let mut rewritten = Vec::new();
        for &pattern in &patterns {
            let line = match pruning_form(pattern, anchored) {
                Some(line) if prune => {
                    rewritten.push((line.clone(), pattern.to_string()));
                    line
                }
                _ => pattern.to_string(),
            };
            builder
                .add_line(None, &line)
                .map_err(|error| invalid_pattern(pattern, &error))?;
        }
        let matcher = builder
            .build()
            .map_err(|error| invalid_pattern(&patterns.join(", "), &error))?;
        Ok(PatternSet { matcher, rewritten })
    }

    /// The pattern as written that decides `path`, if any.
    fn matched(&self, path: &Path, is_dir: bool) -> Match<&str> {
        self.matcher.matched(path, is_dir).map(|glob| {
            let line = glob.original();
            self.rewritten
                .iter()
                .find(|(compiled, _)| compiled == line)
                .map_or(line, |(_, written)| written.as_str())
        })
    }
}

/// `dir/**` ignores everything inside `dir`; `dir/` ignores the directory itself, so the walk
/// prunes it and reports it once instead of listing its contents. `anchored` keeps a
/// single-component `dir/**` tied to the root, as gitignore reads it.
fn pruning_form(pattern: &str, anchored: bool) -> Option<String> {
    let pattern = pattern.trim();
    let dir = pattern.strip_suffix("/**")?;
    if dir.is_empty() || dir.ends_with("**") || pattern.starts_with('!') || pattern.starts_with('#')
    {
        return None;
    }
    let anchor = if anchored && !dir.contains('/') {
        "/"
    } else {
        ""
    };
    Some(format!("{anchor}{dir}/"))
}

fn invalid_pattern(pattern: &str, error: &ignore::Error) -> Error {
    let reason = match error {
        ignore::Error::Glob { err, .. } => err.clone(),
        other => other.to_string(),
    };
    Error::InvalidPattern {
        pattern: pattern.to_string(),
        reason,
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// `path` relative to `root`, `/`-separated; lossy for names that are not UTF-8.
pub(super) fn relative(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let text = relative.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}
