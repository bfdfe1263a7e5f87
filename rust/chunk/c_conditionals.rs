//! Preprocessor conditionals that split one declaration.
//!
//! Tree-sitter reads `#if` / `#else` / `#endif` as items standing between whole declarations
//! or statements. Where a conditional splits one, the declaration around it falls apart into
//! parse errors, and in a header a whole class can lose its chunk:
//!
//! ```text
//! template<typename Derived> class DenseBase     |  static void run(Kernel &kernel,
//! #ifndef EIGEN_PARSED_BY_DOXYGEN                |  #if EIGEN_COMP_MSVC
//!   : public DenseCoeffsBase<Derived, ...>        |                  Index start)
//! #else                                          |  #else
//!   : public DenseCoeffsBase<Derived, ...>        |                  Index end)
//! #endif                                         |  #endif
//! {                                              |  {
//! ```
//!
//! `split_conditionals` finds those: a conditional whose code before it does not end a
//! declaration (`class DenseBase`, `if (ready)`) or whose code after it continues one (`{`,
//! `:`, `,`, an operator), where the parse has an error near it; or one of whose branches
//! leaves a bracket open (`if (a) {` in each branch, `extern "C" {`), wherever the errors
//! are. It gives the byte ranges to blank for a reparse (`c_reparse`): the conditional's
//! directive lines and every branch but the first, which is the code as compiled when the
//! first condition holds (the second after `#if 0`). The blanked text still lies inside the
//! declaration the conditional splits, so its chunk shows it (chunks are sliced from the file
//! as written). Conditionals between whole declarations or statements are left as they are:
//! tree-sitter reads them, and each branch's code keeps its own chunks.

use std::ops::Range;

/// The byte ranges of `text` to blank: the directive lines and the branches after the first
/// of each conditional that splits a declaration, where `near` holds for the conditional's
/// extent (its lines and the lines of code just before and after it: the parse errors it
/// caused lie there), in order, not overlapping.
pub(crate) fn split_conditionals(
    text: &str,
    near: impl Fn(Range<usize>) -> bool,
) -> Vec<Range<usize>> {
    let code = code_only(text);
    let lines = read_lines(&code);
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for conditional in conditionals(&lines) {
        let (before, after) = neighbours(&conditional, &lines, &code);
        let first = before.unwrap_or(conditional.directives[0]);
        let last = after.unwrap_or(*conditional.directives.last().expect("an #endif closes it"));
        // A bracket a branch leaves open breaks the parse where it should have closed, far
        // away: such a conditional counts wherever the errors are.
        let straighten = unbalanced(&conditional, &lines, &code)
            || (splits_a_declaration(before, after, &lines, &code)
                && near(lines[first].start..lines[last].end));
        if !straighten {
            continue;
        }
        for &directive in &conditional.directives {
            ranges.push(lines[directive].start..lines[directive].end);
        }
        let kept = usize::from(is_if_zero(&code[lines[conditional.directives[0]].start..]));
        for (branch, pair) in conditional.directives.windows(2).enumerate() {
            if branch != kept {
                ranges.push(lines[pair[0]].end..lines[pair[1]].start);
            }
        }
    }
    ranges.sort_by_key(|range| range.start);
    merge(ranges)
}

/// Whether the directive at the start of `code` is `#if 0`, whose branch is never compiled:
/// the one after it is kept instead.
fn is_if_zero(code: &[u8]) -> bool {
    let line = &code[..memchr::memchr(b'\n', code).unwrap_or(code.len())];
    let rest = line.trim_ascii_start()[1..].trim_ascii_start();
    rest.strip_prefix(b"if")
        .is_some_and(|condition| condition.trim_ascii() == b"0")
}

