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

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{DirEntry, Match, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::error::{Error, Result};
use crate::lang::{Language, Tier};

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

/// The default for [`WalkOptions::max_file_size`]: 1 MB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1_000_000;

/// How much of each file is read to detect binaries and private keys.
const SNIFF_LEN: usize = 8 * 1024;

const USER_SOURCE: &str = "ignore_patterns";
const DEFAULT_SOURCE: &str = "defaults";

/// `.env` files that document variables rather than hold them.
const ENV_TEMPLATES: [&str; 3] = [".env.example", ".env.sample", ".env.template"];
const SECRET_EXTENSIONS: [&str; 4] = [".pem", ".key", ".p12", ".pfx"];
const SSH_PRIVATE_KEYS: [&str; 4] = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];

/// What to walk and what to leave out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkOptions {
    /// Extra ignore rules, gitignore syntax relative to the root: `vendor/**`, `*.generated.ts`.
    pub ignore_patterns: Vec<String>,
    /// Extensions (`.vue` or `vue`) indexed with [`Tier::OtherCode`] even if unknown to `lang`.
    pub custom_extensions: Vec<String>,
    /// Files larger than this many bytes are skipped; 0 disables the limit.
    pub max_file_size: u64,
    /// Walker threads: 0 picks automatically, 1 walks serially.
    pub threads: usize,
    /// Also report paths left out by ignore rules (a dry run); off by default.
    pub report_ignored: bool,
    /// Read the head of each file to skip binaries and private keys. An index sync turns it
    /// off (a stat per file is enough to see what changed) and lets the chunker, which reads
    /// the changed files anyway, apply the same check through [`sniff`].
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

/// Walk `root` and classify every file under it.
pub fn walk(root: &Path, options: &WalkOptions) -> Result<Walk> {
    let filter = Filter::new(root, options)?;
    // An unreadable root is the caller's problem, not one more skipped entry.
    fs::read_dir(&filter.root).map_err(|source| Error::Io {
        path: filter.root.clone(),
        source,
    })?;
    let root = filter.root.clone();
    let shared = Arc::new(Shared {
        filter,
        report_ignored: options.report_ignored,
        found: Mutex::new(Found::default()),
    });

    let mut builder = WalkBuilder::new(&root);
    // The crate's own ignore-file support is off: it cannot say why it dropped a path, and the
    // watcher needs the same rules for single paths, so `Filter` applies them all. Hidden files
    // are walked; `.git/` and friends are in the default list.
    builder
        .standard_filters(false)
        .require_git(false)
        .follow_links(true)
        .threads(options.threads);
    let for_dirs = Arc::clone(&shared);
    builder.filter_entry(move |entry| for_dirs.enter(entry));

    if options.threads == 1 {
        let mut collector = Collector::new(&shared);
        for result in builder.build() {
            collector.collect(result);
        }
    } else {
        builder
            .build_parallel()
            .visit(&mut CollectorBuilder { shared: &shared });
    }

    let found = std::mem::take(&mut *lock(&shared.found));
    let mut files = found.files;
    let mut skipped = found.skipped;
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    skipped.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    drop_duplicate_links(&root, &mut files, &found.links);
    Ok(Walk {
        root,
        files,
        skipped,
    })
}

/// Every rule of a walk, built once from a root and options; answers for single paths too.
///
/// Ignore files are read lazily and cached per directory: rebuild the filter after one changes.
pub struct Filter {
    root: PathBuf,
    user: PatternSet,
    defaults: PatternSet,
    /// Lowercase, with the leading dot.
    custom_extensions: Vec<String>,
    max_file_size: u64,
    sniff_content: bool,
    /// The ignore files that apply inside each directory, nearest first.
    ignore_files: RwLock<HashMap<PathBuf, IgnoreChain>>,
}

type IgnoreChain = Arc<[Arc<IgnoreFile>]>;

struct IgnoreFile {
    /// Index in [`IGNORE_FILES`]: lower is stronger.
    rank: usize,
    matcher: Gitignore,
    /// The file's path relative to the root, for reports.
    label: String,
}

/// What the walk does with a directory.
enum DirVerdict {
    Enter,
    /// A symlink to a directory inside the root that is not walked otherwise.
    FollowLink,
}

