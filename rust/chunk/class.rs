//! Class-level chunks: a class's header, its fields and constructor as written, and one
//! summary line per method, assembled once the walk leaves the class.

use tree_sitter::Node;

use super::draft::Body;
use super::header::signature_text;
use super::text::Source;

/// A class-level chunk being assembled from its members.
pub(super) struct ClassBuilder<'t> {
    /// Its draft, by index.
    pub(super) draft: usize,
    pub(super) body: Option<Node<'t>>,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) header_end: usize,
    members: Vec<Member>,
}

enum Member {
    /// Source lines kept as they are (fields, constructors, comments).
    Verbatim(usize, usize),
    /// One line standing for a method or nested type.
    Summary { line: usize, text: String },
}

impl<'t> ClassBuilder<'t> {
    pub(super) fn new(
        draft: usize,
        body: Option<Node<'t>>,
        (start, end): (usize, usize),
        header_end: usize,
    ) -> ClassBuilder<'t> {
        ClassBuilder {
            draft,
            body,
            start,
            end,
            header_end,
            members: Vec::new(),
        }
    }

    /// Keep source lines in the class chunk; members sharing a line stay one piece.
    pub(super) fn verbatim(&mut self, source: &Source, start: usize, end: usize) {
        if let Some(Member::Verbatim(_, previous_end)) = self.members.last_mut() {
            if source.line_of(*previous_end) == source.line_of(start) {
                *previous_end = end;
                return;
            }
        }
        self.members.push(Member::Verbatim(start, end));
    }

    /// A one-line summary: decorators, signature, and `elision` for an elided body.
    pub(super) fn summarize(
        &mut self,
        source: &Source,
        decorators: &str,
        signature: (usize, usize),
        elision: Option<&str>,
    ) {
        let mut text = source.indent_at(signature.0).to_string();
        if !decorators.is_empty() {
            text.push_str(decorators);
            text.push(' ');
        }
        text.push_str(&signature_text(source, signature));
        if let Some(elision) = elision {
            text.push(' ');
            text.push_str(elision);
        }
        let line = source.line_of(signature.0);
        self.members.push(Member::Summary { line, text });
    }

    /// The class chunk's body: the source as written when nothing was elided, else the
    /// header, the members and the tail after `consumed` (what earlier chunks hold).
    pub(super) fn assemble(&mut self, source: &Source, consumed: usize) -> Body<'t> {
        let members = std::mem::take(&mut self.members);
        let (start, end, header_end) = (self.start, self.end, self.header_end);
        if !members.iter().any(|m| matches!(m, Member::Summary { .. })) {
            // Nothing elided: the class chunk is the source as written.
            return Body::Range {
                start,
                end,
                body: self.body,
                cuts: Vec::new(),
            };
        }
        let mut text = String::new();
        let mut lines: Vec<u32> = Vec::new();
        let mut add = |piece: &str, first_line: usize, text: &mut String| {
            let piece = piece.trim_end_matches(['\n', ' ', '\t']);
            if piece.trim().is_empty() {
                return;
            }
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(piece);
            let count = memchr::memchr_iter(b'\n', piece.as_bytes()).count() + 1;
            lines.extend((0..count).map(|k| (first_line + k + 1) as u32));
        };
        add(
            source.slice(start, header_end),
            source.line_of(start),
            &mut text,
        );
        for member in &members {
            match member {
                Member::Verbatim(a, b) => add(source.slice(*a, *b), source.line_of(*a), &mut text),
                Member::Summary {
                    line,
                    text: summary,
                } => add(summary, *line, &mut text),
            }
        }
        let tail_start = consumed.max(header_end);
        if tail_start < end {
            let tail = source.slice(tail_start, end);
            let skipped = tail.len() - tail.trim_start().len();
            let (tail_start, _) = source.widen(tail_start + skipped, end);
            add(
                source.slice(tail_start, end),
                source.line_of(tail_start),
                &mut text,
            );
        }
        Body::Assembled { text, lines }
    }
}
