//! Attribute-like macros in C and C++, found for a reparse (`c_reparse`).
//!
//! `class SPDLOG_API logger {`, `CLI11_NODISCARD std::string name() const`, `SPDLOG_INLINE
//! void logger::log()`: the preprocessor expands such a macro to nothing or to an export
//! attribute; tree-sitter, which does not expand macros, reads it as a type or a name, and the
//! class or function around it falls apart into parse errors (its chunks lose their names, a
//! whole class body becomes loose code). `attribute_macros` finds every all-caps identifier
//! standing where such a macro stands (after `class` or `struct` and before the name, first in
//! a declaration and before its type, alone on its line over a declaration, or after a
//! parameter list: `void swap(logger &other) SPDLOG_NOEXCEPT;`, `ABSL_LOCKS_EXCLUDED(mu_)`),
//! and `blank_macros` overwrites each with text of the same length: after `class` or a
//! parameter list spaces; leading a declaration `inline` (padded), a specifier the declaration
//! may carry, so the declaration still starts where the macro does and its chunk keeps it;
//! standing for a statement or a member (`SPDLOG_CATCH_STD`, `CLI11_ERROR_DEF(E, A)`), its
//! name and a `;`.

/// Words after which a macro sits where an attribute would (`class SPDLOG_API logger`,
/// `static CJSON_INLINE int f()`).
const BEFORE: &[&str] = &[
    "class",
    "struct",
    "union",
    "enum",
    "inline",
    "static",
    "virtual",
    "extern",
    "explicit",
    "friend",
    "constexpr",
    "const",
];

/// Where a macro stands: inside a declaration, or leading one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Place {
    /// `class SPDLOG_API logger`, `void swap() SPDLOG_NOEXCEPT;`: spaces will do.
    Name,
    /// `SPDLOG_INLINE void f()`: a specifier keeps the declaration's start.
    Declaration,
    /// `SPDLOG_CATCH_STD`, `CLI11_ERROR_DEF(E, A)` alone on a line: its name and a `;` make
    /// a statement or member where it stood.
    Statement,
}

/// What a macro leading a declaration becomes, the longest that fits first.
const SPECIFIERS: &[&str] = &["inline", "const"];

/// Words after which a macro stands before the record's name.
const RECORDS: &[&str] = &["class", "struct", "union", "enum"];

/// Overwrite the macros at `ranges`: spaces, a specifier leading a declaration, or for a
/// statement its name and a `;` (`EIGEN_DEVICE_FUN;`, `CLI11_ERROR_DEF      ;`): a statement
/// or a member the parser reads, whose node spans the macro, so the chunk that holds it
/// slices all of it from the file.
pub(super) fn blank_macros(bytes: &mut [u8], ranges: &[(usize, usize, Place)]) {
    for &(start, end, place) in ranges {
        if place == Place::Statement {
            let name = bytes[start..end]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            bytes[start + name..end].fill(b' ');
            bytes[end - 1] = b';';
            continue;
        }
        bytes[start..end].fill(b' ');
        if place == Place::Declaration {
            let specifier = SPECIFIERS
                .iter()
                .find(|s| s.len() <= end - start)
                .unwrap_or(&"");
            bytes[start..start + specifier.len()].copy_from_slice(specifier.as_bytes());
        }
    }
}

/// The byte ranges of all-caps identifiers that stand where an attribute macro would, and
/// where each stands (`Scanner::word`). Preprocessor lines and line comments are skipped.
pub(super) fn attribute_macros(text: &str) -> Vec<(usize, usize, Place)> {
    let bytes = text.as_bytes();
    let mut scanner = Scanner::default();
    let mut line_start = 0;
    let mut continued = false; // the line before ended a directive with `\`
    while line_start < bytes.len() {
        let line_end =
            memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i);
        let line = &text[line_start..line_end];
        let directive = continued || line.trim_start().starts_with('#');
        continued = directive && line.trim_end().ends_with('\\');
        if !directive {
            // `TEST_SETUP(Group)` over a `{` line is a function's head, not a lone invocation.
            let next_line = next_code_line(&text[line_end..]);
            scanner.block_follows = next_line.starts_with('{');
            scanner.name_on_next_line = starts_with_a_name(next_line);
            scanner.declaration_on_next_line = declaration_starts(next_line);
            scanner.line(line, line_start);
        }
        line_start = line_end + 1;
    }
    scanner.ranges
}

