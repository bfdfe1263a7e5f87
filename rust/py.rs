//! The Python bindings: the only file that imports pyo3.
//!
//! Calls cross the boundary in batches (a whole walk, a list of files) and release the GIL
//! around the Rust work; results are frozen classes in a deterministic order.

use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyNotADirectoryError, PyValueError};
use pyo3::prelude::*;

use crate::chunk::{self, ChunkOptions};
use crate::error::Error;
use crate::graph;
use crate::lang::Language;
use crate::tokens;
use crate::walk::{self as walker, WalkOptions};

create_exception!(
    _core,
    CoreError,
    PyException,
    "An error raised by sharc's Rust core."
);
create_exception!(
    _core,
    PatternError,
    PyValueError,
    "An invalid ignore pattern or extension."
);

impl From<Error> for PyErr {
    fn from(error: Error) -> PyErr {
        let message = error.to_string();
        match error {
            Error::RootNotFound { .. } => PyFileNotFoundError::new_err(message),
            Error::RootNotDirectory { .. } => PyNotADirectoryError::new_err(message),
            Error::InvalidPattern { .. } | Error::InvalidExtension { .. } => {
                PatternError::new_err(message)
            }
            Error::PathOutsideRoot { .. } => PyValueError::new_err(message),
            Error::Io { .. } | Error::Grammar { .. } => CoreError::new_err(message),
        }
    }
}

/// A file the walk will index.
#[pyclass(frozen, get_all, module = "sharc._core")]
#[derive(Clone)]
pub struct WalkedFile {
    /// Path relative to the root, `/`-separated.
    path: String,
    size: u64,
    mtime_ns: i64,
    language: String,
    tier: u8,
}

#[pymethods]
impl WalkedFile {
    fn __repr__(&self) -> String {
        format!(
            "WalkedFile(path={:?}, language={:?}, tier={}, size={})",
            self.path, self.language, self.tier, self.size
        )
    }
}

/// A file the walk left out, and why.
#[pyclass(frozen, get_all, module = "sharc._core")]
#[derive(Clone)]
pub struct SkippedFile {
    path: String,
    /// A stable code: ignored, secret, binary, too_large, symlink_outside_root, ...
    reason: String,
    /// The human explanation.
    detail: String,
}

#[pymethods]
impl SkippedFile {
    fn __repr__(&self) -> String {
        format!(
            "SkippedFile(path={:?}, reason={:?})",
            self.path, self.detail
        )
    }
}

/// One chunk: a symbol, a group of module-level lines, a doc section or a config group.
#[pyclass(frozen, get_all, module = "sharc._core")]
#[derive(Clone)]
pub struct Chunk {
    id: String,
    path: String,
    language: String,
    tier: u8,
    kind: String,
    symbol: String,
    fqn: String,
    start_line: u32,
    end_line: u32,
    header: String,
    text: String,
    code: String,
    references: Vec<Reference>,
}

/// A name a chunk calls, imports, inherits or mentions as a type (`sharc.graph` resolves it).
#[pyclass(frozen, get_all, eq, hash, module = "sharc._core")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    name: String,
    kind: String,
    line: u32,
    qualifier: String,
}

#[pymethods]
impl Reference {
    #[new]
    #[pyo3(signature = (*, name, kind, line, qualifier=String::new()))]
    fn new(name: String, kind: String, line: u32, qualifier: String) -> Self {
        Reference {
            name,
            kind,
            line,
            qualifier,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Reference(name={:?}, kind={:?}, line={}, qualifier={:?})",
            self.name, self.kind, self.line, self.qualifier
        )
    }
}

impl From<graph::Reference> for Reference {
    fn from(reference: graph::Reference) -> Self {
        Reference {
            name: reference.name,
            kind: reference.kind.to_string(),
            line: reference.line,
            qualifier: reference.qualifier,
        }
    }
}

