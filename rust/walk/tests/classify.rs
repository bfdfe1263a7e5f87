//! File classification: languages and tiers, shebangs, secrets, binaries and sizes, the filter.

use std::path::Path;

use super::*;
use crate::error::Error;
use crate::lang::{Language, Tier};
use crate::walk::blocks::SNIFF_LEN;
use crate::walk::report::human_size;

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

#[test]
fn files_without_an_extension_are_walked_by_their_shebang_or_header_guard() {
    let dir = tree(&[
        (
            "libexec/rbenv-exec",
            "#!/usr/bin/env bash\nset -e\nexec \"$@\"\n",
        ),
        ("bin/tool", "#!/usr/bin/python3\nprint('hi')\n"),
        ("CODEOWNERS", "* @team\n"),
        ("notes.weird", "#!/bin/sh\n"),
        // A C++ header without an extension, as Eigen's and the standard library's are.
        (
            "Eigen/Core",
            "// This file is part of Eigen.\n\n#ifndef EIGEN_CORE_H\n#define EIGEN_CORE_H\n",
        ),
        ("config/defaults", "ifndef PREFIX\nPREFIX = /usr\nendif\n"),
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
            ("Eigen/Core", Language::Cpp),
            ("bin/tool", Language::Python),
            ("libexec/rbenv-exec", Language::Bash)
        ]
    );
    assert_eq!(
        skips(&result),
        [
            ("CODEOWNERS", "unsupported"),
            ("config/defaults", "unsupported"),
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
