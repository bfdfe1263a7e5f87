//! Files without an extension: a script (`bin/deploy`, `libexec/rbenv-exec`) in the language
//! its `#!` line's interpreter names, a C++ header (`Eigen/Core`, `unsupported/Eigen/FFT`,
//! the standard library's `vector`) when its first code is a preprocessor directive a
//! header opens with.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::lang::Language;

/// How much of a file is read: a header's licence comment comes before its first directive.
const HEAD_LEN: usize = 4096;

/// The language of the file at `path` from its first bytes, if they name one sharc knows.
pub(crate) fn language(path: &Path) -> Option<Language> {
    let mut buffer = [0u8; HEAD_LEN];
    let mut file = File::open(path).ok()?;
    let mut read = 0;
    while read < buffer.len() {
        match file.read(&mut buffer[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(_) => return None,
        }
    }
    language_of(&buffer[..read]).or_else(|| header_language(&buffer[..read]))
}

/// Letters, digits and underscores, not starting with a digit: a macro's name.
fn is_identifier(word: &[u8]) -> bool {
    word.first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && word.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// `Some(C++)` when the first code of `head`, after blank lines and comments, is a directive
/// a header opens with: an include guard (`#ifndef EIGEN_CORE_H`), `#pragma once`, or an
/// `#include`. A makefile's `ifndef` has no `#`; a comment that mentions `#include` is skipped.
fn header_language(head: &[u8]) -> Option<Language> {
    let mut rest = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    loop {
        rest = rest.trim_ascii_start();
        if let Some(comment) = rest.strip_prefix(b"//") {
            let end = comment.iter().position(|&b| b == b'\n')?;
            rest = &comment[end..];
        } else if let Some(comment) = rest.strip_prefix(b"/*") {
            let end = comment.windows(2).position(|pair| pair == b"*/")?;
            rest = &comment[end + 2..];
        } else {
            break;
        }
    }
    let directive = rest.strip_prefix(b"#")?.trim_ascii_start();
    let line = &directive[..directive
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(directive.len())];
    let opens_a_header = if let Some(file) = line.strip_prefix(b"include") {
        matches!(file.trim_ascii_start().first(), Some(b'<' | b'"'))
    } else if let Some(guard) = line.strip_prefix(b"ifndef") {
        // `#ifndef EIGEN_CORE_H`, perhaps with a comment after the guard's name.
        let name = guard.trim_ascii_start();
        let name_end = name
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(name.len());
        guard.first().is_some_and(u8::is_ascii_whitespace) && is_identifier(&name[..name_end])
    } else {
        line.strip_prefix(b"pragma")
            .is_some_and(|rest| rest.trim_ascii() == b"once")
    };
    opens_a_header.then_some(Language::Cpp)
}

/// The language a script's first bytes name: `#!/bin/sh`, `#!/usr/bin/env python3`,
/// `#!/usr/bin/env -S deno run`...
pub(crate) fn language_of(head: &[u8]) -> Option<Language> {
    let line = head.strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let mut program = basename(words.next()?);
    if program == "env" {
        program = words.find(|word| !word.starts_with('-')).map(basename)?;
    }
    interpreter_language(program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.'))
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

fn interpreter_language(program: &str) -> Option<Language> {
    Some(match program {
        "sh" | "bash" | "zsh" | "ksh" | "dash" | "ash" => Language::Bash,
        "python" | "pypy" => Language::Python,
        "ruby" | "jruby" => Language::Ruby,
        "node" | "nodejs" | "deno" | "bun" => Language::JavaScript,
        "ts-node" | "tsx" => Language::TypeScript,
        "perl" => Language::Perl,
        "php" => Language::Php,
        "lua" | "luajit" => Language::Lua,
        "elixir" => Language::Elixir,
        "runghc" | "runhaskell" => Language::Haskell,
        "swift" => Language::Swift,
        "Rscript" => Language::R,
        "julia" => Language::Julia,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreters_name_languages() {
        let cases: &[(&[u8], Option<Language>)] = &[
            (b"#!/usr/bin/env bash\nset -e\n", Some(Language::Bash)),
            (b"#!/bin/sh\n", Some(Language::Bash)),
            (b"#!/usr/bin/python3.11 -u\n", Some(Language::Python)),
            (
                b"#!/usr/bin/env -S deno run --allow-net\n",
                Some(Language::JavaScript),
            ),
            (b"#! /usr/bin/env ruby\n", Some(Language::Ruby)),
            (b"#!/usr/bin/perl -w\n", Some(Language::Perl)),
            (b"#!/usr/bin/env awk -f\n", None),
            (b"echo no shebang\n", None),
            (b"#!\n", None),
            (b"#!/bin/\xff\xfe\n", None),
        ];
        for (head, expected) in cases {
            assert_eq!(
                language_of(head),
                *expected,
                "{:?}",
                String::from_utf8_lossy(head)
            );
        }
    }

    #[test]
    fn headers_open_with_a_guard_a_pragma_or_an_include() {
        let cases: &[(&[u8], Option<Language>)] = &[
            (
                b"// This file is part of Eigen.\n/* MPL2 */\n\n#ifndef EIGEN_CORE_H\n",
                Some(Language::Cpp),
            ),
            (b"#pragma once\n#include <vector>\n", Some(Language::Cpp)),
            (
                b"  #include \"src/Core/util/Macros.h\"\n",
                Some(Language::Cpp),
            ),
            (
                b"/* a\n * comment */ #include<cstddef>\n",
                Some(Language::Cpp),
            ),
            // A makefile, a shell script's comment, prose, an unclosed comment.
            (b"ifndef PREFIX\nPREFIX = /usr\nendif\n", None),
            (b"# include the helpers\nsource ./lib.sh\n", None),
            (b"# define: a word\n", None),
            (b"Use #include <eigen> to start.\n", None),
            (b"/* #include <never closed>", None),
            (b"", None),
        ];
        for (head, expected) in cases {
            assert_eq!(
                header_language(head),
                *expected,
                "{:?}",
                String::from_utf8_lossy(head)
            );
        }
        // A script's `#!` line is read first.
        assert_eq!(
            language_of(b"#!/bin/sh\n#include x\n"),
            Some(Language::Bash)
        );
    }
}
