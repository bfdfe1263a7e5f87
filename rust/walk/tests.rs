//! Walker tests: every case runs the serial and the parallel walk and compares them.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::blocks::SNIFF_LEN;
use super::report::human_size;
use super::*;
use crate::error::Error;
use crate::lang::{Language, Tier};

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
            ("app.vue", Language::Vue, Tier::Ast),
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

#[test]
fn scripts_without_an_extension_are_walked_by_their_shebang() {
    let dir = tree(&[
        (
            "libexec/rbenv-exec",
            "#!/usr/bin/env bash\nset -e\nexec \"$@\"\n",
        ),
        ("bin/tool", "#!/usr/bin/python3\nprint('hi')\n"),
        ("CODEOWNERS", "* @team\n"),
        ("notes.weird", "#!/bin/sh\n"),
    ]);
    let result = walked(dir.path());
    let found: Vec<_> = result
        .files
        .iter()
        .map(|file| (file.path.as_str(), file.language))
        .collect();
    assert_eq!(
        found,
        [
            ("bin/tool", Language::Python),
            ("libexec/rbenv-exec", Language::Bash)
        ]
    );
    assert_eq!(
        skips(&result),
        [
            ("CODEOWNERS", "unsupported"),
            ("notes.weird", "unsupported")
        ]
    );
    let filter = Filter::new(dir.path(), &WalkOptions::default()).unwrap();
    assert_eq!(
        filter
            .classify(Path::new("libexec/rbenv-exec"))
            .map(|f| f.language)
            .ok(),
        Some(Language::Bash)
    );
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