/// Words whose parentheses hold no parameter list.
const NOT_DECLARATORS: &[&str] = &[
    "if", "while", "for", "switch", "return", "sizeof", "alignof", "decltype", "catch", "noexcept",
    "defined",
];

/// Reads code a word at a time, across lines, remembering what the last token allows.
#[derive(Default)]
struct Scanner {
    ranges: Vec<(usize, usize, Place)>,
    /// Inside each open `(`: whether it opened a parameter list (`name(`, not `if (`).
    parentheses: Vec<bool>,
    /// The last token was the start of the line, `>`, a storage keyword or a macro.
    leading: bool,
    /// The last token was `class`, `struct`, `union` or `enum`.
    after_record: bool,
    /// The last token closed a parameter list.
    after_parameters: bool,
    /// The last token was a word that may name a function, or part of an operator's name
    /// (`operator=`).
    after_name: bool,
    /// Inside an operator's name: `operator` and the symbols after it.
    in_operator: bool,
    /// The last token may end a declaration's type: a word that is no statement keyword,
    /// `*` or `&` (`void`, `size_t`, `char *`).
    after_type: bool,
    /// No token yet on this line.
    line_start: bool,
    /// The next line that is not blank opens a block.
    block_follows: bool,
    /// The next line that is not blank starts with a name (`Index rows() const`).
    name_on_next_line: bool,
    /// The next line that is not blank starts a function's declaration
    /// (`declaration_starts`).
    declaration_on_next_line: bool,
}

impl Scanner {
    fn line(&mut self, line: &str, offset: usize) {
        let code = line.find("//").map_or(line, |cut| &line[..cut]);
        let bytes = code.as_bytes();
        self.leading = true;
        self.line_start = true;
        let mut position = 0;
        while position < bytes.len() {
            let byte = bytes[position];
            if byte.is_ascii_whitespace() {
                position += 1;
                continue;
            }
            if !(byte.is_ascii_alphabetic() || byte == b'_') {
                self.punctuation(byte);
                position += 1;
                continue;
            }
            let start = position;
            while position < bytes.len()
                && (bytes[position].is_ascii_alphanumeric() || bytes[position] == b'_')
            {
                position += 1;
            }
            let word = &code[start..position];
            if self.after_parameters && is_macro_name(word) {
                if let Some(length) = invocation_length(&code[position..]) {
                    // `void f() ABSL_LOCKS_EXCLUDED(mu_);`, `~T() EIGEN_EXCEPTION_SPEC(E)`:
                    // a specifier with arguments after a parameter list goes whole.
                    position += length;
                    self.ranges
                        .push((offset + start, offset + position, Place::Name));
                    self.line_start = false;
                    continue;
                }
            }
            if self.line_start && !self.block_follows && is_macro_name(word) {
                if let Some(length) = lone_invocation(&code[position..]) {
                    // `CLI11_ERROR_DEF(Error, ConstructionError)` alone on its line, as a
                    // class's member or a statement: the whole invocation goes.
                    let end = offset + position + length;
                    self.ranges.push((offset + start, end, Place::Statement));
                    self.line_start = false;
                    return;
                }
            }
            let place = self.word(word, code[position..].trim_start());
            if let Some(place) = place {
                self.ranges.push((offset + start, offset + position, place));
            }
        }
    }

