//! Byte-level helpers over one source file: line index, span trimming, collapsing, dedent.

use std::borrow::Cow;

/// One file's source with a line index, shared by the driver and the language tables.
pub(crate) struct Source<'s> {
    pub text: &'s str,
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
}

impl<'s> Source<'s> {
    pub fn new(text: &'s str) -> Self {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Source { text, line_starts }
    }

    pub fn bytes(&self) -> &'s [u8] {
        self.text.as_bytes()
    }

    /// The 0-based line holding byte `pos`.
    pub fn line_of(&self, pos: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= pos) - 1
    }

    /// The 0-based line holding the last byte of `[start, end)`.
    pub fn last_line_of(&self, start: usize, end: usize) -> usize {
        self.line_of(if end > start { end - 1 } else { start })
    }

    /// The byte where the line holding `pos` starts.
    pub fn line_start(&self, pos: usize) -> usize {
        self.line_starts[self.line_of(pos)]
    }

    /// The byte where the 0-based `line` starts (the end of the text past the last line).
    pub fn start_of_line(&self, line: usize) -> usize {
        self.line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// The byte of the newline ending the line holding `pos` (or the end of the text).
    pub fn line_end(&self, pos: usize) -> usize {
        match self.line_starts.get(self.line_of(pos) + 1) {
            Some(&next) => next - 1,
            None => self.text.len(),
        }
    }

    /// The text of `[start, end)`, clamped to char boundaries.
    pub fn slice(&self, start: usize, end: usize) -> &'s str {
        let end = floor_char(self.text, end.min(self.text.len()));
        let start = floor_char(self.text, start.min(end));
        &self.text[start..end]
    }

    /// Widen `[start, end)` to whole lines where only whitespace (or a trailing `;` `,`)
    /// separates it from the line boundary, so chunks keep their indentation and terminators.
    pub fn widen(&self, start: usize, end: usize) -> (usize, usize) {
        let bytes = self.bytes();
        let mut end = end.min(bytes.len());
        while end > start && bytes[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        let line_start = self.line_start(start);
        let new_start = if bytes[line_start..start]
            .iter()
            .all(|b| *b == b' ' || *b == b'\t')
        {
            line_start
        } else {
            start
        };
        if end <= start {
            return (new_start, new_start);
        }
        let line_end = self.line_end(end - 1);
        let rest = &bytes[end..line_end];
        let new_end = if rest.iter().all(|b| {
            matches!(
                b,
                b' ' | b'\t' | b'\r' | b';' | b',' | b':' | b'(' | b'[' | b'{'
            )
        }) {
            let mut trimmed = line_end;
            while trimmed > end && bytes[trimmed - 1].is_ascii_whitespace() {
                trimmed -= 1;
            }
            trimmed
        } else {
            end
        };
        (new_start, new_end)
    }

    /// The whitespace before `pos` on its line, when nothing else precedes it there.
    pub fn indent_at(&self, pos: usize) -> &'s str {
        let line_start = self.line_start(pos);
        let prefix = &self.text[line_start..floor_char(self.text, pos)];
        if prefix.bytes().all(|b| b == b' ' || b == b'\t') {
            prefix
        } else {
            let width = prefix
                .bytes()
                .take_while(|b| *b == b' ' || *b == b'\t')
                .count();
            &prefix[..width]
        }
    }
}

/// The largest char boundary at or below `pos`.
pub(crate) fn floor_char(text: &str, mut pos: usize) -> usize {
    if pos >= text.len() {
        return text.len();
    }
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    pos
}

/// The number of chars in `text`, counted without decoding.
pub(crate) fn char_len(text: &str) -> usize {
    text.bytes().filter(|b| (*b as i8) >= -0x40).count()
}

/// `text` on one line: whitespace runs become one space; cut to `max` chars with an ellipsis.
pub(crate) fn collapse(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 4));
    let mut chars = 0;
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        for c in word.chars() {
            if chars >= max {
                out.push('…');
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
}

/// Remove `indent` from the start of every line of `text` that begins with it.
pub(crate) fn dedent<'a>(text: &'a str, indent: &str) -> Cow<'a, str> {
    if indent.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.strip_prefix(indent).unwrap_or(line));
    }
    Cow::Owned(out)
}

/// Closing keywords that carry nothing on their own.
pub(crate) const CLOSERS: &[&str] = &[
    "end",
    "#endif",
    "#else",
    "fi",
    "done",
    "esac",
    "endif",
    "<?php",
    "?>",
    "</script>",
    // Branch keywords left between the definitions of a conditional (`else:`, `do`).
    "else",
    "then",
    "do",
    "try",
    "finally",
    "begin",
    "ensure",
];

/// Whether `word` is one of `CLOSERS`; a closing tag in any case (`</SCRIPT>`), as HTML
/// reads it and as components find it (`component.rs`).
pub(crate) fn is_closer(word: &str) -> bool {
    CLOSERS.iter().any(|closer| {
        *closer == word || (closer.starts_with("</") && closer.eq_ignore_ascii_case(word))
    })
}

/// Whether `text` holds nothing worth a chunk: only brackets, separators and closing
/// keywords, each line perhaps followed by a comment (`}  // namespace x`, `end # Foo`).
pub(crate) fn is_trivial(text: &str, comment: &str) -> bool {
    text.lines().all(|line| {
        let at = [line.find(comment), line.find("/*")]
            .into_iter()
            .flatten()
            .min();
        let code = match at {
            Some(at) if !line[..at].trim().is_empty() => &line[..at],
            _ => line,
        };
        code.split(|c: char| c.is_whitespace() || "{}()[];,:".contains(c))
            .filter(|word| !word.is_empty())
            .all(is_closer)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index() {
        let source = Source::new("ab\ncd\n\nef");
        assert_eq!(source.line_of(0), 0);
        assert_eq!(source.line_of(2), 0);
        assert_eq!(source.line_of(3), 1);
        assert_eq!(source.line_of(7), 3);
        assert_eq!(source.line_end(3), 5);
        assert_eq!(source.line_end(8), 9);
    }

    #[test]
    fn widen_to_lines() {
        let source = Source::new("x\n  fn f() {}; \nnext");
        let start = source.text.find("fn").unwrap();
        let end = source.text.find("};").unwrap() + 1;
        let (s, e) = source.widen(start, end);
        assert_eq!(&source.text[s..e], "  fn f() {};");
    }

    #[test]
    fn helpers() {
        assert_eq!(collapse("def  f(\n a,\n b):", 100), "def f( a, b):");
        assert_eq!(collapse("abcdef", 3), "abc…");
        assert_eq!(dedent("  a\n    b\nc", "  "), "a\n  b\nc");
        assert!(is_trivial("  });\nend", "#"));
        assert!(is_trivial("}  // namespace x", "//"));
        assert!(is_trivial("#endif /* TEST */", "//"));
        assert!(is_trivial("</scrIpt>", "//"));
        assert!(!is_trivial("END", "#"));
        assert!(!is_trivial("// a comment", "//"));
        assert!(!is_trivial("x = 1", "//"));
        assert_eq!(char_len("héllo"), 5);
    }
}