#[pymethods]
impl Chunk {
    #[new]
    #[pyo3(signature = (*, id, path, language, tier, kind, symbol, fqn, start_line, end_line, header, text, code, references=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        id: String,
        path: String,
        language: String,
        tier: u8,
        kind: String,
        symbol: String,
        fqn: String,
        start_line: u32,
        end_line: u32,
        header: String,
        text: String,
        code: String,
        references: Vec<Reference>,
    ) -> Self {
        Chunk {
            id,
            path,
            language,
            tier,
            kind,
            symbol,
            fqn,
            start_line,
            end_line,
            header,
            text,
            code,
            references,
        }
    }

    /// `path:start-end`, the location users and agents click on.
    #[getter]
    fn location(&self) -> String {
        format!("{}:{}-{}", self.path, self.start_line, self.end_line)
    }

    fn __repr__(&self) -> String {
        format!(
            "Chunk(id={:?}, kind={:?}, location={:?})",
            self.id,
            self.kind,
            self.location()
        )
    }
}

/// The chunks of one file, with what went wrong while reading or parsing it.
#[pyclass(frozen, get_all, module = "sharc._core")]
pub struct FileChunks {
    path: String,
    language: String,
    content_hash: String,
    chunks: Vec<Chunk>,
    syntax_errors: Vec<String>,
    /// The file ran out of its time budget; one of `syntax_errors` says so.
    out_of_time: bool,
    error: Option<String>,
    skipped: Option<String>,
}

