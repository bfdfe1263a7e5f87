//! Walker tests, one file per concern; this module holds the helpers they share. Every case
//! runs the serial and the parallel walk and compares them.

mod classify;
mod ignores;
mod traversing;

use std::fs;
use std::path::Path;

use tempfile::TempDir;

use super::*;

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