impl Filter {
    /// Compile the options' rules for `root`; fails on a missing root or a bad pattern.
    pub fn new(root: &Path, options: &WalkOptions) -> Result<Filter> {
        let root = canonical_root(root)?;
        let user = PatternSet::user(&root, &options.ignore_patterns)?;
        let defaults = PatternSet::defaults(&root);
        let custom_extensions = options
            .custom_extensions
            .iter()
            .map(|extension| normalize_extension(extension))
            .collect::<Result<_>>()?;
        Ok(Filter {
            root,
            user,
            defaults,
            custom_extensions,
            max_file_size: options.max_file_size,
            sniff_content: options.sniff_content,
            ignore_files: RwLock::new(HashMap::new()),
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What the walk would do with one file, given relative to the root: the walked file, or
    /// why it is left out (ignore rules on it or on a directory above it, hard blocks). A
    /// directory gives `Unsupported`; ask [`Filter::check_directory`] about those.
    pub fn classify(&self, relative_path: &Path) -> std::result::Result<WalkedFile, SkipReason> {
        let path = self.enter_parents(relative_path)?;
        let metadata = fs::symlink_metadata(&path).map_err(|error| unreadable(&error))?;
        let is_link = metadata.file_type().is_symlink();
        let metadata = if is_link {
            fs::metadata(&path).map_err(|error| link_error(&error))?
        } else {
            metadata
        };
        if metadata.is_dir() {
            return Err(SkipReason::Unsupported);
        }
        let (language, tier) = self.check_file(&path, metadata.is_file(), is_link, true)?;
        self.inspect(&path, language, tier, &mut [0; SNIFF_LEN])
    }

    /// Whether the walk would enter a directory given relative to the root, and if not why.
    pub fn check_directory(&self, relative_path: &Path) -> std::result::Result<(), SkipReason> {
        let path = self.enter_parents(relative_path)?;
        if path == self.root {
            return Ok(());
        }
        let metadata = fs::symlink_metadata(&path).map_err(|error| unreadable(&error))?;
        self.check_dir(&path, metadata.file_type().is_symlink(), true)
            .map(|_| ())
    }

    /// Check every directory above `relative_path` as the walk would, and return its full path.
    fn enter_parents(&self, relative_path: &Path) -> std::result::Result<PathBuf, SkipReason> {
        let inside = relative_path
            .components()
            .all(|component| matches!(component, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(SkipReason::Unreadable {
                message: "not a path inside the root".to_string(),
            });
        }
        let mut path = self.root.clone();
        let mut components = relative_path.components().peekable();
        while let Some(component) = components.next() {
            path.push(component);
            if components.peek().is_none() {
                break;
            }
            if component == Component::CurDir {
                continue;
            }
            let metadata = fs::symlink_metadata(&path).map_err(|error| unreadable(&error))?;
            self.check_dir(&path, metadata.file_type().is_symlink(), true)?;
        }
        Ok(path)
    }

    /// The rules for a directory met by the walk, from its path and type alone.
    fn check_dir(
        &self,
        path: &Path,
        is_link: bool,
        describe: bool,
    ) -> std::result::Result<DirVerdict, SkipReason> {
        check_name(path)?;
        if let Some(rule) = self.ignored(path, true, describe) {
            return Err(SkipReason::Ignored { rule });
        }
        if !is_link {
            return Ok(DirVerdict::Enter);
        }
        self.resolve_link(path, true, describe)?;
        Ok(DirVerdict::FollowLink)
    }

    /// The rules for a file met by the walk that need no reading: name, ignore rules, symlink.
    fn check_file(
        &self,
        path: &Path,
        is_regular: bool,
        is_link: bool,
        describe: bool,
    ) -> std::result::Result<(Language, Tier), SkipReason> {
        let name = check_name(path)?;
        // Secrets come first so that they are reported even where an ignore rule hides them.
        if is_secret_name(name) {
            return Err(SkipReason::Secret);
        }
        if let Some(rule) = self.ignored(path, false, describe) {
            return Err(SkipReason::Ignored { rule });
        }
        let language = self.language(path, name).ok_or(SkipReason::Unsupported)?;
        // Never open FIFOs, sockets or devices: reading them can block forever.
        if !is_regular {
            return Err(SkipReason::Unsupported);
        }
        if is_link {
            self.resolve_link(path, false, describe)?;
        }
        Ok(language)
    }

    /// The rules that read the file: size, binary content, private key.
    fn inspect(
        &self,
        path: &Path,
        language: Language,
        tier: Tier,
        buffer: &mut [u8],
    ) -> std::result::Result<WalkedFile, SkipReason> {
        let mut file = None;
        let metadata = if self.sniff_content {
            let opened = File::open(path).map_err(|error| unreadable(&error))?;
            let metadata = opened.metadata().map_err(|error| unreadable(&error))?;
            file = Some(opened);
            metadata
        } else {
            std::fs::metadata(path).map_err(|error| unreadable(&error))?
        };
        let size = metadata.len();
        if self.max_file_size > 0 && size > self.max_file_size {
            return Err(SkipReason::TooLarge {
                size,
                limit: self.max_file_size,
            });
        }
        if let Some(mut file) = file {
            let head = read_head(&mut file, buffer).map_err(|error| unreadable(&error))?;
            if let Some(reason) = sniff(head) {
                return Err(reason);
            }
        }
        Ok(WalkedFile {
            path: self.relative(path),
            size,
            mtime_ns: metadata.modified().map_or(0, unix_nanos),
            language,
            tier,
        })
    }

    /// The ignore rule that leaves `path` out, if any; `describe` formats it for a report.
    fn ignored(&self, path: &Path, is_dir: bool, describe: bool) -> Option<String> {
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
                    label: self.relative(&path),
                })),
                _ => {}
            }
        }
        files
    }

    /// Let a symlink through only to a target inside the root that the walk does not reach by
    /// its real path; a link to such a target is an alias, reported as ignored.
    fn resolve_link(
        &self,
        path: &Path,
        is_dir: bool,
        describe: bool,
    ) -> std::result::Result<(), SkipReason> {
        let target = fs::canonicalize(path).map_err(|error| link_error(&error))?;
        let Ok(real) = target.strip_prefix(&self.root) else {
            return Err(SkipReason::SymlinkOutsideRoot);
        };
        // `notes.txt -> .env` must not smuggle a secret in under an innocent name.
        let target_name = target.file_name().and_then(|name| name.to_str());
        if !is_dir && target_name.is_some_and(is_secret_name) {
            return Err(SkipReason::Secret);
        }
        if is_dir {
            let parent = path
                .parent()
                .and_then(|parent| fs::canonicalize(parent).ok());
            if parent.is_some_and(|parent| parent.starts_with(&target)) {
                return Err(SkipReason::SymlinkLoop);
            }
        }
        if !self.reaches(real, is_dir) {
            return Ok(());
        }
        let rule = if describe {
            let slash = if is_dir { "/" } else { "" };
            format!("symlink: alias of {}{slash}", real.display())
        } else {
            String::new()
        };
        Err(SkipReason::Ignored { rule })
    }

    /// Whether the walk reaches a real (symlink-free) path relative to the root.
    fn reaches(&self, real: &Path, is_dir: bool) -> bool {
        let mut path = self.root.clone();
        let mut components = real.components().peekable();
        while let Some(component) = components.next() {
            path.push(component);
            let component_is_dir = is_dir || components.peek().is_some();
            if self.ignored(&path, component_is_dir, false).is_some() {
                return false;
            }
        }
        true
    }

    fn language(&self, path: &Path, name: &str) -> Option<(Language, Tier)> {
        if let Some(language) = Language::from_path(path) {
            return Some((language, language.tier()));
        }
        if ENV_TEMPLATES
            .iter()
            .any(|template| name.eq_ignore_ascii_case(template))
        {
            return Some((Language::Ini, Tier::Config));
        }
        let custom = self.custom_extensions.iter().any(|extension| {
            name.len() > extension.len() && ends_with_ignore_case(name, extension)
        });
        custom.then_some((Language::Other, Tier::OtherCode))
    }

    /// `path` relative to the root, `/`-separated; lossy for names that are not UTF-8.
    fn relative(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        let text = relative.to_string_lossy();
        if std::path::MAIN_SEPARATOR == '/' {
            text.into_owned()
        } else {
            text.replace(std::path::MAIN_SEPARATOR, "/")
        }
    }

    fn relative_reported(&self, path: &Path, is_dir: bool) -> String {
        let mut relative = self.relative(path);
        if relative.is_empty() {
            relative.push('.');
        }
        if is_dir {
            relative.push('/');
        }
        relative
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

fn normalize_extension(extension: &str) -> Result<String> {
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

fn canonical_root(root: &Path) -> Result<PathBuf> {
    let canonical = fs::canonicalize(root).map_err(|source| {
        if source.kind() == io::ErrorKind::NotFound {
            Error::RootNotFound {
                path: root.to_path_buf(),
            }
        } else {
            Error::Io {
                path: root.to_path_buf(),
                source,
            }
        }
    })?;
    if !canonical.is_dir() {
        return Err(Error::RootNotDirectory {
            path: root.to_path_buf(),
        });
    }
    Ok(canonical)
}

/// The entry's name, which must be UTF-8 to be stored and reopened from Python.
fn check_name(path: &Path) -> std::result::Result<&str, SkipReason> {
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_str()
        .ok_or_else(|| SkipReason::Unreadable {
            message: "name is not valid UTF-8".to_string(),
        })
}

fn is_secret_name(name: &str) -> bool {
    if name.eq_ignore_ascii_case(".env") {
        return true;
    }
    if name.len() > 5 && name.as_bytes()[..5].eq_ignore_ascii_case(b".env.") {
        return !ENV_TEMPLATES
            .iter()
            .any(|template| name.eq_ignore_ascii_case(template));
    }
    SECRET_EXTENSIONS
        .iter()
        .any(|extension| ends_with_ignore_case(name, extension))
        || SSH_PRIVATE_KEYS.contains(&name)
}

fn ends_with_ignore_case(name: &str, suffix: &str) -> bool {
    name.len() >= suffix.len()
        && name.as_bytes()[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// The content rules on a file's first bytes: binary (a NUL in the first 8 KiB) or a private key.
pub fn sniff(content: &[u8]) -> Option<SkipReason> {
    let head = &content[..content.len().min(SNIFF_LEN)];
    if memchr::memchr(0, head).is_some() {
        Some(SkipReason::Binary)
    } else if starts_with_private_key(head) {
        Some(SkipReason::Secret)
    } else {
        None
    }
}

/// Whether the first non-blank line is a PEM private key header such as
/// `-----BEGIN RSA PRIVATE KEY-----`.
fn starts_with_private_key(head: &[u8]) -> bool {
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let Some(line) = head.trim_ascii_start().strip_prefix(b"-----BEGIN ") else {
        return false;
    };
    let end = memchr::memchr(b'\n', line).unwrap_or(line.len());
    line[..end]
        .trim_ascii_end()
        .strip_suffix(b"-----")
        .is_some_and(|label| memchr::memmem::find(label, b"PRIVATE KEY").is_some())
}

/// Fill `buffer` from the start of the file, or as much as the file has.
fn read_head<'b>(file: &mut File, buffer: &'b mut [u8]) -> io::Result<&'b [u8]> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(&buffer[..filled])
}

fn unix_nanos(time: SystemTime) -> i64 {
    let saturate = |nanos: u128| i64::try_from(nanos).unwrap_or(i64::MAX);
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => saturate(after.as_nanos()),
        Err(before) => -saturate(before.duration().as_nanos()),
    }
}

fn unreadable(error: &io::Error) -> SkipReason {
    let error = innermost(error);
    if is_loop_error(error) {
        return SkipReason::SymlinkLoop;
    }
    SkipReason::Unreadable {
        message: error.to_string(),
    }
}

/// The error of resolving a symlink: a loop, or a target that is missing or unreadable.
fn link_error(error: &io::Error) -> SkipReason {
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

fn human_size(bytes: u64) -> String {
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

/// Files reached through two followed links to the same target are kept once, under the
/// smallest path. `files` must be sorted.
fn drop_duplicate_links(root: &Path, files: &mut Vec<WalkedFile>, links: &[String]) {
    if links.is_empty() {
        return;
    }
    let through_link = |path: &str| {
        links.iter().any(|link| {
            path.strip_prefix(link.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    };
    let mut seen = HashSet::new();
    files.retain(|file| {
        !through_link(&file.path)
            || fs::canonicalize(root.join(&file.path)).map_or(true, |real| seen.insert(real))
    });
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// State shared by the directory filter and the per-thread collectors.
struct Shared {
    filter: Filter,
    report_ignored: bool,
    found: Mutex<Found>,
}

#[derive(Default)]
struct Found {
    files: Vec<WalkedFile>,
    skipped: Vec<SkippedFile>,
    /// Followed symlinks, relative to the root.
    links: Vec<String>,
}

impl Shared {
    /// The walker's entry filter: decides on directories before they are read.
    fn enter(&self, entry: &DirEntry) -> bool {
        let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
        if entry.depth() == 0 || !is_dir {
            return true;
        }
        let path = entry.path();
        match self
            .filter
            .check_dir(path, entry.path_is_symlink(), self.report_ignored)
        {
            Ok(DirVerdict::Enter) => true,
            Ok(DirVerdict::FollowLink) => {
                lock(&self.found).links.push(self.filter.relative(path));
                true
            }
            Err(reason) => {
                if let Some(skip) = self.report(path, true, reason) {
                    lock(&self.found).skipped.push(skip);
                }
                false
            }
        }
    }

    fn report(&self, path: &Path, is_dir: bool, reason: SkipReason) -> Option<SkippedFile> {
        if matches!(reason, SkipReason::Ignored { .. }) && !self.report_ignored {
            return None;
        }
        Some(SkippedFile {
            path: self.filter.relative_reported(path, is_dir),
            reason,
        })
    }

    /// A walker error is a skip at its path: a symlink loop, or something unreadable.
    fn report_error(&self, error: ignore::Error) -> Option<SkippedFile> {
        let mut path = None;
        let mut error = error;
        let reason = loop {
            match error {
                ignore::Error::WithPath { path: at, err } => {
                    path.get_or_insert(at);
                    error = *err;
                }
                ignore::Error::WithDepth { err, .. }
                | ignore::Error::WithLineNumber { err, .. } => error = *err,
                ignore::Error::Loop { child, .. } => {
                    // A link to a directory above the root is a loop to the walker, and first
                    // of all a link out of the root, as `Filter` says.
                    let reason = match self.filter.resolve_link(&child, true, false) {
                        Err(SkipReason::SymlinkOutsideRoot) => SkipReason::SymlinkOutsideRoot,
                        _ => SkipReason::SymlinkLoop,
                    };
                    path = Some(child);
                    break reason;
                }
                ignore::Error::Io(io_error) => {
                    let is_link = path
                        .as_ref()
                        .and_then(|path| fs::symlink_metadata(path).ok())
                        .is_some_and(|metadata| metadata.file_type().is_symlink());
                    break if is_link {
                        link_error(&io_error)
                    } else {
                        unreadable(&io_error)
                    };
                }
                other => {
                    break SkipReason::Unreadable {
                        message: other.to_string(),
                    }
                }
            }
        };
        let path = path.unwrap_or_else(|| self.filter.root.clone());
        let is_dir = fs::metadata(&path).is_ok_and(|metadata| metadata.is_dir());
        let reason = match self.filter.ignored(&path, is_dir, self.report_ignored) {
            Some(rule) => SkipReason::Ignored { rule },
            None => reason,
        };
        self.report(&path, is_dir, reason)
    }
}

/// One walker thread's findings, merged into [`Shared::found`] when the thread ends.
struct Collector<'s> {
    shared: &'s Shared,
    found: Found,
    buffer: Box<[u8; SNIFF_LEN]>,
}

impl<'s> Collector<'s> {
    fn new(shared: &'s Shared) -> Collector<'s> {
        Collector {
            shared,
            found: Found::default(),
            buffer: Box::new([0; SNIFF_LEN]),
        }
    }

    fn collect(&mut self, result: std::result::Result<DirEntry, ignore::Error>) {
        let entry = match result {
            Ok(entry) => entry,
            Err(error) => {
                self.found.skipped.extend(self.shared.report_error(error));
                return;
            }
        };
        let Some(kind) = entry.file_type() else {
            return;
        };
        if kind.is_dir() {
            return;
        }
        let filter = &self.shared.filter;
        let path = entry.path();
        let is_link = entry.path_is_symlink();
        let outcome = filter
            .check_file(path, kind.is_file(), is_link, self.shared.report_ignored)
            .and_then(|(language, tier)| filter.inspect(path, language, tier, &mut *self.buffer));
        match outcome {
            Ok(file) => {
                if is_link {
                    self.found.links.push(file.path.clone());
                }
                self.found.files.push(file);
            }
            Err(reason) => self
                .found
                .skipped
                .extend(self.shared.report(path, false, reason)),
        }
    }
}

impl ParallelVisitor for Collector<'_> {
    fn visit(&mut self, result: std::result::Result<DirEntry, ignore::Error>) -> WalkState {
        self.collect(result);
        WalkState::Continue
    }
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        let mut found = lock(&self.shared.found);
        found.files.append(&mut self.found.files);
        found.skipped.append(&mut self.found.skipped);
        found.links.append(&mut self.found.links);
    }
}

struct CollectorBuilder<'s> {
    shared: &'s Shared,
}

impl<'s> ParallelVisitorBuilder<'s> for CollectorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Collector::new(self.shared))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempfile::TempDir;

    /// A tree of files under a fresh temporary directory; parent directories are created.
    fn tree(files: &[(&str, &str)]) -> TempDir {
        let dir = TempDir::new().unwrap();
        for (path, content) in files {
            write(dir.path(), path, content.as_bytes());
        }
        dir
    }

    fn write(root: &Path, path: &str, content: &[u8]) {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    #[cfg(unix)]
    fn symlink(root: &Path, link: &str, target: impl AsRef<Path>) {
        let link = root.join(link);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, link).unwrap();
    }

    /// Walk serially and in parallel, insist on the same result, and return it.
    fn run(root: &Path, options: WalkOptions) -> Walk {
        let serial = walk(
            root,
            &WalkOptions {
                threads: 1,
                ..options.clone()
            },
        )
        .unwrap();
        for threads in [0, 4] {
            let parallel = walk(
                root,
                &WalkOptions {
                    threads,
                    ..options.clone()
                },
            )
            .unwrap();
            assert_eq!(serial, parallel, "serial and {threads}-thread walks differ");
        }
        serial
    }

    fn walked(root: &Path) -> Walk {
        run(root, WalkOptions::default())
    }

    fn dry_run(root: &Path) -> Walk {
        run(
            root,
            WalkOptions {
                report_ignored: true,
                ..WalkOptions::default()
            },
        )
    }

    fn paths(walk: &Walk) -> Vec<&str> {
        walk.files.iter().map(|file| file.path.as_str()).collect()
    }

    fn skips(walk: &Walk) -> Vec<(&str, &'static str)> {
        walk.skipped
            .iter()
            .map(|skip| (skip.path.as_str(), skip.reason.code()))
            .collect()
    }

    fn reason<'w>(walk: &'w Walk, path: &str) -> &'w SkipReason {
        let found = walk.skipped.iter().find(|skip| skip.path == path);
        &found
            .unwrap_or_else(|| panic!("{path} not skipped: {:?}", walk.skipped))
            .reason
    }

    fn ignored_by(rule: &str) -> SkipReason {
        SkipReason::Ignored {
            rule: rule.to_string(),
        }
    }

    #[test]
    fn nested_gitignore_files_apply_below_their_directory() {
        let dir = tree(&[
            (".gitignore", "*.gen.py\n"),
            ("a.py", ""),
            ("a.gen.py", ""),
            ("src/.gitignore", "local.py\n/anchored.py\n"),
            ("src/local.py", ""),
            ("src/anchored.py", ""),
            ("src/deep/anchored.py", ""),
            ("src/deep/b.gen.py", ""),
            ("other/local.py", ""),
        ]);
        let result = dry_run(dir.path());
        assert_eq!(
            paths(&result),
            ["a.py", "other/local.py", "src/deep/anchored.py"]
        );
        assert_eq!(
            reason(&result, "src/local.py"),
            &ignored_by("src/.gitignore: local.py")
        );
        assert_eq!(
            reason(&result, "src/deep/b.gen.py"),
            &ignored_by(".gitignore: *.gen.py")
        );
        assert_eq!(
            reason(&result, "src/deep/b.gen.py").to_string(),
            "ignored by .gitignore: *.gen.py"
        );
    }

    #[test]
    fn negations_re_include() {
        let dir = tree(&[
            (".gitignore", "*.js\n!keep.js\n"),
            ("drop.js", ""),
            ("keep.js", ""),
            ("lib/.gitignore", "!lib.js\n"),
            ("lib/lib.js", ""),
            ("lib/other.js", ""),
        ]);
        assert_eq!(paths(&walked(dir.path())), ["keep.js", "lib/lib.js"]);
    }

    #[test]
    fn sharcignore_and_ignore_files_layer_over_gitignore() {
        let dir = tree(&[
            (".gitignore", "gen.py\n"),
            (".sharcignore", "!gen.py\ndocs/\n"),
            (".ignore", "*.txt\n"),
            ("gen.py", ""),
            ("notes.txt", ""),
            ("docs/guide.md", ""),
            ("main.py", ""),
        ]);
        let result = dry_run(dir.path());
        assert_eq!(paths(&result), ["gen.py", "main.py"]);
        assert_eq!(reason(&result, "docs/"), &ignored_by(".sharcignore: docs/"));
        assert_eq!(reason(&result, "notes.txt"), &ignored_by(".ignore: *.txt"));
    }

    #[test]
    fn defaults_prune_at_any_depth_and_report_the_top_directory_once() {
        let dir = tree(&[
            ("node_modules/pkg/index.js", ""),
            ("node_modules/pkg/deep/more.js", ""),
            ("web/node_modules/x.js", ""),
            ("web/app.js", ""),
            ("web/app.min.js", ""),
            ("pkg/__pycache__/m.py", ""),
            ("pkg/m.py", ""),
            ("build/out.py", ""),
            (".git/config", ""),
            (".github/workflows/ci.yml", ""),
            ("server.log", ""),
        ]);
        assert_eq!(walked(dir.path()).skipped, []);
        let result = dry_run(dir.path());
        assert_eq!(
            paths(&result),
            [".github/workflows/ci.yml", "pkg/m.py", "web/app.js"]
        );
        assert_eq!(
            skips(&result),
            [
                (".git/", "ignored"),
                ("build/", "ignored"),
                ("node_modules/", "ignored"),
                ("pkg/__pycache__/", "ignored"),
                ("server.log", "ignored"),
                ("web/app.min.js", "ignored"),
                ("web/node_modules/", "ignored"),
            ]
        );
        assert_eq!(
            reason(&result, "node_modules/"),
            &ignored_by("defaults: node_modules/**")
        );
        assert_eq!(
            reason(&result, "web/app.min.js"),
            &ignored_by("defaults: *.min.js")
        );
    }

    #[test]
    fn ignore_files_can_re_include_defaults() {
        let dir = tree(&[(".sharcignore", "!build/\n"), ("build/tool.py", "")]);
        assert_eq!(paths(&walked(dir.path())), ["build/tool.py"]);
    }

    #[test]
    fn user_patterns_are_globs_relative_to_the_root() {
        let dir = tree(&[
            ("vendor/lib/a.py", ""),
            ("src/vendor/b.py", ""),
            ("src/api.generated.ts", ""),
            ("src/api.ts", ""),
            ("static/app.js", ""),
            ("build/keep.py", ""),
        ]);
        let patterns = ["vendor/**", "*.generated.ts", "static/**", "!build/"];
        let options = WalkOptions {
            ignore_patterns: patterns.iter().map(|p| p.to_string()).collect(),
            report_ignored: true,
            ..WalkOptions::default()
        };
        let result = run(dir.path(), options);
        assert_eq!(
            paths(&result),
            ["build/keep.py", "src/api.ts", "src/vendor/b.py"]
        );
        assert_eq!(
            reason(&result, "src/api.generated.ts"),
            &ignored_by("ignore_patterns: *.generated.ts")
        );
        // Without a negation in the list, `dir/**` prunes the directory.
        let options = WalkOptions {
            ignore_patterns: vec!["vendor/**".to_string()],
            report_ignored: true,
            ..WalkOptions::default()
        };
        let result = run(dir.path(), options);
        assert_eq!(
            reason(&result, "vendor/"),
            &ignored_by("ignore_patterns: vendor/**")
        );
        assert!(paths(&result).contains(&"src/vendor/b.py"));
    }

    #[test]
    fn invalid_user_pattern_is_an_error() {
        let dir = tree(&[("a.py", "")]);
        let options = WalkOptions {
            ignore_patterns: vec!["src/{a,b".to_string()],
            ..WalkOptions::default()
        };
        let error = walk(dir.path(), &options).unwrap_err();
        assert!(
            matches!(&error, Error::InvalidPattern { pattern, .. } if pattern == "src/{a,b"),
            "{error}"
        );
    }

    #[test]
    fn custom_extensions_are_indexed_as_other_code() {
        let dir = tree(&[
            ("page.astro", ""),
            ("doc.SVX", ""),
            ("data.foo", ""),
            ("app.vue", ""),
        ]);
        let options = WalkOptions {
            custom_extensions: vec![".astro".to_string(), "svx".to_string()],
            ..WalkOptions::default()
        };
        let result = run(dir.path(), options);
        let found: Vec<_> = result
            .files
            .iter()
            .map(|file| (file.path.as_str(), file.language, file.tier))
            .collect();
        assert_eq!(
            found,
            [
                ("app.vue", Language::Vue, Tier::OtherCode),
                ("doc.SVX", Language::Other, Tier::OtherCode),
                ("page.astro", Language::Other, Tier::OtherCode),
            ]
        );
        assert_eq!(skips(&result), [("data.foo", "unsupported")]);
        for bad in ["", ".", "a/b", "*.x"] {
            let options = WalkOptions {
                custom_extensions: vec![bad.to_string()],
                ..WalkOptions::default()
            };
            let error = walk(dir.path(), &options).unwrap_err();
            assert!(
                matches!(error, Error::InvalidExtension { .. }),
                "{bad:?}: {error}"
            );
        }
    }

    #[test]
    fn secrets_are_blocked_whatever_the_rules_say() {
        let dir = tree(&[
            (".gitignore", "!.env\n!*.pem\n"),
            (".env", "TOKEN=1"),
            (".env.local", "TOKEN=1"),
            (".env.example", "TOKEN="),
            ("config/server.pem", ""),
            ("deploy.KEY", ""),
            ("home/.ssh/id_rsa", ""),
            ("home/.ssh/id_rsa.pub", ""),
            (
                "notes.txt",
                "  \n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n",
            ),
            (
                "docs.md",
                "Keys look like -----BEGIN RSA PRIVATE KEY-----\n",
            ),
        ]);
        let options = WalkOptions {
            ignore_patterns: vec!["!.env".to_string()],
            ..WalkOptions::default()
        };
        let result = run(dir.path(), options);
        assert_eq!(paths(&result), [".env.example", "docs.md"]);
        assert_eq!(
            (result.files[0].language, result.files[0].tier),
            (Language::Ini, Tier::Config)
        );
        assert_eq!(
            skips(&result),
            [
                (".env", "secret"),
                (".env.local", "secret"),
                (".gitignore", "unsupported"),
                ("config/server.pem", "secret"),
                ("deploy.KEY", "secret"),
                ("home/.ssh/id_rsa", "secret"),
                ("home/.ssh/id_rsa.pub", "unsupported"),
                ("notes.txt", "secret"),
            ]
        );
    }

    #[test]
    fn binary_content_and_size_are_hard_blocks() {
        let dir = tree(&[
            ("ok.py", "x = 1\n"),
            ("exact.py", "0123456789"),
            ("big.py", "0123456789a"),
        ]);
        write(dir.path(), "data.py", b"x\0y");
        let mut late_nul = vec![b'a'; SNIFF_LEN + 10];
        late_nul[SNIFF_LEN + 5] = 0;
        write(dir.path(), "late.py", &late_nul);
        let options = WalkOptions {
            max_file_size: 10,
            ignore_patterns: vec!["!late.py".to_string()],
            ..WalkOptions::default()
        };
        let result = run(dir.path(), options);
        assert_eq!(paths(&result), ["exact.py", "ok.py"]);
        assert_eq!(reason(&result, "data.py"), &SkipReason::Binary);
        assert_eq!(
            reason(&result, "big.py"),
            &SkipReason::TooLarge {
                size: 11,
                limit: 10
            }
        );
        assert_eq!(
            reason(&result, "big.py").to_string(),
            "too large (11 B > 10 B)"
        );

        // Only the first 8 KiB are sniffed: a late NUL is not seen.
        let options = WalkOptions {
            max_file_size: 0,
            ..WalkOptions::default()
        };
        assert!(paths(&run(dir.path(), options)).contains(&"late.py"));
    }

    #[test]
    fn sizes_read_like_the_limit() {
        let reason = SkipReason::TooLarge {
            size: 2_100_000,
            limit: DEFAULT_MAX_FILE_SIZE,
        };
        assert_eq!(reason.to_string(), "too large (2.1 MB > 1.0 MB)");
        assert_eq!(reason.code(), "too_large");
        assert_eq!(human_size(999_999), "1.0 MB");
        assert_eq!(human_size(1_500), "1.5 kB");
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_are_reported_not_followed() {
        let dir = tree(&[("sub/a.py", "")]);
        symlink(dir.path(), "sub/up", "..");
        symlink(dir.path(), "self", ".");
        symlink(dir.path(), "ping.py", "pong.py");
        symlink(dir.path(), "pong.py", "ping.py");
        let result = walked(dir.path());
        assert_eq!(paths(&result), ["sub/a.py"]);
        assert_eq!(
            skips(&result),
            [
                ("ping.py", "symlink_loop"),
                ("pong.py", "symlink_loop"),
                ("self/", "symlink_loop"),
                ("sub/up/", "symlink_loop"),
            ]
        );
        assert_filter_agrees(dir.path(), WalkOptions::default());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_root_are_blocked() {
        let outside = tree(&[("secret/creds.py", ""), ("file.py", "")]);
        let dir = tree(&[("a.py", "")]);
        symlink(dir.path(), "ext", outside.path().join("secret"));
        symlink(dir.path(), "ext_file.py", outside.path().join("file.py"));
        symlink(dir.path(), "up", "..");
        symlink(dir.path(), "gone.py", "missing.py");
        let result = walked(dir.path());
        assert_eq!(paths(&result), ["a.py"]);
        assert_eq!(
            skips(&result),
            [
                ("ext/", "symlink_outside_root"),
                ("ext_file.py", "symlink_outside_root"),
                ("gone.py", "unreadable"),
                ("up/", "symlink_outside_root"),
            ]
        );
        assert_filter_agrees(dir.path(), WalkOptions::default());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_inside_the_root_list_each_file_once() {
        let dir = tree(&[("src/lib.py", ""), ("node_modules/pkg/index.js", "")]);
        symlink(dir.path(), "alias", "src");
        symlink(dir.path(), "readme.py", "src/lib.py");
        symlink(dir.path(), "pkg", "node_modules/pkg");
        symlink(dir.path(), "pkg_again", "node_modules/pkg");
        let result = dry_run(dir.path());
        assert_eq!(paths(&result), ["pkg/index.js", "src/lib.py"]);
        assert_eq!(
            reason(&result, "alias/"),
            &ignored_by("symlink: alias of src/")
        );
        assert_eq!(
            reason(&result, "readme.py"),
            &ignored_by("symlink: alias of src/lib.py")
        );
        assert_eq!(walked(dir.path()).skipped, []);

        // A link into an ignored directory is followed, but never to a secret.
        write(dir.path(), "private/.env", b"TOKEN=1");
        write(dir.path(), ".gitignore", b"private/\n");
        symlink(dir.path(), "settings.txt", "private/.env");
        assert_eq!(
            reason(&walked(dir.path()), "settings.txt"),
            &SkipReason::Secret
        );
        let options = WalkOptions {
            report_ignored: true,
            ..WalkOptions::default()
        };
        assert_filter_agrees(dir.path(), options);
    }

    #[cfg(unix)]
    #[test]
    fn unreadable_entries_are_skips() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tree(&[("a.py", ""), ("locked.py", "x"), ("closed/b.py", "")]);
        let mode = |path: &str, mode: u32| {
            fs::set_permissions(dir.path().join(path), fs::Permissions::from_mode(mode)).unwrap()
        };
        mode("locked.py", 0o000);
        mode("closed", 0o000);
        // Root (or CAP_DAC_OVERRIDE) reads through chmod 000: nothing to assert then.
        let privileged = File::open(dir.path().join("locked.py")).is_ok();
        let result = walked(dir.path());
        mode("closed", 0o755);
        if privileged {
            assert_eq!(paths(&result), ["a.py", "closed/b.py", "locked.py"]);
            return;
        }
        assert_eq!(paths(&result), ["a.py"]);
        assert_eq!(
            skips(&result),
            [("closed/", "unreadable"), ("locked.py", "unreadable")]
        );
    }

    #[test]
    fn unicode_and_spaces_in_paths() {
        let names = ["my dir/a b.ts", "src/héllo wörld.py", "日本語/ファイル.md"];
        let dir = tree(&names.map(|name| (name, "")));
        assert_eq!(paths(&walked(dir.path())), names);
    }

    #[test]
    fn ignore_files_above_the_root_are_not_read() {
        let outer = tree(&[
            (".gitignore", "*.py\n"),
            (".sharcignore", "project/\n"),
            (".ignore", "*.md\n"),
            ("project/a.py", ""),
            ("project/b.md", ""),
        ]);
        let root = outer.path().join("project");
        assert_eq!(paths(&walked(&root)), ["a.py", "b.md"]);
        let filter = Filter::new(&root, &WalkOptions::default()).unwrap();
        assert!(filter.classify(Path::new("a.py")).is_ok());
    }

    #[test]
    fn bad_roots_are_errors() {
        let dir = tree(&[("a.py", "")]);
        let missing = walk(&dir.path().join("nope"), &WalkOptions::default()).unwrap_err();
        assert!(matches!(missing, Error::RootNotFound { .. }), "{missing}");
        let file = walk(&dir.path().join("a.py"), &WalkOptions::default()).unwrap_err();
        assert!(matches!(file, Error::RootNotDirectory { .. }), "{file}");
    }

    /// A tree with a bit of everything, big enough for threads to interleave.
    fn mixed_tree() -> TempDir {
        let dir = tree(&[
            (".gitignore", "generated/\n*.tmp.py\n!keep.tmp.py\n"),
            ("generated/x.py", ""),
            ("keep.tmp.py", ""),
            ("drop.tmp.py", ""),
            (".env", "A=1"),
            ("node_modules/a/b.js", ""),
            ("image.png", ""),
            ("docs/readme.md", "# hi"),
        ]);
        for package in 0..20 {
            for module in 0..15 {
                let path = format!("pkg{package}/sub{}/m{module}.py", module % 3);
                write(dir.path(), &path, format!("x = {module}\n").as_bytes());
            }
            write(dir.path(), &format!("pkg{package}/.gitignore"), b"m1.py\n");
            write(dir.path(), &format!("pkg{package}/blob.py"), b"\0");
        }
        dir
    }

    #[test]
    fn serial_and_parallel_walks_agree() {
        let dir = mixed_tree();
        let result = dry_run(dir.path());
        // 20 packages x 15 modules, less each package's m1.py, plus keep.tmp.py and the readme.
        assert_eq!(result.files.len(), 20 * 14 + 2);
        assert!(result
            .files
            .windows(2)
            .all(|pair| pair[0].path < pair[1].path));
        assert!(result
            .skipped
            .windows(2)
            .all(|pair| pair[0].path < pair[1].path));
        assert_eq!(result.root, fs::canonicalize(dir.path()).unwrap());
    }

    #[test]
    fn filter_classifies_single_paths_like_the_walk() {
        let dir = mixed_tree();
        let options = WalkOptions {
            report_ignored: true,
            ..WalkOptions::default()
        };
        let filter = assert_filter_agrees(dir.path(), options);
        // Inside an ignored directory the topmost ignored directory is the reason.
        assert_eq!(
            filter.classify(Path::new("node_modules/a/b.js")),
            Err(ignored_by("defaults: node_modules/**"))
        );
        assert_eq!(
            filter
                .classify(Path::new("../outside.py"))
                .unwrap_err()
                .code(),
            "unreadable"
        );
    }

    /// Every walked and skipped path gets the same answer from a `Filter`.
    fn assert_filter_agrees(root: &Path, options: WalkOptions) -> Filter {
        let result = run(root, options.clone());
        let filter = Filter::new(root, &options).unwrap();
        for file in &result.files {
            assert_eq!(filter.classify(Path::new(&file.path)).as_ref(), Ok(file));
        }
        for skip in &result.skipped {
            let outcome = match skip.path.strip_suffix('/') {
                Some(directory) => filter.check_directory(Path::new(directory)),
                None => filter.classify(Path::new(&skip.path)).map(|_| ()),
            };
            assert_eq!(outcome, Err(skip.reason.clone()), "{}", skip.path);
        }
        filter
    }
}