    fn punctuation(&mut self, byte: u8) {
        self.line_start = false;
        let closed = match byte {
            b'(' => {
                self.parentheses.push(self.after_name);
                false
            }
            b')' => self.parentheses.pop().unwrap_or(false),
            _ => false,
        };
        self.after_parameters = closed;
        self.after_type = matches!(byte, b'*' | b'&');
        self.leading = byte == b'>'; // `template <class T> EXPORT_MACRO T f()`
        self.after_record = false;
        self.in_operator = self.in_operator && byte != b'(';
        self.after_name = self.in_operator;
    }

    /// Where `word`, followed by `rest`, stands if it is an attribute macro: after `class`
    /// and before the name (`class SPDLOG_API logger`), leading a declaration and before its
    /// type or name (`SPDLOG_INLINE void f()`), or after a parameter list and before its end
    /// (`void swap(logger &other) SPDLOG_NOEXCEPT;`).
    fn word(&mut self, word: &str, rest: &str) -> Option<Place> {
        let next = rest.bytes().next();
        let line_start = std::mem::take(&mut self.line_start);
        // The last of a line's macros leads a declaration written on the next line:
        // `EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE` over `Derived& operator=(...)`.
        let name_follows = next.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'~')
            || (next.is_none() && !line_start && self.leading && self.name_on_next_line);
        let end_follows = next.is_none_or(|b| matches!(b, b';' | b'{' | b'=' | b':' | b'-'));
        let place = if !is_macro_name(word) {
            None
        } else if self.after_record && name_follows {
            Some(Place::Name)
        } else if self.leading && name_follows {
            Some(Place::Declaration)
        } else if self.after_parameters && (name_follows || end_follows) {
            Some(Place::Name)
        } else if line_start && next.is_none() && self.declaration_on_next_line {
            // Alone over a declaration: `EIGEN_DEVICE_FUNC` over `inline Index rows() const`,
            // perhaps under a `template<...>` line it must not part from the declaration.
            Some(Place::Declaration)
        } else if line_start && (next.is_none() || next == Some(b'{')) {
            // A statement macro: `SPDLOG_TRY {` opening a block, `SPDLOG_CATCH_STD` alone.
            Some(Place::Statement)
        } else if self.after_type && self.parentheses.is_empty() && names_a_function(rest) {
            // `void SPDLOG_INLINE thread_pool::post_log(...)`: between the type and the name.
            Some(Place::Name)
        } else {
            None
        };
        if place.is_some() {
            // A second macro may follow: `SPDLOG_API SPDLOG_INLINE void f()`.
            return place;
        }
        self.leading = BEFORE.contains(&word);
        self.after_record = RECORDS.contains(&word);
        self.after_name = !NOT_DECLARATORS.contains(&word);
        self.in_operator = word == "operator";
        self.after_type = !STATEMENT_WORDS.contains(&word);
        // `f() const SPDLOG_NOEXCEPT`: qualifiers keep the parameter list's place.
        self.after_parameters = self.after_parameters && QUALIFIERS.contains(&word);
        None
    }
}

/// Whether `text` starts with a name that may begin a declaration: not an access label
/// (`public:`) or a statement's keyword.
fn starts_with_a_name(text: &str) -> bool {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let word = &text[..end];
    !word.is_empty()
        && !word.as_bytes()[0].is_ascii_digit()
        && !matches!(word, "public" | "private" | "protected")
        && !STATEMENT_WORDS.contains(&word)
        && !NOT_DECLARATORS.contains(&word)
}

/// Words that start a declaration and nothing else.
const DECLARATION_WORDS: &[&str] = &[
    "inline",
    "static",
    "virtual",
    "explicit",
    "constexpr",
    "friend",
    "template",
    "extern",
];