/// One line, or a directive with its `\` continuation lines.
struct Line {
    start: usize,
    /// The end of its last line, before the newline.
    end: usize,
    directive: Option<Directive>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Directive {
    If,
    Else,
    EndIf,
    Other,
}

/// A conditional's directive lines (`#if`, each `#elif` and `#else`, `#endif`), as indexes
/// into the lines; its branches lie between them.
struct Conditional {
    directives: Vec<usize>,
}

/// `text` with comments and string and character literals overwritten by spaces (newlines
/// kept), so that no bracket, `#` or `;` inside them counts.
fn code_only(text: &str) -> Vec<u8> {
    let mut code = text.as_bytes().to_vec();
    let mut position = 0;
    while position < code.len() {
        let end = match (code[position], code.get(position + 1)) {
            (b'/', Some(b'/')) => {
                memchr::memchr(b'\n', &code[position..]).map_or(code.len(), |i| position + i)
            }
            (b'/', Some(b'*')) => memchr::memmem::find(&code[position + 2..], b"*/")
                .map_or(code.len(), |i| position + 2 + i + 2),
            (b'"', _) => literal_end(&code, position, b'"'),
            (b'\'', _) => character_end(&code, position),
            _ => {
                position += 1;
                continue;
            }
        };
        for byte in &mut code[position..end] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
        position = end.max(position + 1);
    }
    code
}

/// The end of the character literal at `start` (`'x'`, `'\\n'`, `'\\x41'`); a quote with no
/// close quote this near is a digit separator (`1'000`) and ends where it stands.
fn character_end(code: &[u8], start: usize) -> usize {
    let end = literal_end(code, start, b'\'');
    let content = &code[start + 1..end.saturating_sub(1).max(start + 1)];
    let closed = end >= start + 2 && code[end - 1] == b'\'';
    let one_character = match content {
        [b'\\', escape @ ..] => escape.len() <= 9,
        _ => std::str::from_utf8(content).is_ok_and(|c| c.chars().count() == 1),
    };
    if closed && one_character {
        end
    } else {
        start + 1
    }
}

/// The end of the literal opened by `quote` at `start`: after its closing quote, or at the
/// end of its line when it has none (an unterminated literal does not run on).
fn literal_end(code: &[u8], start: usize, quote: u8) -> usize {
    let mut position = start + 1;
    while position < code.len() {
        match code[position] {
            b'\\' => position += 2,
            b'\n' => return position,
            byte if byte == quote => return position + 1,
            _ => position += 1,
        }
    }
    code.len()
}

/// The lines of `code`, each directive with its continuation lines as one.
fn read_lines(code: &[u8]) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < code.len() {
        let mut end = memchr::memchr(b'\n', &code[start..]).map_or(code.len(), |i| start + i);
        let directive = directive(&code[start..end]);
        if directive.is_some() {
            while end < code.len() && code[start..end].trim_ascii_end().ends_with(b"\\") {
                end = memchr::memchr(b'\n', &code[end + 1..]).map_or(code.len(), |i| end + 1 + i);
            }
        }
        lines.push(Line {
            start,
            end,
            directive,
        });
        start = end + 1;
    }
    lines
}

/// What a line is, if a preprocessor directive.
fn directive(line: &[u8]) -> Option<Directive> {
    let rest = line
        .trim_ascii_start()
        .strip_prefix(b"#")?
        .trim_ascii_start();
    let word_end = rest
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    Some(match &rest[..word_end] {
        b"if" | b"ifdef" | b"ifndef" => Directive::If,
        b"elif" | b"elifdef" | b"elifndef" | b"else" => Directive::Else,
        b"endif" => Directive::EndIf,
        _ => Directive::Other,
    })
}

/// The conditionals of the file that are closed, with at least one branch, inner ones first.
fn conditionals(lines: &[Line]) -> Vec<Conditional> {
    let mut open: Vec<Vec<usize>> = Vec::new();
    let mut closed = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        match line.directive {
            Some(Directive::If) => open.push(vec![index]),
            Some(Directive::Else) => {
                if let Some(directives) = open.last_mut() {
                    directives.push(index);
                }
            }
            Some(Directive::EndIf) => {
                if let Some(mut directives) = open.pop() {
                    directives.push(index);
                    closed.push(Conditional { directives });
                }
            }
            _ => {}
        }
    }
    closed
}

