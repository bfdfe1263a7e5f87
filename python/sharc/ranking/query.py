"""Stage 1: what a query looks like and what it asks for, worked out once per search."""

from __future__ import annotations

import enum
import functools
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sharc.stems import english_stem


class QueryKind(enum.Enum):
    """What a query looks like, which decides how much each arm counts."""

    IDENTIFIER = "identifier"
    """One code-shaped token: `getUserById`, `HTTPException`, `os.path.join`, `parse()`."""
    NATURAL_LANGUAGE = "natural_language"
    """Plain words: `how are routes registered`."""
    MIXED = "mixed"
    """Words and identifiers together (`where is getUserById called`), or one plain word."""


_CODE_SHAPE = re.compile(
    r"""
      [a-z][A-Z]            # camelCase
    | (?<![A-Z])[A-Z]{2,}+[a-z]  # HTTPException (from a run's first capital, once)
    | [A-Za-z0-9]_[A-Za-z0-9] | ^_+[A-Za-z]   # snake_case, _private
    | \w\.\w                # os.path.join
    | \w:[A-Za-z_]          # Mode:attach (a Lua method)
    | :: | -> | \#\w        # Vec::new, ptr->field, Class#method
    | \w\(                  # call( or parse()
    | ^[A-Z][a-z0-9]+[A-Z]  # PascalCase with two words
    """,
    re.VERBOSE,
)
_ALL_CAPS = re.compile(r"[A-Z][A-Z0-9]+")


def is_code_shaped(token: str) -> bool:
    return bool(_CODE_SHAPE.search(token))


def classify_query(query: str) -> QueryKind:
    """Identifier, natural language, or mixed, from the query's shape alone."""
    tokens = query.split()
    if not tokens:
        return QueryKind.NATURAL_LANGUAGE
    code_shaped = [is_code_shaped(token) for token in tokens]
    if len(tokens) == 1:
        # Alone, an all-caps word is a constant (`MAX_RETRIES`, `HTTP`); in a sentence it is
        # more often an acronym (`how does the API cache`).
        alone_is_code = code_shaped[0] or _ALL_CAPS.fullmatch(tokens[0]) is not None
        return QueryKind.IDENTIFIER if alone_is_code else QueryKind.MIXED
    return QueryKind.MIXED if any(code_shaped) else QueryKind.NATURAL_LANGUAGE


_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def lower_words(text: str) -> set[str]:
    """The lowercase words of a text, identifiers split: `testLogin` gives test, login."""
    return {word.lower() for word in _WORD.findall(text)}


#: Plain query words that carry no signal in code search; identifiers are never dropped.
STOPWORDS = frozenset(
    """a an and any are as at be by can do does for from get give how i if in into is it its
    me my of on or should so that the their them then there these this to use used using was
    way we what when where which who why will with would you your""".split()
)


@functools.lru_cache(maxsize=65536)
def content_words(text: str) -> frozenset[str]:
    """The words of a query or a name that carry meaning, lowercase, plurals of words longer
    than four letters made singular: `getUserNames` and "get the user names" both give {user,
    name}."""
    words = (word.lower() for word in _WORD.findall(text) if len(word) > 1)
    return frozenset(singular(word) for word in words if word not in STOPWORDS)


def covers_words(query: str, text: str) -> bool:
    """Whether `text` holds every content word of `query`, each in some form (`word_starts`
    found at a word's or an identifier part's start): "how are plugins loaded" and
    `def load_plugin(name)`."""
    wanted = word_starts(query)
    return bool(wanted) and share_held(text, wanted) == 1.0


def share_held(text: str, starts: Sequence[str]) -> float:
    """The share of `starts` (`word_starts` of a question) that `text` holds at a word's or an
    identifier part's start (`holds_word_start`)."""
    if not starts:
        return 0.0
    lowered = lower_alike(text)
    return sum(holds_word_start(text, lowered, start) for start in starts) / len(starts)


def word_starts(query: str) -> list[str]:
    """For each content word of `query`, what its forms start with: the part the word, its
    singular and its English stem share, less a stem's closing `i` (`parsing` -> pars:
    parse, Parser, parsed; `registries` -> registr: registry). `holds_word_start` finds one
    in code, cheaper than stemming a text's every word."""
    starts = set()
    words = dict.fromkeys(w.lower() for w in _WORD.findall(query) if len(w) > 1)
    for word in [w for w in words if w not in STOPWORDS][:MAX_WORD_STARTS]:
        start = _shared_start(word, singular(word), english_stem(word))
        starts.add(start[:-1] if start.endswith("i") and len(start) > 3 else start)
    return sorted(start for start in starts if len(start) >= 2)


#: The first this many content words of a question count (the keyword arm searches its first
#: 64 terms): a pasted page of text is not read word by word in every hit.
MAX_WORD_STARTS = 64


def _shared_start(*forms: str) -> str:
    """What every one of `forms` starts with."""
    low, high = min(forms), max(forms)  # the others lie between them
    length = next((n for n, (a, b) in enumerate(zip(low, high)) if a != b), len(low))
    return low[:length]


