//! Ignore rules: gitignore, sharcignore and ignore files, the defaults, user patterns.

use std::path::Path;

use super::*;
use crate::error::Error;

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