fn language_named(name: &str) -> PyResult<Language> {
    Language::all()
        .find(|language| language.name() == name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown language {name:?}")))
}

/// What `walk` returns: the canonical root, the files (all, or the changed ones against
/// `known`), the skipped paths, how many known files are unchanged, the known paths not found.
type WalkOutput = (
    String,
    Vec<WalkedFile>,
    Vec<SkippedFile>,
    usize,
    Vec<String>,
);

/// Walk `root` (or only `scope`, paths relative to it) and return its files and skipped paths,
/// both sorted by path. With `known` (an index's `(path, size, mtime_ns)` records), only the
/// new and changed files are returned, with the count of unchanged ones and the known paths
/// the walk did not find.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(name = "walk", signature = (root, *, ignore_patterns=Vec::new(), custom_extensions=Vec::new(), max_file_size=1_000_000, threads=0, report_ignored=false, sniff_content=true, scope=None, known=None))]
fn walk_tree(
    py: Python<'_>,
    root: PathBuf,
    ignore_patterns: Vec<String>,
    custom_extensions: Vec<String>,
    max_file_size: u64,
    threads: usize,
    report_ignored: bool,
    sniff_content: bool,
    scope: Option<Vec<PathBuf>>,
    known: Option<Vec<walker::KnownFile>>,
) -> PyResult<WalkOutput> {
    let options = WalkOptions {
        ignore_patterns,
        custom_extensions,
        max_file_size,
        threads,
        report_ignored,
        sniff_content,
    };
    let (result, changes) = py.detach(|| {
        let mut result = match &scope {
            Some(scope) => walker::walk_scope(&root, scope, &options),
            None => walker::walk(&root, &options),
        }?;
        let changes = known.map(|known| walker::changes(std::mem::take(&mut result.files), known));
        Ok::<_, Error>((result, changes))
    })?;
    let (files, unchanged, missing) = match changes {
        Some(changes) => (changes.changed, changes.unchanged, changes.missing),
        None => (result.files, 0, Vec::new()),
    };
    let files = files
        .into_iter()
        .map(|file| WalkedFile {
            path: file.path,
            size: file.size,
            mtime_ns: file.mtime_ns,
            language: file.language.name().to_string(),
            tier: file.tier.number(),
        })
        .collect();
    let skipped = result
        .skipped
        .into_iter()
        .map(|skip| SkippedFile {
            path: skip.path,
            reason: skip.reason.code().to_string(),
            detail: skip.reason.to_string(),
        })
        .collect();
    Ok((
        result.root.to_string_lossy().into_owned(),
        files,
        skipped,
        unchanged,
        missing,
    ))
}

fn convert_chunks(file: chunk::FileChunks) -> FileChunks {
    let out_of_time = file.out_of_time();
    let language = file.language.name().to_string();
    let tier = file.language.tier().number();
    FileChunks {
        chunks: file
            .chunks
            .into_iter()
            .map(|c| Chunk {
                id: c.id,
                path: c.path,
                language: c.language.name().to_string(),
                tier,
                kind: c.kind.to_string(),
                symbol: c.symbol,
                fqn: c.fqn,
                start_line: c.start_line,
                end_line: c.end_line,
                header: c.header,
                text: c.text,
                code: c.code,
                references: c.references.into_iter().map(Reference::from).collect(),
            })
            .collect(),
        path: file.path,
        language,
        content_hash: file.content_hash,
        out_of_time,
        syntax_errors: file.syntax_errors,
        error: file.error,
        skipped: file.skipped,
    }
}

/// Read and chunk `(path, language)` files under `root` with tree-sitter, in parallel.
///
/// Languages without a grammar come back with no chunks (Python splits tiers 2-4).
#[pyfunction]
#[pyo3(signature = (root, files, *, max_chars=3500))]
fn chunk_files(
    py: Python<'_>,
    root: PathBuf,
    files: Vec<(String, String)>,
    max_chars: usize,
) -> PyResult<Vec<FileChunks>> {
    let files = files
        .into_iter()
        .map(|(path, language)| Ok((path, language_named(&language)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let options = ChunkOptions {
        max_chars,
        ..ChunkOptions::default()
    };
    let chunked = py.detach(|| chunk::chunk_files(Path::new(&root), &files, &options));
    Ok(chunked.into_iter().map(convert_chunks).collect())
}

/// Chunk in-memory `source` as if it were the file at `path`.
#[pyfunction]
#[pyo3(signature = (path, language, source, *, max_chars=3500))]
fn chunk_source(
    py: Python<'_>,
    path: String,
    language: String,
    source: String,
    max_chars: usize,
) -> PyResult<FileChunks> {
    let language = language_named(&language)?;
    let options = ChunkOptions {
        max_chars,
        ..ChunkOptions::default()
    };
    let chunked = py.detach(|| chunk::chunk_source(&path, language, &source, &options));
    Ok(convert_chunks(chunked))
}

/// The walk's rules for single paths: the file watcher asks it about each changed path.
///
/// Built once per root; rebuild it when an ignore file changes.
#[pyclass(frozen, module = "sharc._core")]
pub struct PathFilter {
    inner: walker::Filter,
}

#[pymethods]
impl PathFilter {
    #[new]
    #[pyo3(signature = (root, *, ignore_patterns=Vec::new(), custom_extensions=Vec::new(), max_file_size=1_000_000))]
    fn new(
        root: PathBuf,
        ignore_patterns: Vec<String>,
        custom_extensions: Vec<String>,
        max_file_size: u64,
    ) -> PyResult<Self> {
        let options = WalkOptions {
            ignore_patterns,
            custom_extensions,
            max_file_size,
            ..WalkOptions::default()
        };
        Ok(PathFilter {
            inner: walker::Filter::new(&root, &options)?,
        })
    }

    /// None when the walk would index `relative_path`, else `(reason code, detail)`.
    fn skip_reason(&self, py: Python<'_>, relative_path: PathBuf) -> Option<(String, String)> {
        py.detach(|| match self.inner.classify(&relative_path) {
            Ok(_) => None,
            Err(reason) => Some((reason.code().to_string(), reason.to_string())),
        })
    }

    /// Whether a directory is walked at all (False for node_modules, ignored dirs, ...).
    fn walks_directory(&self, relative_path: PathBuf) -> bool {
        self.inner.check_directory(&relative_path).is_ok()
    }
}

/// The language and tier sharc gives a path, or None when it does not index that type.
#[pyfunction]
fn classify_path(path: PathBuf) -> Option<(String, u8)> {
    let extensionless = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| !name.contains('.'));
    Language::from_path(&path)
        .or_else(|| {
            // An existing file without an extension: a script or a C++ header (`extensionless`).
            (extensionless && path.is_file())
                .then(|| crate::walk::extensionless::language(&path))
                .flatten()
        })
        .map(|language| (language.name().to_string(), language.tier().number()))
}

/// Every `(".ext" or file name, language, tier)` sharc indexes.
#[pyfunction]
fn known_file_types() -> Vec<(String, String, u8)> {
    Language::file_types()
        .map(|(pattern, language)| {
            (
                pattern,
                language.name().to_string(),
                language.tier().number(),
            )
        })
        .collect()
}

/// Whether `language` has a tree-sitter grammar in the core.
#[pyfunction]
fn has_grammar(language: &str) -> PyResult<bool> {
    Ok(chunk::supports(language_named(language)?))
}

/// The tier of a language name.
#[pyfunction]
fn language_tier(language: &str) -> PyResult<u8> {
    Ok(language_named(language)?.tier().number())
}

/// The identifier of the reference extractor (its queries and rules, as a digest): an index
/// whose references carry another one fills them again.
#[pyfunction]
fn references_version() -> String {
    graph::version()
}

/// The identifier of the chunker (a number bumped when what a file becomes changes): an index
/// whose chunks carry another one reads every file again.
#[pyfunction]
fn chunker_version() -> String {
    chunk::version()
}

/// Keyword tokens of `text`: identifiers whole and split, lowercased.
#[pyfunction]
fn code_tokens(text: &str) -> Vec<String> {
    tokens::code_tokens(text)
}

/// `code_tokens` over many texts at once, without the GIL.
#[pyfunction]
fn code_tokens_batch(py: Python<'_>, texts: Vec<String>) -> Vec<Vec<String>> {
    py.detach(|| texts.iter().map(|text| tokens::code_tokens(text)).collect())
}

/// `index_text` over many texts at once, without the GIL: one string per text, ready for a
/// whitespace-tokenized keyword field.
#[pyfunction]
fn index_text_batch(py: Python<'_>, texts: Vec<String>) -> Vec<String> {
    py.detach(|| texts.iter().map(|text| tokens::index_text(text)).collect())
}

#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("CoreError", module.py().get_type::<CoreError>())?;
    module.add("PatternError", module.py().get_type::<PatternError>())?;
    // The ignore files the walk reads, strongest first.
    module.add("IGNORE_FILES", walker::IGNORE_FILES.to_vec())?;
    module.add_class::<WalkedFile>()?;
    module.add_class::<SkippedFile>()?;
    module.add_class::<Chunk>()?;
    module.add_class::<Reference>()?;
    module.add_class::<FileChunks>()?;
    module.add_class::<PathFilter>()?;
    module.add_function(wrap_pyfunction!(walk_tree, module)?)?;
    module.add_function(wrap_pyfunction!(chunk_files, module)?)?;
    module.add_function(wrap_pyfunction!(chunk_source, module)?)?;
    module.add_function(wrap_pyfunction!(references_version, module)?)?;
    module.add_function(wrap_pyfunction!(chunker_version, module)?)?;
    module.add_function(wrap_pyfunction!(classify_path, module)?)?;
    module.add_function(wrap_pyfunction!(has_grammar, module)?)?;
    module.add_function(wrap_pyfunction!(known_file_types, module)?)?;
    module.add_function(wrap_pyfunction!(language_tier, module)?)?;
    module.add_function(wrap_pyfunction!(code_tokens, module)?)?;
    module.add_function(wrap_pyfunction!(code_tokens_batch, module)?)?;
    module.add_function(wrap_pyfunction!(index_text_batch, module)?)?;
    Ok(())
}
