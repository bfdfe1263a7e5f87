//! Size limits: cut an oversized chunk into parts, best boundary first.
//!
//! Statement boundaries of the symbol's body come first, then line boundaries, and only a
//! line longer than the whole budget (minified code) is cut inside, at a char boundary.
//! Each part is scanned once, so splitting stays linear in the text.

/// Cut `text` into `[start, end)` parts of at most `first_budget` chars for the first part
/// and `budget` chars for the others. `preferred` holds sorted byte offsets (line starts)
/// where a cut is best. A newline just before a cut is left out of both parts.
pub(crate) fn pack(
    text: &str,
    preferred: &[usize],
    first_budget: usize,
    budget: usize,
) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let allowed = if parts.is_empty() {
            first_budget
        } else {
            budget
        }
        .max(1);
        let limit = advance_chars(text, pos, allowed);
        let cut = if limit >= bytes.len() {
            bytes.len()
        } else {
            best_cut(text, preferred, pos, limit)
        };
        let mut end = cut;
        if end > pos && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if bytes[pos..end].iter().any(|b| !b.is_ascii_whitespace()) {
            parts.push((pos, end));
        }
        pos = cut;
    }
    parts
}

/// The byte offset `chars` chars after `pos` (or the end of `text`).
fn advance_chars(text: &str, pos: usize, chars: usize) -> usize {
    match text[pos..].char_indices().nth(chars) {
        Some((offset, _)) => pos + offset,
        None => text.len(),
    }
}

/// Where to end a part that starts at `pos` and may not reach past `limit`.
fn best_cut(text: &str, preferred: &[usize], pos: usize, limit: usize) -> usize {
    let index = preferred.partition_point(|&cut| cut <= limit);
    if index > 0 && preferred[index - 1] > pos {
        return preferred[index - 1];
    }
    let bytes = text.as_bytes();
    if let Some(newline) = memchr::memrchr(b'\n', &bytes[pos..limit]) {
        return pos + newline + 1;
    }
    // No line boundary fits: prefer a space or separator in the last quarter of the part.
    let window_start = limit - (limit - pos) / 4;
    if let Some(offset) = bytes[window_start..limit]
        .iter()
        .rposition(|b| matches!(b, b' ' | b';' | b',' | b'}' | b')'))
    {
        return window_start + offset + 1;
    }
    limit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts<'a>(text: &'a str, cuts: &[(usize, usize)]) -> Vec<&'a str> {
        cuts.iter().map(|&(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn prefers_statement_cuts() {
        let text = "aaaa\nbbbb\ncccc\ndddd";
        // Statements start at lines 0 and 2: cut there even though three lines would fit.
        let cuts = pack(text, &[10], 14, 14);
        assert_eq!(parts(text, &cuts), vec!["aaaa\nbbbb", "cccc\ndddd"]);
    }

    #[test]
    fn falls_back_to_lines_then_chars() {
        let text = "aaaa\nbbbb\ncccc";
        assert_eq!(
            parts(text, &pack(text, &[], 7, 7)),
            vec!["aaaa", "bbbb", "cccc"]
        );
        let long = "x".repeat(25);
        let cuts = pack(&long, &[], 10, 10);
        assert_eq!(
            parts(&long, &cuts),
            vec!["x".repeat(10), "x".repeat(10), "x".repeat(5)]
        );
        let multibyte = "é".repeat(9);
        for (a, b) in pack(&multibyte, &[], 4, 4) {
            assert!(multibyte[a..b].chars().count() <= 4);
        }
    }
}
