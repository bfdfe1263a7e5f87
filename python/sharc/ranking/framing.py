"""Stage 1, before the arms: how a query is framed does not change what it finds. The words
of a request for code around a question ("find the code responsible for ... in this
repository"), a clause that leaves a kind of file out ("..., not the tests") and a sentence
that only asks ("Where should I look?") are left out (`stripped_request`); a question about
one name's definition ("where is `Router` defined", "the Router class") is a search for the
name (`framed_name`)."""

from __future__ import annotations

import re

from sharc.ranking.query import EXCLUDABLE_KIND_WORDS, STOPWORDS, is_code_shaped

#: Words that ask for a name's definition: "where is `parse` defined", "the Router class".
_DEFINITION_WORDS = frozenset(
    """class classes constructor declaration declarations declare declared declares def
    define defined defines definition definitions enum fields fn func function functions
    implement implementation implementations implemented implements interface macro members
    method methods module namespace protocol record struct trait type""".split()
)
#: The other words of a question about one name that say nothing of which code it means.
#: Words that ask for something else (`used`, `calls`, `tests`, `example`) are not here: a
#: question holding one of them is not about the definition alone.
_FRAMING_WORDS = _DEFINITION_WORDS | frozenset(
    """a an code describe did do does explain find for has have how in is it its live lives
    locate located look me of please search show source that the these this those up was
    were what what's where where's which who why work works""".split()
)
_NAME = re.compile(r"[\w:.#\\()-]*[A-Za-z_][\w:.#\\()-]*")
#: Words for a kind of definition after its name ("the find method", "the lookup function"):
#: the word before one is a name, even a word that frames questions (`find`, `show`, `get`).
_KIND_AFTER_NAME = frozenset(
    "attribute class constructor enum field function macro member method property struct"
    " trait".split()
)
_ARTICLES = frozenset("a an its that the these this those".split())
#: A file's name or path: a name with an extension (`cJSON.c`, `lib/request.js`).
_FILE_NAME = re.compile(r"(?:[\w.-]+/)*[\w.-]*\w\.[A-Za-z][\w+-]{0,9}")
#: Words around a file's name in a request for the file: "the cJSON.c file", "open app.js".
_FILE_FRAMING_WORDS = _FRAMING_WORDS | frozenset(
    "at contents file files open opens read see view".split()
)
_QUOTES = "`'\""