/// Whether `text` starts a function's declaration: with a specifier (`inline Index rows()`)
/// or a type and a name before its parameters (`Derived& operator=(`, `const Scalar coeff(`),
/// not a call (`run(x);`, `m_x.resize(n);`, `return f(x);`, `x = f(y);`).
fn declaration_starts(text: &str) -> bool {
    let word_end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let first = &text[..word_end];
    if DECLARATION_WORDS.contains(&first) {
        return true;
    }
    if first.is_empty() || STATEMENT_WORDS.contains(&first) || NOT_DECLARATORS.contains(&first) {
        return false;
    }
    let line = &text[..text.find('\n').unwrap_or(text.len())];
    let Some(open) = line.find('(') else {
        return false;
    };
    let head = &line[..open];
    let (head, operator) = match head.find("operator") {
        Some(at) => (&head[..at], true),
        None => (head, false),
    };
    if head.contains(['=', '.', ';', '{', '}', '"']) || head.contains("->") {
        return false;
    }
    let words = head
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '~'))
        .filter(|word| !word.is_empty())
        .count();
    words + usize::from(operator) >= 2
}

/// Words after which a name and `(` make a statement, not a function's declaration.
const STATEMENT_WORDS: &[&str] = &[
    "return",
    "case",
    "else",
    "throw",
    "new",
    "delete",
    "goto",
    "co_return",
    "co_yield",
    "co_await",
    "do",
];

/// Whether `rest` starts with a function's (qualified) name and its parameter list:
/// `thread_pool::post_log(`, `logger::~logger(`, `f (`.
fn names_a_function(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    let mut position = 0;
    loop {
        if bytes.get(position) == Some(&b'~') {
            position += 1;
        }
        let start = position;
        while position < bytes.len()
            && (bytes[position].is_ascii_alphanumeric() || bytes[position] == b'_')
        {
            position += 1;
        }
        if position == start || bytes[start].is_ascii_digit() {
            return false;
        }
        if rest[position..].starts_with("::") {
            position += 2;
            continue;
        }
        return rest[position..].trim_start().starts_with('(');
    }
}

/// The text from the first line of `text` that is code: blank lines and preprocessor
/// directives skipped (`{` after an `#endif` opens the body of the line before the `#if`).
fn next_code_line(text: &str) -> &str {
    let mut rest = text.trim_start();
    while rest.starts_with('#') {
        // A directive, with its `\` continuation lines.
        let mut end = 0;
        loop {
            let line_end = rest[end..].find('\n').map_or(rest.len(), |i| end + i);
            let continued = rest[end..line_end].trim_end().ends_with('\\');
            end = line_end;
            if !continued || end >= rest.len() {
                break;
            }
            end += 1;
        }
        rest = rest[end..].trim_start();
    }
    rest
}

/// The length of a macro's argument list at the start of `rest` (after spaces), up to its
/// closing parenthesis on the same line: `(mu_)` in `(mu_);`.
fn invocation_length(rest: &str) -> Option<usize> {
    let open = rest.len() - rest.trim_start().len();
    if !rest[open..].starts_with('(') {
        return None;
    }
    let mut depth = 0usize;
    for (index, byte) in rest.bytes().enumerate().skip(open) {
        match byte {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(index + 1);
                }
            }
            b'"' | b'\'' | b';' | b'{' | b'}' => return None,
            _ => {}
        }
    }
    None
}

/// The length of a macro's argument list when `rest` (the line after the macro's name) is
/// that list and nothing more: `(Error, ConstructionError)` with only spaces after it.
fn lone_invocation(rest: &str) -> Option<usize> {
    let end = invocation_length(rest)?;
    rest[end..].trim().is_empty().then_some(end)
}

/// Words that may follow a parameter list before a trailing macro.
const QUALIFIERS: &[&str] = &["const", "volatile", "override", "final", "noexcept"];

/// Macro-shaped: all capitals, digits and underscores, at least four characters, two letters.
fn is_macro_name(word: &str) -> bool {
    word.len() >= 4
        && word
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && word.bytes().filter(u8::is_ascii_uppercase).count() >= 2
}
