//! The walk itself: the `ignore` crate's walker, serial or parallel, asking [`Filter`] about
//! every entry and collecting the answers.

use std::collections::HashSet;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use super::blocks::SNIFF_LEN;
use super::filter::{DirVerdict, Filter};
use super::options::WalkOptions;
use super::report::{link_error, unreadable, SkipReason, SkippedFile, Walk, WalkedFile};
use crate::error::{Error, Result};

/// Walk `root` and classify every file under it.
pub fn walk(root: &Path, options: &WalkOptions) -> Result<Walk> {
    let filter = Filter::new(root, options)?;
    // An unreadable root is the caller's problem, not one more skipped entry.
    fs::read_dir(&filter.root).map_err(|source| Error::Io {
        path: filter.root.clone(),
        source,
    })?;
    let root = filter.root.clone();
    Ok(walk_from(filter, &[root], Vec::new(), options))
}

/// Walk only `scope`: paths relative to the root, files or directories, that may have changed
/// (what a file watcher saw). Each is judged by the rules a whole walk applies, directories
/// above it included, so the files found are exactly the ones a whole walk would find there.
/// A path that no longer exists yields nothing: its indexed files are gone. An empty scope
/// walks nothing; a scope holding the root itself (`""` or `.`) walks everything.
pub fn walk_scope(root: &Path, scope: &[PathBuf], options: &WalkOptions) -> Result<Walk> {
    let filter = Filter::new(root, options)?;
    let mut starts = Vec::new();
    let mut skipped = Vec::new();
    for relative in outermost(scope)? {
        match filter.scope_start(&relative) {
            Ok(Some(start)) => starts.push(start),
            Ok(None) => {}
            Err((path, is_dir, reason)) => {
                if options.report_ignored || !matches!(reason, SkipReason::Ignored { .. }) {
                    skipped.push(SkippedFile {
                        path: filter.relative_reported(&path, is_dir),
                        reason,
                    });
                }
            }
        }
    }
    Ok(walk_from(filter, &starts, skipped, options))
}

/// The scope's paths without the ones inside another (walked anyway), sorted; a path that
/// leaves the root is an error.
fn outermost(scope: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut normal = Vec::with_capacity(scope.len());
    for path in scope {
        let mut clean = PathBuf::new();
        for component in path.components() {
            match component {
                Component::Normal(part) => clean.push(part),
                Component::CurDir => {}
                _ => return Err(Error::PathOutsideRoot { path: path.clone() }),
            }
        }
        normal.push(clean);
    }
    normal.sort();
    normal.dedup();
    let mut kept: Vec<PathBuf> = Vec::with_capacity(normal.len());
    for path in normal {
        // Sorted, a path's ancestors come before it (`a` < `a/b`); checking the last kept one
        // is not enough (`a` < `a.txt` < `a/b`), so check every kept ancestor.
        if !path
            .ancestors()
            .skip(1)
            .any(|above| kept.binary_search(&above.to_path_buf()).is_ok())
        {
            kept.push(path);
        }
    }
    Ok(kept)
}

/// Walk from `starts` (absolute paths inside the filter's root that passed the rules above
/// them) and collect the files found beside `skipped`.
fn walk_from(
    filter: Filter,
    starts: &[PathBuf],
    skipped: Vec<SkippedFile>,
    options: &WalkOptions,
) -> Walk {
    let root = filter.root.clone();
    let shared = Arc::new(Shared {
        filter,
        report_ignored: options.report_ignored,
        found: Mutex::new(Found {
            skipped,
            ..Found::default()
        }),
    });
    let Some((first, others)) = starts.split_first() else {
        let found = std::mem::take(&mut *lock(&shared.found));
        return Walk {
            root,
            files: Vec::new(),
            skipped: found.skipped,
        };
    };

    let mut builder = WalkBuilder::new(first);
    for start in others {
        builder.add(start);
    }
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
    Walk {
        root,
        files,
        skipped,
    }
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
