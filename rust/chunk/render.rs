//! From drafts to chunks: headers, size limits (cut into parts) and stable ids.

use std::collections::HashMap;

use tree_sitter::Node;

use super::draft::{Body, Draft};
use super::driver::Chunker;
use super::header::signature_text;
use super::split;
use super::text::{char_len, collapse, dedent, Source};
use crate::records::Chunk;

impl<'s, 't> Chunker<'s, 't> {
    /// Render the drafts: headers, size limits, ids.
    pub(super) fn finish(self) -> Vec<Chunk> {
        let mut seen: HashMap<&str, u32> = HashMap::with_capacity(self.drafts.len());
        let mut chunks = Vec::with_capacity(self.drafts.len());
        let mut pieces = Vec::new();
        for draft in &self.drafts {
            pieces.clear();
            self.render(draft, &mut pieces);
            let mut id = String::new();
            for (k, mut chunk) in pieces.drain(..).enumerate() {
                // The parts of one symbol share its id; module runs cut for size are
                // numbered like any same-id siblings.
                if k == 0 || !draft.parts {
                    let count = seen.entry(draft.base_id.as_str()).or_insert(0);
                    *count += 1;
                    id = if *count == 1 {
                        draft.base_id.clone()
                    } else {
                        format!("{}#{count}", draft.base_id)
                    };
                    chunk.id = id.clone();
                } else {
                    chunk.id = format!("{id}#part{}", k + 1);
                }
                chunks.push(chunk);
            }
        }
        chunks
    }

    fn render(&self, draft: &Draft<'t>, out: &mut Vec<Chunk>) {
        let (comment, end) = (self.spec.comment, self.spec.comment_end);
        let mut header = format!(
            "{comment} Context: {} ({}){end}\n",
            draft.context, self.path
        );
        if !draft.decorators.is_empty() {
            header.push_str(&format!("{comment} {}{end}\n", draft.decorators));
        }
        let (text, start) = match &draft.body {
            Body::Range { start, end, .. } => (self.source.slice(*start, *end), *start),
            Body::Assembled { text, .. } => (text.as_str(), 0),
            Body::Pending => return,
        };
        let width = text
            .bytes()
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        let indent = &text[..width];
        let code = dedent(text, indent);
        if char_len(&header) + char_len(&code) <= self.max_chars {
            let code = code.into_owned();
            out.push(self.chunk(draft, header, code, draft.start_line, draft.end_line));
            return;
        }
        // Parts repeat the signature when there is room; a long header leaves only the count.
        let mut signature = collapse(&signature_text(self.source, draft.signature), 120);
        let part_line = |signature: &str| {
            if draft.parts {
                char_len(comment) + char_len(end) + char_len(signature) + 24
            } else {
                0
            }
        };
        let quarter = self.max_chars / 4;
        let mut reserved = char_len(&header) + part_line(&signature);
        if self.max_chars.saturating_sub(reserved) < quarter {
            signature.clear();
            reserved = char_len(&header) + part_line(&signature);
        }
        let budget = self.max_chars.saturating_sub(reserved).max(quarter);
        let cuts = self.cuts(draft);
        let parts = split::pack(text, &cuts, budget, budget);
        let total = parts.len();
        let local_lines = match &draft.body {
            Body::Assembled { text, lines } => Some((Source::new(text), lines)),
            _ => None,
        };
        for (k, (a, b)) in parts.into_iter().enumerate() {
            let (first, last) = match &local_lines {
                Some((local, lines)) => {
                    let first = lines[local.line_of(a).min(lines.len() - 1)];
                    let last = lines[local.last_line_of(a, b).min(lines.len() - 1)];
                    (first, last.max(first))
                }
                None => (self.line(start + a), self.last_line(start + a, start + b)),
            };
            let code = dedent(&text[a..b], indent).into_owned();
            let header = if draft.parts && total > 1 {
                let space = if signature.is_empty() { "" } else { " " };
                format!(
                    "{header}{comment} {signature}{space}(part {}/{total}){end}\n",
                    k + 1
                )
            } else {
                header.clone()
            };
            out.push(self.chunk(draft, header, code, first, last));
        }
    }

    /// Preferred cut points, relative to the chunk text: statements, members, module items.
    fn cuts(&self, draft: &Draft<'t>) -> Vec<usize> {
        match &draft.body {
            Body::Range {
                cuts, body: None, ..
            } => cuts.clone(),
            Body::Range {
                start,
                end,
                body: Some(body),
                ..
            } => statement_cuts(*body, self.source, *start, *end),
            Body::Assembled { text, .. } => memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .collect(),
            Body::Pending => Vec::new(),
        }
    }

    fn chunk(
        &self,
        draft: &Draft<'t>,
        header: String,
        code: String,
        start_line: u32,
        end_line: u32,
    ) -> Chunk {
        // One exact allocation; `format!` would grow the buffer while copying the code.
        let text = [header.as_str(), code.as_str()].concat();
        Chunk {
            id: String::new(),
            path: self.path.to_string(),
            language: self.language,
            kind: draft.kind,
            symbol: draft.symbol.clone(),
            fqn: draft.fqn.clone(),
            start_line,
            end_line,
            header,
            code,
            text,
            references: Vec::new(),
        }
    }
}

/// Line starts of the top-level statements of `body`, relative to `start`.
fn statement_cuts(body: Node, source: &Source, start: usize, end: usize) -> Vec<usize> {
    let mut body = body;
    // Go and Swift keep statements one level down.
    for _ in 0..2 {
        if body.named_child_count() == 1 {
            if let Some(only) = body.named_child(0) {
                if matches!(
                    only.kind(),
                    "statement_list" | "statements" | "block" | "body_statement"
                ) {
                    body = only;
                    continue;
                }
            }
        }
        break;
    }
    let mut cuts = Vec::new();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let line_start = source.line_start(statement.start_byte());
        let before = source.slice(line_start, statement.start_byte());
        if line_start > start && line_start < end && before.trim().is_empty() {
            let cut = line_start - start;
            if cuts.last() != Some(&cut) {
                cuts.push(cut);
            }
        }
    }
    cuts
}
