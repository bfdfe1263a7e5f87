//! Code-aware keyword tokens, shared by indexing and querying so that both sides agree.
//!
//! An identifier is kept whole *and* split into its words: `parseHTTPResponse2` gives
//! `parsehttpresponse2 parse http response 2`; `snake_case_name` gives `snake_case_name snake
//! case name`. Everything is lowercased.

/// Split `text` into lowercase keyword tokens: each identifier whole, then its parts.
pub fn code_tokens(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let word = word.trim_matches('_');
        if word.is_empty() {
            continue;
        }
        let parts = identifier_parts(word);
        tokens.push(word.to_lowercase());
        if parts.len() > 1 {
            tokens.extend(parts.into_iter().map(|part| part.to_lowercase()));
        }
    }
    tokens
}

/// Marks the underscore-free spelling of a snake_case token in an index text.
pub const SPELLING_VARIANT: char = '~';

/// The text a keyword field indexes for `text`: its `code_tokens` joined by spaces, then, for
/// each token with an underscore, the same token without underscores after a `~`
/// (`get_user_by_id` is also indexed as `~getuserbyid`, so `getUserById` finds it).
pub fn index_text(text: &str) -> String {
    let tokens = code_tokens(text);
    let mut joined = String::with_capacity(text.len() + text.len() / 2);
    for token in &tokens {
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(token);
    }
    for token in tokens.iter().filter(|token| token.contains('_')) {
        joined.push(' ');
        joined.push(SPELLING_VARIANT);
        joined.extend(token.chars().filter(|&c| c != '_'));
    }
    joined
}

/// The words of one identifier: snake_case, camelCase, acronyms and digit runs.
pub fn identifier_parts(identifier: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in identifier.split('_').filter(|p| !p.is_empty()) {
        split_case(piece, &mut parts);
    }
    parts
}

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Upper,
    Lower,
    Digit,
    Other,
}

fn class_of(c: char) -> Class {
    if c.is_uppercase() {
        Class::Upper
    } else if c.is_lowercase() {
        Class::Lower
    } else if c.is_numeric() {
        Class::Digit
    } else {
        Class::Other
    }
}

fn split_case<'a>(piece: &'a str, parts: &mut Vec<&'a str>) {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut start = 0;
    for i in 1..chars.len() {
        let previous = class_of(chars[i - 1].1);
        let current = class_of(chars[i].1);
        let next = chars.get(i + 1).map(|(_, c)| class_of(*c));
        let boundary = match (previous, current) {
            (Class::Lower, Class::Upper) => true,
            // The last capital of an acronym starts the next word: HTTPResponse -> HTTP Response.
            (Class::Upper, Class::Upper) => next == Some(Class::Lower),
            (Class::Digit, Class::Digit) => false,
            (Class::Digit, _) | (_, Class::Digit) => true,
            _ => false,
        };
        if boundary {
            parts.push(&piece[chars[start].0..chars[i].0]);
            start = i;
        }
    }
    parts.push(&piece[chars[start].0..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_text_appends_spelling_variants() {
        assert_eq!(index_text("getUserById"), "getuserbyid get user by id");
        assert_eq!(
            index_text("def get_user(x): pass"),
            "def get_user get user x pass ~getuser"
        );
        assert_eq!(index_text("__"), "");
        assert_eq!(index_text(""), "");
    }

    #[test]
    fn splits_and_keeps_whole() {
        assert_eq!(
            code_tokens("parseHTTPResponse2(snake_case_name)"),
            [
                "parsehttpresponse2",
                "parse",
                "http",
                "response",
                "2",
                "snake_case_name",
                "snake",
                "case",
                "name"
            ]
        );
        assert_eq!(
            code_tokens("getUserById"),
            ["getuserbyid", "get", "user", "by", "id"]
        );
        assert_eq!(
            code_tokens("HTTPException"),
            ["httpexception", "http", "exception"]
        );
        assert_eq!(code_tokens("how are routes"), ["how", "are", "routes"]);
        assert_eq!(code_tokens("__init__ x"), ["init", "x"]);
        assert!(code_tokens("  ... ").is_empty());
    }

    #[test]
    fn unicode_identifiers() {
        assert_eq!(
            code_tokens("größeBerechnen"),
            ["größeberechnen", "größe", "berechnen"]
        );
    }
}