/// The lines of code just before and just after a conditional, as indexes into `lines`:
/// not blank, not directives.
fn neighbours(
    conditional: &Conditional,
    lines: &[Line],
    code: &[u8],
) -> (Option<usize>, Option<usize>) {
    let first = conditional.directives[0];
    let last = *conditional.directives.last().expect("an #endif closes it");
    let is_code = |&index: &usize| lines[index].directive.is_none() && !blank(&lines[index], code);
    let before = (0..first).rev().find(is_code);
    let after = (last + 1..lines.len()).find(is_code);
    (before, after)
}

fn blank(line: &Line, code: &[u8]) -> bool {
    code[line.start..line.end].trim_ascii().is_empty()
}

/// Whether the conditional stands inside one declaration, statement or expression: the code
/// before it (the line `before`) is open, or the code after it continues.
fn splits_a_declaration(
    before: Option<usize>,
    after: Option<usize>,
    lines: &[Line],
    code: &[u8],
) -> bool {
    let text = |index: usize| code[lines[index].start..lines[index].end].trim_ascii();
    before.is_some_and(|index| !ends_a_declaration(text(index)))
        || after.is_some_and(|index| continues_a_declaration(text(index)))
}

/// Whether a branch of the conditional leaves a bracket open or closes one it did not open
/// (`if (a) {` in each branch, `extern "C" {` alone).
fn unbalanced(conditional: &Conditional, lines: &[Line], code: &[u8]) -> bool {
    conditional.directives.windows(2).any(|pair| {
        let branch = &code[lines[pair[0]].end.min(code.len())..lines[pair[1]].start];
        brackets_open(branch)
    })
}

/// Whether the last code of `line` ends a declaration or statement, or opens or closes a
/// block, so that a conditional after it starts a new item: `;`, `{`, `}`, a label's `:`,
/// or a macro invocation alone on its line (`EIGEN_DENSE_PUBLIC_INTERFACE(Ref)`).
fn ends_a_declaration(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    match line.last() {
        Some(b';' | b'{' | b'}') => true,
        Some(b':') => !line.ends_with(b"::"),
        Some(b')') => is_lone_macro_invocation(line),
        _ => false,
    }
}

