"""The keyword store: a tantivy BM25 index over code-aware tokens of each chunk.

Text is split once, in Rust (`sharc._core.code_tokens_batch`): every identifier is kept whole
and split into its words, lowercased (`parseHTTPResponse2` gives `parsehttpresponse2 parse http
response 2`). Fields hold those tokens joined by spaces and tantivy only splits on whitespace, so
the indexed terms are exactly the Rust tokens. Queries go through the same function and are
built as term queries, never parsed, so no user input can make a query fail.

Fields: `symbol` (the symbol name and its qualified name) weighs most, then `path` (the path's
components), then `body` (header and code). In a query, a whole identifier (`getuserbyid`,
followed in the token list by its parts) weighs more than a plain word, and its parts much less,
so the definition of `getUserById` comes first, then its callers, then code that merely shares
its words. A snake_case identifier is also indexed under a `~` spelling without underscores, so
`getUserById` finds `get_user_by_id` too (a little weaker than its own spelling). Only chunk ids
are stored; the code lives in the SQLite manifest.

Many readers may open the index while one writer holds tantivy's lock; a reader sees new commits
after `reload()`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import IndexCorruptError, IndexLockedError, SharcError
from .keyword_terms import PART, WHOLE, WORD, query_terms, token_roles, word_forms
from .keyword_terms import _joined as _joined
from .ranking.query import STOPWORDS, QueryKind, classify_query
from .vectors import key_of

if TYPE_CHECKING:
    import tantivy
    from typing_extensions import Self

__all__ = ["KeywordBoosts", "KeywordDoc", "KeywordStore", "Tokenize"]

Tokenize = Callable[[list[str]], list[list[str]]]

#: The name the whitespace + lowercase analyzer is registered under on every open: tantivy keeps
#: the name in the schema but not the analyzer itself.
TOKENIZER = "sharc_code"

#: Tokens longer than this are dropped on both sides (minified code, base64 blobs).
_MAX_TOKEN_CHARS = 100

#: Distinct query tokens beyond this are ignored: a pasted file is not a query.
_MAX_QUERY_TOKENS = 64
#: A hit: its id and score first (`search`), its key after them (`search_keyed`).
_Hit = TypeVar("_Hit", tuple[str, float], tuple[str, float, "int | None"])

_WRITER_HEAP_BYTES = 64_000_000


@dataclass(frozen=True, slots=True)
class KeywordDoc:
    """One chunk as the keyword index sees it.

    `symbol` and `fqn` are the name and qualified name of the symbol the chunk defines (empty
    for text chunks); `body` is the header and the code. `key` defaults to `key_of(id)`.
    """

    id: str
    path: str
    body: str
    symbol: str = ""
    fqn: str = ""
    language: str = ""
    tier: int = 0
    kind: str = ""
    key: int | None = None

    @classmethod
    def from_chunk(cls, chunk: Any) -> KeywordDoc:
        """Build from a `sharc._core.Chunk` (or anything with the same attributes)."""
        return cls(
            id=chunk.id,
            path=chunk.path,
            body=f"{chunk.header}\n{chunk.code}",
            symbol=chunk.symbol,
            fqn=chunk.fqn,
            language=chunk.language,
            tier=chunk.tier,
            kind=chunk.kind,
        )


@dataclass(frozen=True, slots=True)
class KeywordBoosts:
    """BM25 multipliers per field, and per kind of query token (a plain word counts 1)."""

    #: Measured on the quality sets: a larger symbol boost (6, 2) lost up to 7 MRR points on
    #: natural-language queries and gained nothing on identifier queries.
    symbol: float = 1.0
    path: float = 2.0
    body: float = 1.0
    whole_identifier: float = 2.0
    #: The split words of an identifier in the query are a fallback for code that spells it
    #: differently: `find_user_by_email` must not outrank callers of `getUserById`.
    identifier_part: float = 0.1
    #: `get_user_by_id` for a query `getUserById` (and the other way round).
    spelling_variant: float = 0.5
    #: Questions in words: another English form of a word (`plugin` for `plugins`, `parse`
    #: for `parsing`; `word_forms`), next to the word itself.
    word_form: float = 0.5


def _default_tokenize(texts: list[str]) -> list[list[str]]:
    from ._core import code_tokens_batch

    return code_tokens_batch(texts)


def _default_index_texts(texts: list[str]) -> list[str]:
    from ._core import index_text_batch

    return index_text_batch(texts)


class KeywordStore:
    """A tantivy index of chunk tokens. Open with `KeywordStore.open`."""

    def __init__(
        self,
        directory: Path,
        index: tantivy.Index,
        writer: tantivy.IndexWriter | None,
        *,
        tokenize: Tokenize,
        index_texts: Callable[[list[str]], list[str]],
        boosts: KeywordBoosts,
    ) -> None:
        """Use `KeywordStore.open`."""
        self._directory = directory
        self._index = index
        self._schema = index.schema
        self._writer = writer
        self._tokenize = tokenize
        self._index_texts = index_texts
        self._boosts = boosts
        # Opened on first use, and again after a commit: a writer that never searches (an
        # update) never loads the segment readers of a large index.
        self._current: tantivy.Searcher | None = None
        self._stale = False
        if writer is None:
            self._current = self._new_searcher()  # a reader searches: a damaged index fails here

    @classmethod
    def open(
        cls,
        directory: str | os.PathLike[str],
        *,
        writable: bool,
        tokenize: Tokenize | None = None,
        boosts: KeywordBoosts | None = None,
    ) -> KeywordStore:
        """Open (a writable store creates) the index in `directory`.

        `tokenize` splits text into tokens (default: the Rust `code_tokens`); with the default,
        documents are tokenized and joined in Rust in one call (`index_text_batch`).
        A writable store holds tantivy's writer lock until `close()`; a second writer raises
        `IndexLockedError`. A read-only store of a directory with no index raises
        `FileNotFoundError`; an unreadable index raises `IndexCorruptError`.
        """
        import tantivy

        directory = Path(directory)
        schema = _schema()
        if writable:
            directory.mkdir(parents=True, exist_ok=True)
            index = _guarded(
                directory, lambda: tantivy.Index(schema, path=os.fspath(directory), reuse=True)
            )
        else:
            if not (directory / "meta.json").is_file():
                raise FileNotFoundError(f"no keyword index in {directory}")
            index = _guarded(directory, lambda: tantivy.Index.open(os.fspath(directory)))
        if index.schema != schema:
            raise IndexCorruptError(
                f"keyword index {directory} was written with another schema; clear it to rebuild"
            )
        index.register_tokenizer(TOKENIZER, _analyzer())
        # Reloads happen only on `commit()` and `reload()`, so one search sees one snapshot.
        index.config_reader(reload_policy="manual")

        writer = None
        if writable:
            try:
                writer = index.writer(heap_size=_WRITER_HEAP_BYTES)
            except ValueError as error:
                if "LockBusy" in str(error):
                    raise IndexLockedError(
                        f"keyword index {directory} is being written by another process "
                        "(or another store in this one)"
                    ) from None
                raise IndexCorruptError(
                    f"keyword index {directory} is unreadable: {error}"
                ) from error

        return cls(
            directory,
            index,
            writer,
            tokenize=tokenize or _default_tokenize,
            index_texts=(
                _default_index_texts
                if tokenize is None
                else lambda texts: [_joined(tokens) for tokens in tokenize(texts)]
            ),
            boosts=boosts or KeywordBoosts(),
        )

    @property
    def directory(self) -> Path:
        return self._directory

    @property
    def writable(self) -> bool:
        return self._writer is not None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the writer lock. Changes not committed are dropped."""
        # Dropping the writer discards what was not committed, stops its merges and releases
        # the lock; a rollback first built a new writer (threads, memory) only to drop it:
        # 21 ms of each update of a 100k-chunk index, against 0.2 ms.
        self._writer = None

    # Writing

    def upsert(self, docs: Sequence[KeywordDoc], *, absent: Collection[str] = frozenset()) -> None:
        """Index `docs`, replacing any document with the same id. Visible after `commit()`.

        Ids in `absent` are known not to be in the index yet (new chunks): they are added
        without the delete that replacing takes, which tantivy holds in memory until the
        commit (on a cold index those deletes were most of the memory indexing grew by).
        """
        import tantivy

        writer = self._require_writer()
        if not docs:
            return
        texts: list[str] = []
        for doc in docs:
            texts.extend((doc.path, f"{doc.symbol} {doc.fqn}", doc.body))
        indexed = self._index_texts(texts)
        if len(indexed) != len(texts):
            raise SharcError(f"tokenizer returned {len(indexed)} index texts for {len(texts)} texts")
        for position, doc in enumerate(docs):
            path_text, symbol_text, body_text = indexed[3 * position : 3 * position + 3]
            document = tantivy.Document()
            document.add_text("id", doc.id)
            document.add_unsigned("key", doc.key if doc.key is not None else key_of(doc.id))
            document.add_text("path_raw", doc.path)
            document.add_text("path", path_text)
            document.add_text("symbol", symbol_text)
            document.add_text("body", body_text)
            document.add_text("language", doc.language)
            document.add_text("kind", doc.kind)
            document.add_unsigned("tier", max(0, int(doc.tier)))
            if doc.id not in absent:
                writer.delete_documents_by_term("id", doc.id)
            writer.add_document(document)

    def delete(self, ids: Iterable[str]) -> None:
        """Delete the documents of `ids`. Visible after `commit()`."""
        writer = self._require_writer()
        for chunk_id in ids:
            writer.delete_documents_by_term("id", chunk_id)

    def delete_paths(self, paths: Iterable[str]) -> None:
        """Delete every document of the files at `paths`. Visible after `commit()`."""
        writer = self._require_writer()
        for path in paths:
            writer.delete_documents_by_term("path_raw", path)

    def clear(self) -> None:
        """Delete every document, and commit."""
        writer = self._require_writer()
        writer.delete_all_documents()
        self.commit()

    def commit(self) -> None:
        """Make the changes so far durable and visible to this store's searches."""
        writer = self._require_writer()
        try:
            writer.commit()
        except ValueError as error:
            raise IndexCorruptError(
                f"keyword index {self._directory} could not be written: {error}"
            ) from error
        self._stale = True  # the next search sees this commit

    def rollback(self) -> None:
        """Drop the changes since the last commit."""
        self._require_writer().rollback()

    # Reading

    def reload(self) -> None:
        """See the latest commit (made by this store or by a writer in another process)."""
        try:
            self._index.reload()
        except ValueError as error:
            raise IndexCorruptError(
                f"keyword index {self._directory} is unreadable: {error}"
            ) from error
        self._stale = False
        self._current = self._new_searcher()

    @property
    def _searcher(self) -> tantivy.Searcher:
        if self._stale:
            self.reload()
        elif self._current is None:
            self._current = self._new_searcher()
        return self._current

    def count(self) -> int:
        """How many documents the last loaded commit holds."""
        return int(self._searcher.num_docs)

    def all_ids(self) -> set[str]:
        """Every indexed chunk id (for reconciliation with the manifest)."""
        import tantivy

        searcher = self._searcher
        total = searcher.num_docs
        if total == 0:
            return set()
        hits = self._run(
            lambda: searcher.search(tantivy.Query.all_query(), total, count=False).hits
        )
        return {self._stored_id(searcher, address) for _, address in hits}

    def search(
        self,
        query: str,
        limit: int,
        *,
        languages: Iterable[str] | None = None,
        path_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """The best `limit` chunk ids for `query` with their BM25 scores, best first.

        Any string is a valid query: it is tokenized like the code, never parsed, and a query
        with no tokens returns no results. `languages` keeps only those languages; `path_prefix`
        keeps paths that start with it (a plain string prefix: `src/` or `src/app.py`).
        """
        searcher, hits = self._hits(query, limit, languages, path_prefix)
        return _same_scores_by_id(
            [(self._stored_id(searcher, address), float(score)) for score, address in hits]
        )

    def key_scores(
        self,
        query: str,
        limit: int,
        *,
        languages: Iterable[str] | None = None,
        path_prefix: str | None = None,
    ) -> list[tuple[int | None, float]]:
        """`search` as each hit's `key` and BM25 score, read without the stored fields (a
        caller that knows which key is which, and wants only the scores)."""
        searcher, hits = self._hits(query, limit, languages, path_prefix)
        addresses = [address for _, address in hits]
        keys = self._run(lambda: searcher.fast_field_values("key", addresses)) if hits else []
        return [(key, float(score)) for (score, _), key in zip(hits, keys)]

    def search_keyed(
        self,
        query: str,
        limit: int,
        *,
        languages: Iterable[str] | None = None,
        path_prefix: str | None = None,
    ) -> list[tuple[str, float, int | None]]:
        """`search`, each hit with its chunk's key (its vector's key), read from the `key`
        fast field (None where a segment lacks it)."""
        searcher, hits = self._hits(query, limit, languages, path_prefix)
        addresses = [address for _, address in hits]
        keys = self._run(lambda: searcher.fast_field_values("key", addresses)) if hits else []
        return _same_scores_by_id([
            (self._stored_id(searcher, address), float(score), key)
            for (score, address), key in zip(hits, keys)
        ])

    def search_all_words(
        self,
        text: str,
        limit: int,
        *,
        languages: Iterable[str] | None = None,
        path_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """The best `limit` chunks whose code holds every token of `text`, as `search` gives
        them: where each word of a pasted message is common, the chunk that holds them all
        can rank below hundreds that hold most of them."""
        import tantivy

        [tokens] = self._tokenize([text])
        terms = list(dict.fromkeys(t for t in tokens if len(t) <= _MAX_TOKEN_CHARS))
        every = tantivy.Query.boolean_query([
            (tantivy.Occur.Must,
             tantivy.Query.term_query(self._schema, "body", term, index_option="freq"))
            for term in terms[:_MAX_QUERY_TOKENS]
        ]) if terms else None
        searcher, hits = self._searched(every, limit, languages, path_prefix)
        return _same_scores_by_id(
            [(self._stored_id(searcher, address), float(score)) for score, address in hits]
        )

    def _hits(
        self,
        query: str,
        limit: int,
        languages: Iterable[str] | None,
        path_prefix: str | None,
    ) -> tuple[tantivy.Searcher | None, list[tuple[float, tantivy.DocAddress]]]:
        if limit <= 0:
            return None, []
        [tokens] = self._tokenize([query])
        text_query = self._text_query(tokens, forms=classify_query(query) is not QueryKind.IDENTIFIER)
        return self._searched(text_query, limit, languages, path_prefix)

    def _searched(
        self,
        query: tantivy.Query | None,
        limit: int,
        languages: Iterable[str] | None,
        path_prefix: str | None,
    ) -> tuple[tantivy.Searcher | None, list[tuple[float, tantivy.DocAddress]]]:
        """The best `limit` hits of `query` (None: none) in `languages`, under `path_prefix`."""
        if query is None or limit <= 0:
            return None, []
        final = self._filtered(query, languages=languages, path_prefix=path_prefix)
        if final is None:
            return None, []
        searcher = self._searcher
        return searcher, self._run(lambda: searcher.search(final, limit, count=False).hits)

    # Internals

    def _require_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            raise SharcError(f"keyword index {self._directory} was opened read-only")
        return self._writer

    def _new_searcher(self) -> tantivy.Searcher:
        return self._run(self._index.searcher)

    def _run(self, action: Callable[[], Any]) -> Any:
        return _guarded(self._directory, action)

    def _stored_id(self, searcher: tantivy.Searcher, address: tantivy.DocAddress) -> str:
        return str(self._run(lambda: searcher.doc(address).get_first("id")))

    def _text_query(self, tokens: list[str], *, forms: bool = False) -> tantivy.Query | None:
        """A disjunction of term queries over the fields, each term weighted by its role;
        with `forms`, the plain words' other forms (`word_forms`) too, if room is left."""
        import tantivy

        boosts = self._boosts
        weights: dict[str, float] = {}
        role_weight = {
            WHOLE: boosts.whole_identifier,
            PART: boosts.identifier_part,
            WORD: 1.0,
        }
        roles = token_roles(tokens)
        if any(role != WORD or token not in STOPWORDS for token, role in roles):
            # Question words and glue ("how", "is", "the") match every docstring and comment.
            roles = [(t, r) for t, r in roles if r != WORD or t not in STOPWORDS]
        for token, role in roles:
            for term, is_variant in query_terms(token):
                if len(term) > _MAX_TOKEN_CHARS:
                    continue
                if term not in weights and len(weights) == _MAX_QUERY_TOKENS:
                    break
                weight = role_weight[role] * (boosts.spelling_variant if is_variant else 1.0)
                weights[term] = max(weights.get(term, 0.0), weight)
        if not weights:
            return None
        if forms:
            words = [token for token, role in roles if role == WORD]
            for form in self._indexed_forms(words, weights):
                if len(weights) == _MAX_QUERY_TOKENS:
                    break
                weights[form] = boosts.word_form
        clauses = []
        for token, weight in weights.items():
            for field, boost in (
                ("symbol", boosts.symbol),
                ("path", boosts.path),
                ("body", boosts.body),
            ):
                query = tantivy.Query.term_query(self._schema, field, token, index_option="freq")
                clauses.append(
                    (tantivy.Occur.Should, tantivy.Query.boost_query(query, boost * weight))
                )
        return tantivy.Query.boolean_query(clauses)

    def _indexed_forms(self, words: list[str], taken: Collection[str]) -> list[str]:
        """The other forms of `words` (`word_forms`) that some chunk's code holds, not
        already among the `taken` terms."""
        searcher = self._searcher
        forms = dict.fromkeys(
            form for word in words for form in word_forms(word) if form not in taken
        )
        return self._run(lambda: [form for form in forms if searcher.doc_freq("body", form)])

    def _filtered(
        self,
        text_query: tantivy.Query,
        *,
        languages: Iterable[str] | None,
        path_prefix: str | None,
    ) -> tantivy.Query | None:
        import tantivy

        filters = []
        if languages is not None:
            wanted = sorted(set(languages))
            if not wanted:
                return None
            filters.append(tantivy.Query.term_set_query(self._schema, "language", wanted))
        if path_prefix:
            # The paths under the prefix, from the term dictionary: no regex, so no size limit
            # and nothing to escape. Terms of deleted documents may remain; they match nothing.
            searcher = self._searcher
            paths = self._run(lambda: searcher.terms_with_prefix("path_raw", path_prefix))
            if not paths:
                return None
            filters.append(
                tantivy.Query.term_set_query(self._schema, "path_raw", [path for path, _ in paths])
            )
        if not filters:
            return text_query
        clauses = [(tantivy.Occur.Must, text_query)]
        clauses.extend(
            (tantivy.Occur.Must, tantivy.Query.const_score_query(query, 0.0)) for query in filters
        )
        return tantivy.Query.boolean_query(clauses)


def _same_scores_by_id(hits: list[_Hit]) -> list[_Hit]:
    """`hits` best first, hits of the same score in id order: tantivy orders them by where
    their documents lie, which differs between two indexes of the same files built in
    another order (a resumed or distributed build), and a search must not."""
    return sorted(hits, key=lambda hit: (-hit[1], hit[0]))


def _guarded(directory: Path, action: Callable[[], Any]) -> Any:
    """Run a tantivy read, turning its errors on damaged files into `IndexCorruptError`."""
    try:
        return action()
    except (ValueError, OSError) as error:
        raise IndexCorruptError(f"keyword index {directory} is unreadable: {error}") from error
    except BaseException as error:
        # A Rust panic in tantivy arrives as pyo3's PanicException, a BaseException.
        if type(error).__name__ != "PanicException":
            raise
        raise IndexCorruptError(
            f"keyword index {directory} is unreadable: tantivy panicked: {error}"
        ) from error


def _schema() -> tantivy.Schema:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_unsigned_field("key", indexed=True, fast=True)
    builder.add_text_field("path_raw", tokenizer_name="raw", index_option="basic")
    for field in ("path", "symbol", "body"):
        builder.add_text_field(field, tokenizer_name=TOKENIZER, index_option="freq")
    builder.add_text_field("language", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("kind", tokenizer_name="raw", index_option="basic")
    builder.add_unsigned_field("tier", indexed=True)
    return builder.build()


def _analyzer() -> tantivy.TextAnalyzer:
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
        .filter(tantivy.Filter.remove_long(_MAX_TOKEN_CHARS + 1))
        .filter(tantivy.Filter.lowercase())
        .build()
    )
