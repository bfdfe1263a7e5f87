//! Scripts without an extension (`bin/deploy`, `libexec/rbenv-exec`): their language is named
//! by the interpreter on their `#!` line.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::lang::Language;

/// How much of a file the `#!` line is looked for in.
const FIRST_LINE_LEN: usize = 256;

/// The language of the script at `path` from its `#!` line, if it has one sharc knows.
pub(crate) fn sniff(path: &Path) -> Option<Language> {
    let mut buffer = [0u8; FIRST_LINE_LEN];
    let mut file = File::open(path).ok()?;
    let read = file.read(&mut buffer).ok()?;
    language_of(&buffer[..read])
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
}