#: Words for a piece of code, as a request names what it is after.
_CODE_NOUNS = (
    r"(?:code|logic|functions?|methods?|class(?:es)?|implementations?|modules?|files?|parts?"
    r"|places?|snippets?)"
)
#: How a request for code opens ("find the code that", "show me the functions for", "where is
#: the logic handling") and closes ("in this repository"): words about the search, not about
#: the code, which every chunk's vector and many keyword hits share.
_REQUEST_OPENING = re.compile(
    r"""^\s*(?:(?:please|can\s+you|could\s+you|i\s+need\s+to|i\s+want\s+to|help\s+me)\s+)*
    (?:
        # a request verb, then any word for code: "find the functions that"
        (?:find|show(?:\s+me)?|locate|search\s+for|look\s+for|get(?:\s+me)?|give\s+me
            |point\s+me\s+to|where\s+(?:is|are)|where's)\s+
        (?:(?:all|the|any|some)\s+)?(?:source\s+)?""" + _CODE_NOUNS + r"""\s+
        (?:that|which|responsible\s+for|for|where|handling|dealing\s+with|related\s+to
            |used\s+(?:for|to)|in\s+charge\s+of|to|of)
    |
        # no verb: only the words that mean code ("code that", "the logic for")
        (?:(?:all|the|any|some)\s+)?(?:source\s+)?(?:code|logic|implementations?)\s+
        (?:that|which|responsible\s+for|for|where|handling|dealing\s+with|related\s+to
            |used\s+(?:for|to)|in\s+charge\s+of|to|of)
    |
        # the asker's search: "I am looking for where", "I'm trying to find how"
        (?:i\s+am|i'm|we\s+are|we're)\s+(?:looking\s+for|trying\s+to\s+find)(?:\s+where)?
    |
        # which part holds it: "which file contains", "what module handles"
        (?:which|what)\s+""" + _CODE_NOUNS + r"""\s+
        (?:contains?|has|have|holds?|handles?|implements?|defines?|does|do
            |(?:is|are)\s+responsible\s+for|deals?\s+with|takes?\s+care\s+of)
    )\s+""",
    re.IGNORECASE | re.VERBOSE,
)
#: Words a sentence of a request alone is made of ("Where should I look?", "Show the
#: relevant functions."): such a sentence says nothing of the code.
_REQUEST_WORDS = STOPWORDS | frozenset(
    """show list give return find look search point locate relevant related code file files
    function functions method methods class classes module modules part parts place places
    snippet snippets implementation implemented start begin should could would need want
    help please thanks thank us our all""".split()
)
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
_REQUEST_CLOSING = re.compile(
    r"\s+(?:in|within|across|of)\s+(?:this|the|our|my)\s+"
    r"(?:repository|repo|codebase|code\s+base|project)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
#: The repository named as the place or the subject of a question: "in this repo, where
#: is ...", "where in the code is ...", "how does the codebase handle retries" (-> "handle
#: retries": at least two words are left).
_REPOSITORY_MENTION = re.compile(
    r"""(?:^\s*(?:in|within)\s+(?:this|the|our|my)\s+(?:repository|repo|codebase|code\s+base
            |project)\s*,?\s+
        |(?<=\bwhere)\s+in\s+(?:this|the|our|my)\s+(?:source\s+)?(?:code|codebase|code\s+base
            |repository|repo|project)\b
        |^\s*how\s+(?:does|do)\s+(?:the|this|our|my)\s+(?:codebase|code\s+base|code|project
            |repository|repo)\s+(?=\S+\s+\S))""",
    re.IGNORECASE | re.VERBOSE,
)


#: A clause that leaves a kind of file out: "not the tests", "excluding test files", "without
#: docs", "skip the examples". It names what is not wanted, so neither an arm nor the
#: intent (`wants_tests`...) may read it as asked for.
_NEGATION = (
    r"\b(?:but\s+)?(?:not|no|without|excluding|exclude|except(?:\s+for)?|ignore|ignoring"
    r"|skip|skipping|other\s+than|rather\s+than|instead\s+of)\s+"
    r"(?:(?:the|any|all|in|from|unit|integration)\s+)*"
    r"(?:" + "|".join(sorted(map(re.escape, EXCLUDABLE_KIND_WORDS), key=len, reverse=True)) + r")"
    r"(?:\s+(?:files?|code|directories|dirs?|folders?|ones|suites?))?\b"
)
#: The clause, or a whole parenthesis holding it ("(look in the source, not the tests)").
_NEGATED_KIND = re.compile(
    r"\s*\([^()]*" + _NEGATION + r"[^()]*\)|[,;]?\s*" + _NEGATION, re.IGNORECASE
)


def stripped_request(query: str) -> str:
    """The query without the words of a request for code around it: "Find the code
    responsible for retrying failed jobs in this repository" -> "retrying failed jobs", and
    without a clause that leaves a kind of file out ("retry logic, not the tests" -> "retry
    logic": the default leaves tests down already), and without the mark that ends a
    sentence ("Q." and "Q?" rank as Q). The query itself when that would leave nothing."""
    sentences = [
        sentence for sentence in _SENTENCE_END.split(query)
        if not {w.lower() for w in re.findall(r"[\w']+", sentence)} <= _REQUEST_WORDS
    ]
    stripped = " ".join(sentences) if sentences else query
    stripped = _REPOSITORY_MENTION.sub("", _NEGATED_KIND.sub("", stripped))
    stripped = _REQUEST_CLOSING.sub("", _REQUEST_OPENING.sub("", stripped, count=1), count=1)
    stripped = stripped.strip()
    if " " in stripped or stripped != query.strip():  # a sentence's end, not a name's (`empty?`)
        stripped = stripped.rstrip(".?!").rstrip()
    return stripped or query


def framed_name(query: str) -> tuple[str, bool] | None:
    """The one name a question about its definition asks for, and whether its shape says it
    is a name: "where is getUserById defined" -> (getUserById, True), "the Router class" ->
    (Router, False), "how does `parse` work" -> (parse, True). None when the query is not one
    name framed by such words (`_FRAMING_WORDS`): two names, or a word that asks for
    something else (`where is Router used`). A name whose shape does not say so (`Router`,
    `parse`, the `caching` of "how does caching work") is one only if something defines it;
    the caller looks that up."""
    framing = False
    remaining: list[tuple[str, bool]] = []
    tokens = query.split()
    named = _named_by_kind(tokens)
    for position, token in enumerate(tokens):
        bare = token.strip("?!.,;:")
        quoted = len(bare) > 1 and bare[0] in _QUOTES and bare[-1] == bare[0]
        word = bare.strip(_QUOTES)
        if position in named:
            framing = True
            remaining.append((word, quoted))
        elif not quoted and word.lower().replace("\u2019", "'") in _FRAMING_WORDS:
            framing = True
        elif word:
            remaining.append((word, quoted))
    if not framing or len(remaining) != 1:
        return None
    name, quoted = remaining[0]
    if not _NAME.fullmatch(name):
        return None
    return name, quoted or is_code_shaped(name)


def _named_by_kind(tokens: list[str]) -> set[int]:
    """The positions of the words a kind of definition follows ("the find method" -> `find`),
    articles and glue aside ("where is struct X"): names, whatever else such a word can
    mean."""
    return {
        position - 1
        for position, token in enumerate(tokens)
        if position
        and token.strip("?!.,;:") in _KIND_AFTER_NAME  # as typed: `Attribute` is a name
        and tokens[position - 1].lower() not in _ARTICLES | _KIND_AFTER_NAME | STOPWORDS
        and _NAME.fullmatch(tokens[position - 1].strip(_QUOTES))
    }


def named_file(query: str) -> str | None:
    """The one file a query asks for, with at most words that frame it: its name or path
    ("request.js", "lib/request.js", "where is `request.js`", "the cJSON.c file"), or its
    name without the extension where the query says `file` ("the request file" -> request).
    None otherwise; whether such a file is indexed is for the caller to look up
    (`Server.listen` looks like one)."""
    names, words, says_file, before_file = [], [], False, None
    previous = None
    for token in query.split():
        bare = token.strip("?!,;:").strip(_QUOTES).removeprefix("./")
        if _FILE_NAME.fullmatch(bare):
            names.append(bare)
        elif bare.lower() in ("file", "files"):
            says_file, before_file = True, before_file or previous
        elif bare.lower() not in _FILE_FRAMING_WORDS:
            words.append(bare)
        previous = bare
    if len(names) == 1 and not words:
        return names[0]
    if not names and says_file and len(words) == 1 and re.fullmatch(r"[\w-]+", words[0]):
        return words[0]
    # A file named by a word that frames questions ("the methods file": methods.rb, "the
    # class file"): the word right before `file`, where nothing else names one.
    if not names and not words and before_file and before_file.lower() in _DEFINITION_WORDS:
        return before_file
    return None


#: A directory a question names as the place to look: "retries in lib/queue/", "under
#: src/server", "in the pkg/cache directory" (a path: it has a `/`), or "in the lexer
#: package", "under the handlers folder" (a directory's name, with the word for one).
_SCOPE = re.compile(
    r"""(?<![\w/.@+-])
    (?:
        (?:(?:in|under|within|inside|from|of)\s+(?:the\s+)?)?
        [`'"]?(?P<directory>\.?/?(?:[\w.@+-]+/)+[\w.@+-]*)[`'"]?
        (?:\s+(?:directory|dir|folder|package|module|tree))?
    |
        (?:in|under|within|inside|from)\s+(?:the\s+)?
        [`'"]?(?P<name>[\w.@+-]+)[`'"]?\s+(?:directory|dir|folder|package)
    )
    (?=$|[\s,;:?!.)])""",
    re.VERBOSE | re.IGNORECASE,
)


def scoped_question(query: str) -> tuple[str, str] | None:
    """The question and the one directory it names as the place to look ("retries in
    lib/queue/" -> ("retries", "lib/queue"); "tokens in the lexer package" -> ("tokens",
    "lexer"), a directory's name), the clause that names it left out; None where it names
    none, or more than one, or only a place. A file's path is a file, not a place
    (`named_file`); which indexed directory a path or a name is, if any, is for the caller
    to look up ("and/or" looks like one)."""
    found = list(_SCOPE.finditer(query))
    if len(found) != 1:
        return None
    match = found[0]
    directory = (match.group("directory") or match.group("name")).removeprefix("./").strip("/")
    if not directory or _FILE_NAME.fullmatch(directory):
        return None
    question = query[: match.start()] + query[match.end() :]
    question = re.sub(r"\(\s*\)|\s{2,}", " ", question).strip(" ,;:")
    if not re.search(r"\w", question):
        return None
    return question, directory


#: How a question names a member of a type in words: "the listen method of Server" (`of`,
#: `in`, `on`, `from`: member first), "Server's listen method" or "Server listen" (type
#: first).
_MEMBER_OF = frozenset({"of", "in", "on", "from"})
#: Words for a member or a type around such a question.
_MEMBER_WORDS = _FRAMING_WORDS | frozenset(
    "attribute attributes field fields member members property properties".split()
)


def member_question(query: str) -> tuple[str, str] | None:
    """The type and the member a question names in words: "the listen method of Server" ->
    (Server, listen), "Server's listen method" and "how does Server listen work" -> (Server,
    listen), "parse in OParser" -> (OParser, parse). None where it names anything else;
    whether the type defines such a member is for the caller to look up ("errors in Parser"
    and "where is Router used" read the same)."""
    names: list[str] = []
    joins: list[str] = []
    tokens = query.split()
    named = _named_by_kind(tokens)
    for position, token in enumerate(tokens):
        bare = token.strip("?!.,;:").strip(_QUOTES)
        lowered = bare.lower().replace("\u2019", "'")
        if position in named:
            names.append(bare)
        elif lowered in _MEMBER_OF and len(names) == 1:
            joins.append(lowered)
        elif lowered.endswith("'s") and _NAME.fullmatch(bare[:-2]):
            names.append(bare[:-2])
            joins.append("'s")
        elif lowered not in _MEMBER_WORDS:
            if not _NAME.fullmatch(bare):
                return None
            names.append(bare)
    if len(names) != 2 or len(joins) > 1:
        return None
    first, second = names
    return (second, first) if joins and joins[0] in _MEMBER_OF else (first, second)
