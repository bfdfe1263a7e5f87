//! Moving through the tree: symlinks, permissions, odd names, bad roots, threads and scopes.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use super::*;
use crate::error::Error;

#[cfg(unix)]
fn symlink(root: &Path, link: &str, target: impl AsRef<Path>) {
    let link = root.join(link);
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
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
fn bad_roots_are_errors() {
    let dir = tree(&[("a.py", "")]);
    let missing = walk(&dir.path().join("nope"), &WalkOptions::default()).unwrap_err();
    assert!(matches!(missing, Error::RootNotFound { .. }), "{missing}");
    let file = walk(&dir.path().join("a.py"), &WalkOptions::default()).unwrap_err();
    assert!(matches!(file, Error::RootNotDirectory { .. }), "{file}");
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

/// A scoped walk, serial and parallel alike.
fn scoped(root: &Path, scope: &[&str]) -> Walk {
    let scope: Vec<PathBuf> = scope.iter().map(PathBuf::from).collect();
    let serial = walk_scope(
        root,
        &scope,
        &WalkOptions {
            threads: 1,
            ..WalkOptions::default()
        },
    )
    .unwrap();
    let parallel = walk_scope(root, &scope, &WalkOptions::default()).unwrap();
    assert_eq!(serial, parallel, "serial and parallel scoped walks differ");
    serial
}

#[test]
fn a_scoped_walk_finds_what_the_whole_walk_finds_there() {
    let dir = mixed_tree();
    let whole = walked(dir.path());
    let under = |prefix: &str| -> Vec<&str> {
        paths(&whole)
            .into_iter()
            .filter(|path| path.starts_with(prefix))
            .collect()
    };
    // A directory: the rules of the directories above it and the ignore files inside it hold
    // (each package's .gitignore drops its m1.py).
    let package = scoped(dir.path(), &["pkg3"]);
    assert_eq!(paths(&package), under("pkg3/"));
    assert!(!paths(&package).contains(&"pkg3/sub1/m1.py"));
    // Files, directories, overlapping and missing paths together.
    let mixed = scoped(
        dir.path(),
        &[
            "pkg3/sub0",
            "pkg3/sub0/m0.py",
            "./keep.tmp.py",
            "gone.py",
            "pkg4/gone/",
        ],
    );
    let mut expected = under("pkg3/sub0/");
    expected.insert(0, "keep.tmp.py");
    assert_eq!(paths(&mixed), expected);
    assert_eq!(
        mixed.files,
        whole
            .files
            .iter()
            .filter(|f| expected.contains(&f.path.as_str()))
            .cloned()
            .collect::<Vec<_>>()
    );
    // The root itself is the whole walk; nothing is nothing.
    assert_eq!(scoped(dir.path(), &["."]).files, whole.files);
    assert!(scoped(dir.path(), &[]).files.is_empty());
}

#[test]
fn a_scoped_walk_applies_the_rules_above_and_on_each_path() {
    let dir = mixed_tree();
    // Under an ignored directory, an ignored file, a default ignore, a secret, a binary.
    let result = scoped(
        dir.path(),
        &[
            "generated/x.py",
            "generated",
            "drop.tmp.py",
            "node_modules/a",
            ".env",
            "pkg1/blob.py",
            "pkg1/sub1/m1.py",
        ],
    );
    assert!(result.files.is_empty(), "{:?}", paths(&result));
    assert_eq!(
        skips(&result),
        vec![(".env", "secret"), ("pkg1/blob.py", "binary")]
    );
    assert!(matches!(
        walk_scope(
            dir.path(),
            &[PathBuf::from("../outside.py")],
            &WalkOptions::default()
        ),
        Err(Error::PathOutsideRoot { .. })
    ));
}