/// `NAME(...)` alone on its line, the name in capitals: a macro that stands for a member.
fn is_lone_macro_invocation(line: &[u8]) -> bool {
    let name_end = line
        .iter()
        .position(|b| !(b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_'))
        .unwrap_or(line.len());
    name_end >= 2 && line[name_end..].trim_ascii_start().starts_with(b"(")
}

/// Whether a line starting this way continues the declaration or expression before it: a
/// body, a base clause or initialiser list, a separator or closing bracket, an operator.
fn continues_a_declaration(line: &[u8]) -> bool {
    match line {
        [b':', b':', ..] => false,
        [b'-', b'>', ..] => true, // a trailing return type
        [b'+' | b'-', second, ..] if *second == line[0] => false, // `++i;`
        [first, ..] => b"{:,)]?=.|&+-/%<>^".contains(first),
        [] => false,
    }
}

/// Whether `branch` leaves a brace or parenthesis open or closes one it did not open.
fn brackets_open(branch: &[u8]) -> bool {
    let mut braces = 0i64;
    let mut parentheses = 0i64;
    for &byte in branch {
        match byte {
            b'{' => braces += 1,
            b'}' => braces -= 1,
            b'(' => parentheses += 1,
            b')' => parentheses -= 1,
            _ => {}
        }
    }
    braces != 0 || parentheses != 0
}

/// Sorted ranges with the overlapping or touching ones joined.
fn merge(ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with the ranges to blank overwritten by `.` (newlines kept).
    fn straightened(text: &str) -> String {
        let mut bytes = text.as_bytes().to_vec();
        for range in split_conditionals(text, |_| true) {
            for byte in &mut bytes[range] {
                if *byte != b'\n' {
                    *byte = b'.';
                }
            }
        }
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|line| line.trim_end_matches('.'))
            .filter(|line| !line.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_class_head_split_by_a_conditional_keeps_its_first_base_clause() {
        let text = "template<typename D> class DenseBase\n\
                    #ifndef DOXYGEN\n  : public Coeffs<D, level<D>::value>\n\
                    #else\n  : public Coeffs<D, Direct>\n#endif // not DOXYGEN\n{\n};\n";
        assert_eq!(
            straightened(text),
            "template<typename D> class DenseBase\n  : public Coeffs<D, level<D>::value>\n{\n};"
        );
    }

    #[test]
    fn two_signatures_sharing_one_body_keep_the_first() {
        let text = "  static void run(Kernel &kernel,\n#if COMP_MSVC\n    Index start)\n\
                    #else\n    Index end)\n#endif\n  {\n  }\n";
        assert_eq!(
            straightened(text),
            "  static void run(Kernel &kernel,\n    Index start)\n  {\n  }"
        );
        // Each branch opens the body: the braces do not balance within a branch.
        let text = "int f(void) {\n  return 0;\n}\n#ifdef WIN32\nint umain(int argc) {\n\
                    #else /*}*/\nint main(int argc) {\n#endif\n  return argc;\n}\n";
        assert_eq!(
            straightened(text),
            "int f(void) {\n  return 0;\n}\nint umain(int argc) {\n  return argc;\n}"
        );
    }

    #[test]
    fn a_conditional_between_whole_declarations_is_left_alone() {
        let text = "void a(void);\n#ifdef _WIN32\nvoid f(void) { g(\"}\"); }\n#else\n\
                    void f(void) { g('{'); }\n#endif\nvoid b(void);\n\
                    class A {\npublic:\n#if HAS_X\n  int x;\n#else\n  long x;\n#endif\n};\n\
                    EXPORT_INTERFACE(A)\n#ifdef DEBUG\nvoid trace();\n#endif\n";
        assert!(split_conditionals(text, |_| true).is_empty());
    }

    #[test]
    fn an_expression_split_by_a_conditional_keeps_its_first_branch() {
        let text = "  Cost = (Packet\n#ifdef FMA\n    ? 2 * Add\n#else\n    ? 12 * Add\n\
                    #endif\n    : Exp);\n";
        assert_eq!(
            straightened(text),
            "  Cost = (Packet\n    ? 2 * Add\n    : Exp);"
        );
    }

    #[test]
    fn only_conditionals_near_an_error_are_straightened() {
        let text = "class A\n#if X\n  : public B\n#endif\n{\n};\n\
                    void f(int a\n#if Y\n  , int b\n#endif\n) {\n}\n";
        let second = text.find("void f").unwrap();
        let near_second = |extent: Range<usize>| extent.contains(&(second + 2));
        let ranges = split_conditionals(text, near_second);
        assert!(!ranges.is_empty() && ranges.iter().all(|range| range.start > second));
    }

    #[test]
    fn if_zero_keeps_the_branch_after_it() {
        let text = "int f(int a)\n#if 0\n  , int b)\n#else\n  )\n#endif\n{\n}\n";
        assert_eq!(straightened(text), "int f(int a)\n  )\n{\n}");
    }

    #[test]
    fn directives_continued_over_lines_and_nested_conditionals() {
        let text = "class A\n#if defined(X) && \\\n    defined(Y)\n  : public B\n\
                    #  if Z\n  , public C\n#  endif\n#else\n  : public D\n#endif\n{\n};\n";
        assert_eq!(
            straightened(text),
            "class A\n  : public B\n  , public C\n{\n};"
        );
        // An unclosed conditional is left as it is.
        assert!(split_conditionals("class A\n#if X\n  : public B\n{\n};\n", |_| true).is_empty());
    }

    #[test]
    fn literals_and_comments_hide_their_brackets() {
        let code = code_only("a('{') \"}\" /* { */ // {\nb('\\'');\n");
        assert_eq!(
            String::from_utf8(code).unwrap(),
            format!(
                "a({}) {} {} {}\nb({});\n",
                " ".repeat(3),
                " ".repeat(3),
                " ".repeat(7),
                " ".repeat(4),
                " ".repeat(4)
            )
        );
        // A digit separator is no character literal.
        assert_eq!(character_end(b"1'000'000 {", 1), 2);
    }
}