def lower_alike(text: str) -> str:
    """`text` in lower case, letter for letter: where lowering changes the length (`İ` is two
    code points lowered), only ASCII letters are lowered, so positions still match."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def holds_word_start(text: str, lowered: str, start: str) -> bool:
    """Whether `text` (`lowered`: `lower_alike(text)`) has a word, or a part of an
    identifier (`loadPlugin`, `load_plugin`, `XMLParser`), that begins with `start`."""
    at = lowered.find(start)
    while at >= 0:
        before, first = text[at - 1] if at else " ", text[at]
        if not before.isalpha() or (first.isupper() and (
            before.islower() or text[at + 1 : at + 2].islower()
        )):
            return True
        at = lowered.find(start, at + 1)
    return False


def singular(word: str) -> str:
    """The form a word and its plural share: `cookies` and `cookie` -> cookie, `entries` and
    `entry` -> entrie (a matching key, not English), `boxes` -> box; short words stay."""
    if word.endswith("y") and len(word) >= 4 and word[-2] not in "aeiou":
        return word[:-1] + "ie"
    if len(word) <= 4 or not word.endswith("s") or word.endswith("ss"):
        return word
    if word.endswith("ies"):
        return word[:-1]
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1]


_TEST_WORDS = frozenset(
    """test tests testing tested unittest unittests pytest jest spec specs fixture fixtures
    mock mocks mocking conftest""".split()
)
_DOCS_WORDS = frozenset(
    """doc docs documentation documented readme guide guides tutorial changelog install
    installation installing faq manual""".split()
)
_EXAMPLE_WORDS = frozenset(
    "example examples sample samples demo demos benchmark benchmarks bench fuzz fuzzing".split()
)
_CONFIG_WORDS = frozenset(
    "config configs configuration configure settings yaml yml toml json ini env dockerfile"
    " manifest".split()
)


#: After `test(s)` or `spec(s)`, words that keep it the thing asked for: "test files for the
#: parser", "tests for printing", "the spec covering"; it is also asked for as the query's last
#: word ("parser tests"). Any other word after it, a stopword included, makes it the domain's
#: word: "fail a slow test by running it", "the tests that belong to a category", "mapping
#: specs are parsed" ask about a test framework's or a tool's own code.
_TEST_HEADS = frozenset(
    "file files suite suites covering cover covers coverage helper helpers util utils data"
    " double doubles for of about under".split()
)
#: Before `test`, words that name a kind of test: "unit test setup" asks for tests.
_TEST_KINDS = frozenset("unit integration e2e end regression snapshot smoke acceptance".split())
_TEST_NOUNS = frozenset("test tests spec specs".split())


#: Words for the kinds of file a query can leave out (`wants_tests`, `crowds`); not config:
#: "running without a config file" is a question about that code path.
EXCLUDABLE_KIND_WORDS = (
    _TEST_WORDS | _DOCS_WORDS | _EXAMPLE_WORDS
    | frozenset("vendor vendored generated third-party".split())
)


def wants_tests(query: str) -> bool:
    """The query asks about tests: test, spec, fixture, mock, or an identifier made of them
    (`test_login`). A plain `test(s)` or `spec(s)` asks for tests only where it heads what is
    asked (`_TEST_HEADS`, or the last word) or follows a kind of test ("unit test"); elsewhere
    it names the domain, as in a test framework's own code, and asks for no test files."""
    words = query.split()
    plain = [word.lower().strip(".,;:?!()'\"") for word in words]
    for position, (word, lower) in enumerate(zip(words, plain)):
        parts = lower_words(word)
        if parts != {lower}:  # an identifier (`testLogin`, `test_login`): its parts decide
            if not _TEST_WORDS.isdisjoint(parts):
                return True
        elif lower in _TEST_NOUNS:
            following = plain[position + 1] if position + 1 < len(plain) else ""
            before = plain[position - 1] if position else ""
            if not following or following in _TEST_HEADS or before in _TEST_KINDS:
                return True
        elif lower in _TEST_WORDS:
            return True
    return False


def wants_docs(query: str) -> bool:
    """The query asks about documentation: docs, readme, guide, how to install..."""
    return not _DOCS_WORDS.isdisjoint(lower_words(query)) or "getting started" in query.lower()


def wants_examples(query: str) -> bool:
    """The query asks for examples, samples, demos, benchmarks..."""
    return not _EXAMPLE_WORDS.isdisjoint(lower_words(query))


def wants_config(query: str) -> bool:
    """The query asks about configuration: config, settings, yaml, toml..."""
    return not _CONFIG_WORDS.isdisjoint(lower_words(query))


_INSTANCE_MEMBER = re.compile(r"\w#[A-Za-z_]\w*[?!=]?\W*$")
_SEGMENT = re.compile(r"\w+")
_SEGMENT_SEPARATOR = re.compile(r"::|->|[.#\\]|(?<=\w):(?=[A-Za-z_])")


