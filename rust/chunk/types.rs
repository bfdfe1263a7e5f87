//! What the chunker is asked and what it answers for one file, apart from the chunks
//! themselves (`crate::records`).

use std::time::Duration;

use crate::lang::Language;
use crate::parse::OUT_OF_TIME;
use crate::records::Chunk;

/// How big chunks may get, and how long one file may take.
#[derive(Clone, Debug)]
pub struct ChunkOptions {
    /// Most chars in a chunk's `text` (header + code).
    pub max_chars: usize,
    /// Wall-clock time to parse and walk one file. Past it the file is chunked as plain
    /// lines and the overrun is reported in `syntax_errors`: a hostile file costs this much,
    /// never a hang.
    pub time_budget: Duration,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        // A 1 MB file (the walk's default limit) parses in well under a second in every
        // grammar here; ten leave room for a loaded machine.
        ChunkOptions {
            max_chars: 3500,
            time_budget: Duration::from_secs(10),
        }
    }
}

/// The chunks of one file, and what went wrong while reading or parsing it.
#[derive(Clone, Debug)]
pub struct FileChunks {
    pub path: String,
    pub language: Language,
    /// xxh3-128 of the raw bytes, as 32 hex digits.
    pub content_hash: String,
    pub chunks: Vec<Chunk>,
    /// `"line 12: syntax error near `...`"`; the chunks are still produced.
    pub syntax_errors: Vec<String>,
    /// Why the file could not be chunked at all (unreadable, or the chunker failed on it):
    /// a failure, worth retrying; whatever was indexed for the file before should stay.
    pub error: Option<String>,
    /// Why the file's content is not indexed (it turned out binary or generated): a
    /// decision, not a failure; the file has no chunks.
    pub skipped: Option<String>,
}

impl FileChunks {
    /// Whether the file ran out of its time budget (chunked as plain lines, or without
    /// references): one of its `syntax_errors` says so, and is no syntax error.
    pub fn out_of_time(&self) -> bool {
        self.syntax_errors
            .iter()
            .any(|note| note.contains(OUT_OF_TIME))
    }

    pub(super) fn empty(path: &str, language: Language, content_hash: String) -> FileChunks {
        FileChunks {
            path: path.to_string(),
            language,
            content_hash,
            chunks: Vec::new(),
            syntax_errors: Vec::new(),
            error: None,
            skipped: None,
        }
    }
}
