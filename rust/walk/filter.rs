//! The rules of a walk for one path at a time, shared by the walk and the file watcher.

use std::fs::{self, File};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::blocks::{
    ends_with_ignore_case, is_secret_name, read_head, sniff, ENV_TEMPLATES, SNIFF_LEN,
};
use super::options::{normalize_extension, WalkOptions};
use super::report::{link_error, unreadable, SkipReason, WalkedFile};
use super::rules::{relative, IgnoreRules};
use crate::error::{Error, Result};
use crate::lang::{Language, Tier};

/// Every rule of a walk, built once from a root and options; answers for single paths too.
///
/// Ignore files are read lazily and cached per directory: rebuild the filter after one changes.
pub struct Filter {
    pub(super) root: PathBuf,
    rules: IgnoreRules,
    /// Lowercase, with the leading dot.
    custom_extensions: Vec<String>,
    max_file_size: u64,
    sniff_content: bool,
}

/// What the walk does with a directory.
pub(super) enum DirVerdict {
    Enter,
    /// A symlink to a directory inside the root that is not walked otherwise.
    FollowLink,
}

impl Filter {
    /// Compile the options' rules for `root`; fails on a missing root or a bad pattern.
    pub fn new(root: &Path, options: &WalkOptions) -> Result<Filter> {
        let root = canonical_root(root)?;
        let rules = IgnoreRules::new(&root, &options.ignore_patterns)?;
        let custom_extensions = options
            .custom_extensions
            .iter()
            .map(|extension| normalize_extension(extension))
            .collect::<Result<_>>()?;
        Ok(Filter {
            root,
            rules,
            custom_extensions,
            max_file_size: options.max_file_size,
            sniff_content: options.sniff_content,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The ignore rule that leaves `path` out, if any; `describe` formats it for a report.
    pub(super) fn ignored(&self, path: &Path, is_dir: bool, describe: bool) -> Option<String> {
        self.rules.ignored(path, is_dir, describe)
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

    /// Where a scoped walk starts for `relative_path` (already checked to stay inside the
    /// root): its full path when the walk would reach it, None when it does not exist, or
    /// `(full path, is a directory, why)` when a rule on it or above it leaves it out. A file's
    /// own rules are applied when the walk meets it, as for any file.
    pub(super) fn scope_start(
        &self,
        relative_path: &Path,
    ) -> std::result::Result<Option<PathBuf>, (PathBuf, bool, SkipReason)> {
        let path = if relative_path.as_os_str().is_empty() {
            self.root.clone()
        } else {
            self.root.join(relative_path)
        };
        let metadata = match fs::symlink_metadata(&path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err((path, false, unreadable(&error))),
        };
        let is_link = metadata.file_type().is_symlink();
        let is_dir = if is_link {
            fs::metadata(&path).is_ok_and(|target| target.is_dir())
        } else {
            metadata.is_dir()
        };
        let checked = self.enter_parents(relative_path).and_then(|path| {
            if is_dir && path != self.root {
                self.check_dir(&path, is_link, true).map(|_| path)
            } else {
                Ok(path)
            }
        });
        checked.map(Some).map_err(|reason| (path, is_dir, reason))
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
    pub(super) fn check_dir(
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
    pub(super) fn check_file(
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
        let language = self.language(path, name);
        // Never open FIFOs, sockets or devices: reading them can block forever.
        if !is_regular {
            return Err(SkipReason::Unsupported);
        }
        let language = match language {
            Some(language) => language,
            // A file without an extension: a script's `#!` line names its language, a C++
            // header's first directive (`extensionless`).
            None if !name.contains('.') => super::extensionless::language(path)
                .map(|language| (language, language.tier()))
                .ok_or(SkipReason::Unsupported)?,
            None => return Err(SkipReason::Unsupported),
        };
        if is_link {
            self.resolve_link(path, false, describe)?;
        }
        Ok(language)
    }

    /// The rules that read the file: size, binary content, private key.
    pub(super) fn inspect(
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

    /// Let a symlink through only to a target inside the root that the walk does not reach by
    /// its real path; a link to such a target is an alias, reported as ignored.
    pub(super) fn resolve_link(
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
    pub(super) fn relative(&self, path: &Path) -> String {
        relative(&self.root, path)
    }

    pub(super) fn relative_reported(&self, path: &Path, is_dir: bool) -> String {
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

fn unix_nanos(time: SystemTime) -> i64 {
    let saturate = |nanos: u128| i64::try_from(nanos).unwrap_or(i64::MAX);
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => saturate(after.as_nanos()),
        Err(before) => -saturate(before.duration().as_nanos()),
    }
}