def qualified_names(query: str) -> list[tuple[str, ...]]:
    """The identifiers a query names, each as its segments: `os.path.join()` -> (os, path,
    join), `Web::Engine` -> (Web, Engine), `Echo#start` -> (Echo, start), `Mode:attach` ->
    (Mode, attach).

    Every token of a one-token query counts; in a longer query only code-shaped tokens do.
    """
    tokens = query.split()
    if len(tokens) > 1:
        tokens = [token for token in tokens if is_code_shaped(token)]
    names = []
    for token in tokens:
        cleaned = re.sub(r"\(.*$", "", token.strip("()[]{}<>,;:'\"`?!"))
        segments = tuple(s for s in _SEGMENT_SEPARATOR.split(cleaned) if s)
        if segments and all(re.fullmatch(r"\w+", s) for s in segments):
            names.append(segments)
    return names


def respelled(name: str, spelling: Callable[[str], str | None]) -> tuple[str, bool]:
    """`name` with each segment that starts in lower case as `spelling` gives it, and whether
    its last segment is defined: `sidekiq::job` -> (`Sidekiq::Job`, True), `parse_git_dirty`
    -> parseGitDirty, `setNotFoundHandler` -> set_not_found_handler. A segment that starts
    with a capital is kept as typed, and counts only if defined so: whoever wrote `Job` or
    `FactoryBot` meant a type, not the method `job` or the file `factory_bot`. A segment that
    is not a word (`parse()`) is kept as typed. A qualified name is first asked for whole
    (its segments joined by dots): `sidekiq::job` is the module `Sidekiq::Job`, not the
    method `job` of some other part of `Sidekiq`."""
    parts = re.split(f"({_SEGMENT_SEPARATOR.pattern})", name)
    segments = parts[0::2]
    if len(segments) > 1 and all(_SEGMENT.fullmatch(segment) for segment in segments):
        whole = spelling(".".join(segments))
        if whole is not None and len(spelled := whole.split(".")) == len(segments):
            parts[0::2] = spelled
            return "".join(parts), True
    defined = False
    for position in range(0, len(parts), 2):
        segment = parts[position]
        spelled = spelling(segment) if _SEGMENT.fullmatch(segment) else None
        defined = spelled is not None and (
            spelled == segment or segment.lstrip("_")[:1].islower()
        )
        if defined and spelled is not None:
            parts[position] = spelled
    return "".join(parts), defined


def query_identifiers(query: str) -> list[str]:
    """The identifiers a query names, last segment of qualified names: `os.path.join()` ->
    join."""
    return [segments[-1] for segments in qualified_names(query)]


@dataclass(frozen=True, slots=True)
class QueryIntent:
    """What a query asks for, worked out once per search."""

    kind: QueryKind
    tests: bool
    docs: bool
    config: bool
    examples: bool
    #: The last segment of each identifier the query names.
    identifiers: tuple[str, ...]
    #: Identifiers with more than one segment, as their segments (`Web::Engine`).
    qualified: tuple[tuple[str, ...], ...] = ()
    #: The query's `content_words` where names made of them should rise (fused searches for
    #: words, not for a lone identifier); empty otherwise.
    words: frozenset[str] = frozenset()
    #: The whole query is one name (`Engine`, `Web::Engine`, `os.path.join()`): a search for
    #: its definition.
    single_name: bool = False
    #: The name's last part follows a `#`, Ruby's mark of an instance method (`Client#push`):
    #: a class method of that name is not what it asks for.
    instance_member: bool = False

    @classmethod
    def of(
        cls,
        query: str,
        kind: QueryKind | None = None,
        *,
        include_tests: bool | None = None,
        fused: bool = False,
    ) -> QueryIntent:
        """`include_tests` forces tests in (True) or down (False); None asks `wants_tests`.
        `fused`: both arms ran, so names made of the query's words may rise."""
        kind = kind or classify_query(query)
        names = () if kind is QueryKind.NATURAL_LANGUAGE else tuple(qualified_names(query))
        words_count = fused and kind is not QueryKind.IDENTIFIER
        return cls(
            kind=kind,
            tests=wants_tests(query) if include_tests is None else include_tests,
            docs=wants_docs(query),
            config=wants_config(query),
            examples=wants_examples(query),
            identifiers=tuple(segments[-1] for segments in names),
            qualified=tuple(segments for segments in names if len(segments) > 1),
            words=content_words(query) if words_count else frozenset(),
            single_name=len(names) == 1 and len(query.split()) == 1,
            instance_member=bool(_INSTANCE_MEMBER.search(query)),
        )


def in_words(query: str) -> bool:
    """Whether `query` is a question in words that is not one name: what the opinions on the
    order of files speak for (`pipeline.rank_hits`), told before the arms answer."""
    kind = classify_query(query)
    return kind is not QueryKind.IDENTIFIER and not QueryIntent.of(query, kind).single_name
