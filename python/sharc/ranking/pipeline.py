"""The ranking pipeline, stage by stage: leave out the words about the search (`framing`),
classify the query, take candidates from each arm,
fuse, boost what the query names, lift coherent files, apply penalties, rank files by all
their candidates and by their whole text, put a name's definitions first, lift the files the
code graph links to the strongest hits, shape the list.

`rank` is handed the arms and a way to read candidate records; it opens nothing itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, NamedTuple

from sharc.ranking.asked import DefinitionFinder, SpellingFinder, asked_name
from sharc.ranking.boosts import apply_boosts, boost_bound, boost_parts
from sharc.ranking.coherence import apply_coherence
from sharc.ranking.crowding import crowded_out, file_count, filled, unasked, uncrowded_hits
from sharc.ranking.even import blend_files, even_file_order
from sharc.ranking.explain import (
    AFTER_THE_CODE,
    BOOSTS,
    COHERENCE,
    DEFINITIONS_FIRST,
    EVEN_OPINION,
    FAST_OPINION,
    FILES_FIRST,
    FOUND_DEEPER,
    LEARNED,
    LOCATED_LINE,
    NAMED_FILE,
    NEIGHBOURS,
    PENALTIES,
    QUOTED_TEXT,
    WHOLE_FILE,
    Trace,
    put_first,
    traced,
)
from sharc.ranking.files import FileCohesion, cohesion_gates, lift_files, rank_files, remembered
from sharc.ranking.framing import named_file, stripped_request
from sharc.ranking.fusion import FAST_SEMANTIC, KEYWORD, SEMANTIC, fuse
from sharc.ranking.graph import (
    GraphFacts,
    apply_neighbours,
    defined_names,
    seed_files,
    wants_neighbours,
)
from sharc.ranking.learned import LinearWeights, apply_learned
from sharc.ranking.literals import Literal, asked_literal, holds
from sharc.ranking.locations import asked_locations
from sharc.ranking.named_files import named_files_first
from sharc.ranking.penalties import apply_penalties, penalty_bound, penalty_parts
from sharc.ranking.query import (
    QueryIntent,
    QueryKind,
    classify_query,
    covers_words,
    in_words,
    share_held,
    word_starts,
)
from sharc.ranking.records import C, Scored
from sharc.ranking.settings import DEFAULT_SETTINGS, RankingSettings
from sharc.ranking.shaping import definitions_first, demoted_definitions, diversify, first_of
from sharc.ranking.visibility import DefinitionFacts

#: An arm: `(query, depth) -> [(chunk id, score)]`, best first.
Arm = Callable[[str, int], list[tuple[str, float]]]
#: Reads the records of candidate ids (missing ids are left out: deleted since).
RecordReader = Callable[[Sequence[str]], Mapping[str, C]]
#: Of the ids given, those the semantic arm could not have returned: chunks without a vector
#: (keyword-only by policy, or not embedded yet). Score fusion counts for them what the
#: keyword arm gave them, as a search without vectors would.
UnseenFinder = Callable[[Sequence[str]], Collection[str]]
#: The header, code and path of each chunk of those ids that still exists: what the keyword
#: share of a question in words looks at in the keyword arm's best hit (`covers_words`), and
#: a keyword-only search in each of its hits (`covered_hits`).
TextReader = Callable[[Sequence[str]], Mapping[str, str]]
#: `(query, paths) -> {path: share}`: how well each candidate file's whole text matches the
#: query, relative to the best file's (0-1; `sharc.file_keywords`).
FileEvidence = Callable[[str, Collection[str]], Mapping[str, float]]
#: `file name or path -> {path: ids of its first chunks}`: the indexed files of that name
#: (`request.js`) or whose path ends so (`lib/request.js`), in the order a tie between them
#: goes; empty where none is.
FileFinder = Callable[[str], Mapping[str, Sequence[str]]]
#: `(file as a query gives it, line) -> (indexed path, id of its chunk that holds the line)`,
#: None where no indexed file has that name (`Manifest.chunk_at`).
ChunkLocator = Callable[[str, int], tuple[str, str] | None]


@dataclass(frozen=True)
class Ranking(Generic[C]):
    """The candidates best first, the arms that returned hits and the kind of query."""

    candidates: list[Scored[C]]
    arms: tuple[str, ...]
    kind: QueryKind


#: Hits each arm returns per result asked for, past `RankingSettings.candidates`.
HITS_PER_RESULT = 3


def candidate_depth(limit: int, filtered: bool, minimum: int = 100) -> int:
    """How many hits each arm returns: enough for the stages to reorder and filter, and for
    files first to see several candidates per file. The same for every limit up to
    `minimum / HITS_PER_RESULT`, so that asking for more results does not change the first
    ones (ten per result made a search for 30 read 300 hits, and 16 of the repository
    benchmark's 471 dev questions put other files among their first three than a search for
    10 did)."""
    return max(minimum, limit * HITS_PER_RESULT) * (4 if filtered else 1)


def rank(
    query: str,
    arms: Mapping[str, Arm],
    read: RecordReader[C],
    *,
    limit: int = 10,
    settings: RankingSettings = DEFAULT_SETTINGS,
    accepts: Callable[[C], bool] | None = None,
    include_tests: bool | None = None,
    max_per_file: int | None = 2,
    graph: GraphFacts | None = None,
    defines: DefinitionFinder | None = None,
    unseen: UnseenFinder | None = None,
    read_text: TextReader | None = None,
    files: FileEvidence | None = None,
    spelled: SpellingFinder | None = None,
    files_named: FileFinder | None = None,
    locate: ChunkLocator | None = None,
    cohesion: FileCohesion | None = None,
    all_words: Arm | None = None,
    trace: Trace | None = None,
) -> Ranking[C]:
    """Every stage in order over the candidates of `arms`; `accepts` filters records; the
    graph neighbour stage reads `graph` (without it, the stage is off); `defines` spares a
    one-name query reading every candidate (see `rank_hits`); `unseen` names the keyword
    hits the vectors never judged; `read_text` reads the keyword arm's best hit, and the hits
    that may hold a message the query pastes (`asked_literal`; without it, the message is
    read as words); `files` scores candidate files by their whole text (without it, that
    lift is off); `spelled` finds a name asked for in another case (without it, names match
    in their case only); `files_named` finds the files a query names ("request.js";
    `named_files_first`); `locate` finds the chunks that hold the lines a query gives
    ("lib/app.ts:42", a stack trace); `cohesion` tells how far a file's parts count as
    its evidence (without it, fully); `all_words` finds the chunks that hold every word of a
    pasted message, where the keyword arm's best hits hold none of it. What the query points
    at (the text it pastes, the lines it gives) comes first of all (`first_of`). `trace`,
    when given, records why each candidate ranks where it does (`sharc.ranking.explain`)."""
    depth = candidate_depth(limit, accepts is not None, settings.candidates)
    located = _located(query, locate)
    if located is not None:  # the rest of the query ranks what follows; alone, the file
        query = located.rest or located.places[0][0].rsplit("/", 1)[-1]
    literal = asked_literal(query) if located is None and read_text is not None else None
    query = stripped_request(query)
    file_name = named_file(query) if files_named is not None else None
    named = files_named(file_name) if files_named is not None and file_name else {}
    name = None
    if named and file_name:
        query = file_name  # "the request file": what ranks among and after the files named
    else:
        name = asked_name(query, defines, spelled)
        query = name or query

    # The crowding of the first `crowded_window` results decides a re-search: they are ranked
    # exactly, however few results are asked for.
    exact = max(limit, settings.crowded_window) if settings.crowded_depth_factor > 1 else limit

    def ranked_from(
        hits: Mapping[str, Sequence[tuple[str, float]]], floor_rank: int = settings.floor_rank
    ) -> Ranking[C]:
        scaled = settings if floor_rank == settings.floor_rank else replace(
            settings, floor_rank=floor_rank
        )
        return rank_hits(
            query, hits, read, settings=scaled, accepts=accepts, include_tests=include_tests,
            max_per_file=max_per_file, limit=exact, graph=graph, defines=defines,
            unseen=unseen, read_text=read_text, files=files, cohesion=cohesion, trace=trace,
        )

    if FAST_SEMANTIC in arms and (settings.fast_opinion_share <= 0 or not in_words(query)):
        arms = {name: arm for name, arm in arms.items() if name != FAST_SEMANTIC}
    hits = {name: arm(query, depth) for name, arm in arms.items()}
    ranked = ranked_from(hits)
    exhausted = all(len(arm_hits) < depth for arm_hits in hits.values())
    intent = QueryIntent.of(query, ranked.kind, include_tests=include_tests)
    if not exhausted and crowded_out(ranked.candidates, intent, settings):
        crowding = [pair for pair in ranked.candidates if unasked(pair[0], intent)]
        carried = trace.carried(chunk.id for chunk, _ in crowding) if trace is not None else {}
        ranked = ranked_from(uncrowded_hits(query, arms, read, depth, intent, settings))
        ranked = _filled(ranked, crowding, trace, carried, AFTER_THE_CODE)
    elif not exhausted and settings.crowded_depth_factor > 1 and file_count(ranked.candidates) < limit:
        # One file's chunks can fill an arm's whole list (BM25 alone: `CLI::App` in App.hpp's
        # hundred methods): the other files asked for lie deeper.
        carried = trace.carried(c.id for c, _ in ranked.candidates) if trace is not None else {}
        factor = settings.crowded_depth_factor
        deeper = {name: arm(query, depth * factor) for name, arm in arms.items()}
        # Scaled over the deeper lists, so that their later hits keep scores (and penalties).
        more = ranked_from(deeper, settings.floor_rank * factor).candidates
        ranked = _filled(ranked, more, trace, carried, FOUND_DEEPER)
    candidates = ranked.candidates
    if named:
        candidates = named_files_first(
            candidates, named, read, accepts=accepts, max_per_file=max_per_file
        )
        put_first(trace, [c.id for c, _ in candidates if c.path in named], NAMED_FILE)
    # A query that asks for a file or a definition by name pastes no message: "the Sequence
    # definition" asks for `class Sequence`, not for a comment that says those words.
    if literal is not None and read_text is not None and KEYWORD in arms and not (named or name):
        # A message pasted bare is the query: its keyword hits are at hand.
        keyword = hits[KEYWORD] if literal.text == query else arms[KEYWORD](literal.text, depth)
        holders = _holders(literal, keyword, read_text, candidates)
        if not holders and all_words is not None:
            # Each of its words common, the chunk that holds them all ranked lower.
            every = all_words(literal.text, literal.depth)
            holders = _holders(literal, every, read_text, candidates)
        candidates = first_of(candidates, holders, read, accepts=accepts)
        put_first(trace, holders, QUOTED_TEXT)
    if located is not None:
        places = [chunk_id for _, chunk_id in located.places]
        candidates = first_of(candidates, places, read, accepts=accepts)
        put_first(trace, places, LOCATED_LINE)
    return Ranking(candidates, ranked.arms, ranked.kind)


def _holders(
    literal: Literal,
    keyword: Sequence[tuple[str, float]],
    read_text: TextReader,
    candidates: Sequence[Scored[C]],
) -> list[str]:
    """The keyword arm's best `literal.depth` hits that hold the quoted text, in the
    ranking's order (penalties and all: the code that raises a message before the test that
    expects it), then those the ranking left out, in the arm's."""
    texts = read_text([chunk_id for chunk_id, _ in keyword[: literal.depth]])
    holding = {chunk_id for chunk_id, text in texts.items() if holds(text, literal.text)}
    ranked = [chunk.id for chunk, _ in candidates if chunk.id in holding]
    return ranked + [chunk_id for chunk_id, _ in keyword if chunk_id in holding - set(ranked)]


class _Located(NamedTuple):
    """The rest of a query that gives file-and-line locations, and the `(path, chunk id)` of
    each that an indexed file holds, innermost frame first."""

    rest: str
    places: list[tuple[str, str]]


def _located(query: str, locate: ChunkLocator | None) -> _Located | None:
    """What `query` gives by file and line (`asked_locations`), None where it gives nothing
    an indexed file holds."""
    asked = asked_locations(query) if locate is not None else None
    if asked is None or locate is None:
        return None
    places = [found for where in asked.locations if (found := locate(where.file, where.line))]
    return _Located(asked.rest, places) if places else None


def _filled(
    ranked: Ranking[C],
    more: Sequence[Scored[C]],
    trace: Trace | None,
    carried: Mapping[str, tuple[Any, ...]],
    stage: str,
) -> Ranking[C]:
    """`ranked` with the places it leaves filled from `more` (`crowding.filled`)."""
    return Ranking(filled(ranked.candidates, more, trace, carried, stage), ranked.arms, ranked.kind)


def rank_hits(
    query: str,
    hits: Mapping[str, Sequence[tuple[str, float]]],
    read: RecordReader[C],
    *,
    settings: RankingSettings = DEFAULT_SETTINGS,
    accepts: Callable[[C], bool] | None = None,
    include_tests: bool | None = None,
    max_per_file: int | None = 2,
    limit: int | None = None,
    graph: GraphFacts | None = None,
    defines: DefinitionFinder | None = None,
    unseen: UnseenFinder | None = None,
    read_text: TextReader | None = None,
    files: FileEvidence | None = None,
    cohesion: FileCohesion | None = None,
    trace: Trace | None = None,
) -> Ranking[C]:
    """The stages after the arms have answered: `hits` maps each arm to its `(id, score)`
    hits, best first (benchmarks replay stored hits through here).

    With a `limit`, the first `limit` candidates are exact, but the list may stop there:
    records are read in blocks, best fused score first, until no unread candidate could reach
    the top `limit` whatever its boosts (`_score_blocks`). A query that is one name lifts the
    candidates that define it above all others, wherever they are in the fused order: they
    are read first when `defines` can name them, else every candidate is read. The hits of
    `FAST_SEMANTIC` are not fused: they make the fast opinion (`_blended_opinion`)."""
    fast = hits.get(FAST_SEMANTIC, ())
    hits = {name: arm_hits for name, arm_hits in hits.items() if name != FAST_SEMANTIC}
    kind = classify_query(query)
    answered = tuple(name for name, arm_hits in hits.items() if arm_hits)
    if settings.files_first and len(answered) < 2:
        # Files first is for fused searches: an arm searched alone ranks its own chunks
        # (semantic-only CoSQA dev MRR 45.0 with it, 51.3 without).
        settings = replace(settings, files_first=False)
    if answered == (KEYWORD,) and kind is QueryKind.NATURAL_LANGUAGE and read_text is not None:
        hits = {KEYWORD: covered_hits(query, hits[KEYWORD], read_text, settings)}
    shares = _fusion_settings(query, kind, hits, settings, read_text)
    fused = fuse(hits, kind, shares, _unseen_keyword_hits(hits, settings, unseen))
    if trace is not None:
        trace.begin(hits, fused)
    intent = QueryIntent.of(query, kind, include_tests=include_tests, fused=len(answered) > 1)
    neighbours = graph is not None and wants_neighbours(intent, settings)
    lifts_definitions = settings.definitions_first and intent.single_name
    file_shares = None
    if (
        files is not None
        and settings.file_keyword_lift > 0
        and kind is not QueryKind.IDENTIFIER
        and len(answered) > 1
    ):
        file_shares = functools.partial(files, query)
    # Coherence, graph neighbours and the learned combination read every candidate of a file
    # or query, and so does a search for a name's definitions that cannot look them up: any
    # unread candidate may be one.
    whole = (
        limit is None
        or settings.coherence_lift > 0
        or settings.files_first
        or file_shares is not None
        or settings.combination == "learned"
        or neighbours
        or (lifts_definitions and defines is None)
    )
    definitions: Mapping[str, DefinitionFacts] = {}
    if lifts_definitions and defines is not None and fused:
        ids = [chunk_id for chunk_id, _ in fused]
        if KEYWORD in answered:
            # The definitions no arm returned join the candidates with no score of their own
            # (a name is lexical evidence: not for the vectors searched alone); definitions
            # first places them by how surely each is the one meant.
            definitions = defines(ids, intent.identifiers)
            returned = set(ids)
            fused = [*fused, *((i, 0.0) for i in definitions if i not in returned)]
        else:
            definitions = defines(ids, intent.identifiers, missed=False)
    cohesion = remembered(cohesion) if cohesion is not None else None
    candidates = _score_blocks(
        fused, read, intent, settings, accepts,
        None if whole else (limit or 1, max_per_file or len(fused) or 1),
        first=definitions.keys(),
        demoted=demoted_definitions(definitions, intent),
        facts=definitions,
        file_shares=file_shares,
        cohesion=cohesion,
        trace=trace,
    )
    if neighbours and graph is not None:
        seeds = seed_files(candidates, settings.neighbour_seeds)
        linked = graph.linked_files(seeds, defined_names(candidates)) if seeds else {}
        candidates = traced(
            trace, NEIGHBOURS, apply_neighbours(candidates, seeds, linked, settings)
        )
    if settings.combination == "learned":
        weights = LinearWeights.of(settings)
        candidates = traced(
            trace, LEARNED, apply_learned(candidates, hits, intent, settings, weights)
        )
    opinions = len(answered) > 1 and in_words(query)  # the rule `rank` searches the fast arm by
    if opinions and settings.even_share > 0:
        candidates = traced(trace, EVEN_OPINION, _blended_opinion(
            query, hits, candidates, read, intent, settings, settings.even_share, cohesion
        ))
    if opinions and fast and settings.fast_opinion_share > 0:
        fast_hits = {KEYWORD: hits[KEYWORD], FAST_SEMANTIC: fast}
        candidates = traced(trace, FAST_OPINION, _blended_opinion(
            query, fast_hits, candidates, read, intent, settings, settings.fast_opinion_share,
            cohesion,
        ))
    candidates.sort(key=lambda pair: -pair[1])
    if max_per_file:
        candidates = diversify(candidates, max_per_file=max_per_file)
    return Ranking(candidates, tuple(hits), kind)


def _blended_opinion(
    query: str,
    hits: Mapping[str, Sequence[tuple[str, float]]],
    candidates: Sequence[Scored[C]],
    read: RecordReader[C],
    intent: QueryIntent,
    settings: RankingSettings,
    share: float,
    cohesion: FileCohesion | None,
) -> list[Scored[C]]:
    """`candidates` with their files merged with the even ranking's order of `hits`' files
    (`sharc.ranking.even`) at `share`, each file's share times its cohesion gate."""
    records = _hit_records(hits, read)
    gates = cohesion_gates({r.path for r in records.values()}, cohesion, settings)
    order = even_file_order(query, hits, records, tests=intent.tests, gates=gates)
    return blend_files(candidates, order, share, settings.even_k, gates)


def _hit_records(
    hits: Mapping[str, Sequence[tuple[str, float]]], read: RecordReader[C]
) -> Mapping[str, C]:
    """The records of every arm's hits (read once by the search's record cache)."""
    return read(list(dict.fromkeys(chunk_id for arm in hits.values() for chunk_id, _ in arm)))


def _fusion_settings(
    query: str,
    kind: QueryKind,
    hits: Mapping[str, Sequence[tuple[str, float]]],
    settings: RankingSettings,
    read_text: TextReader | None,
) -> RankingSettings:
    """`settings`, the keyword share of a question in words raised to `covered_keyword` when
    the keyword arm's best hit holds every one of its words (`covers_words`)."""
    keyword = hits.get(KEYWORD)
    if (
        read_text is None
        or kind is not QueryKind.NATURAL_LANGUAGE
        or settings.covered_keyword <= settings.natural_keyword
        or not keyword
        or not hits.get(SEMANTIC)
    ):
        return settings
    text = read_text([keyword[0][0]]).get(keyword[0][0])
    if text is None or not covers_words(query, text):
        return settings
    return replace(settings, natural_keyword=settings.covered_keyword)


def covered_hits(
    query: str,
    hits: Sequence[tuple[str, float]],
    read_text: TextReader,
    settings: RankingSettings,
) -> list[tuple[str, float]]:
    """The keyword arm's hits for a question in words searched by BM25 alone, each score times
    the share of the question's content words its chunk holds (in some form), to the power
    `keyword_coverage`, best first: BM25 sums its words' weights, and a chunk that repeats
    one rare word of the question outranks the one that holds them all. Searched with the
    vectors, the fused score has that evidence already."""
    if settings.keyword_coverage <= 0:
        return list(hits)
    wanted = word_starts(query)
    if len(wanted) < 2:
        return list(hits)
    texts = read_text([chunk_id for chunk_id, _ in hits])

    def share(chunk_id: str) -> float:
        text = texts.get(chunk_id)
        return 1.0 if text is None else share_held(text, wanted)

    covered = [(i, score * share(i) ** settings.keyword_coverage) for i, score in hits]
    return sorted(covered, key=lambda hit: -hit[1])


def _unseen_keyword_hits(
    hits: Mapping[str, Sequence[tuple[str, float]]],
    settings: RankingSettings,
    unseen: UnseenFinder | None,
) -> Collection[str]:
    """The keyword hits the semantic arm could not have returned (asked only about those the
    vectors did not return)."""
    semantic, keyword = hits.get(SEMANTIC), hits.get(KEYWORD)
    if unseen is None or settings.method != "score" or not semantic or not keyword:
        return ()
    returned = {chunk_id for chunk_id, _ in semantic}
    return unseen([chunk_id for chunk_id, _ in keyword if chunk_id not in returned])


#: Records read per block by `_score_blocks`: a search reads one to three.
READ_BLOCK = 64


def _score_blocks(
    fused: Sequence[tuple[str, float]],
    read: RecordReader[C],
    intent: QueryIntent,
    settings: RankingSettings,
    accepts: Callable[[C], bool] | None,
    top: tuple[int, int] | None,
    *,
    first: Collection[str] = (),
    demoted: Mapping[str, int] | None = None,
    facts: Mapping[str, DefinitionFacts] | None = None,
    file_shares: Callable[[Collection[str]], Mapping[str, float]] | None = None,
    cohesion: FileCohesion | None = None,
    trace: Trace | None = None,
) -> list[Scored[C]]:
    """Boosts, coherence, penalties, files first (with the evidence of whole files,
    `file_shares`; each file's evidence as far as `cohesion` says its parts are about one
    thing) and definitions first over the candidates of `fused`, read best first.

    Without `top`, every candidate is read at once. With `top = (limit, max_per_file)` (and
    coherence and files first off, so each candidate's score is its own), records are read in
    blocks until the
    next fused score times the largest lift any candidate can get (`boost_bound`,
    `penalty_bound`) falls below the score of the `limit`-th candidate so far that shaping
    keeps (at most `max_per_file` per file): shaping keeps higher-scored candidates of other
    files ahead, so no unread candidate can enter the top `limit`. The ids in `first` (the
    only ones `definitions_first` may lift) are read before the others, so that bound holds
    for every unread candidate; those in `demoted` follow the others of their tier."""
    bound = boost_bound(intent, settings) * penalty_bound(settings)
    # Read whole, the candidates are ranked as files before definitions come first: both
    # look across blocks.
    blockwise = top is not None
    candidates: list[Scored[C]] = []
    if first:
        defining = [pair for pair in fused if pair[0] in first]
        candidates += _score_block(
            defining, read, intent, settings, accepts, (demoted, facts), blockwise, trace
        )
        fused = [pair for pair in fused if pair[0] not in first]
    block = max(1, len(fused)) if top is None else READ_BLOCK
    for start in range(0, len(fused), block):
        if top is not None and (start or first):
            threshold = _kept_score(candidates, *top)
            if threshold is not None and fused[start][1] * bound < threshold:
                break
        candidates += _score_block(
            fused[start : start + block], read, intent, settings, accepts, (demoted, facts),
            blockwise, trace,
        )
    if blockwise:
        return candidates
    paths = {chunk.path for chunk, _ in candidates}
    gates = None
    if settings.files_first or file_shares is not None:
        gates = cohesion_gates(paths, cohesion, settings)
    candidates = traced(trace, FILES_FIRST, rank_files(candidates, settings, gates))
    if file_shares is not None and candidates:
        candidates = traced(trace, WHOLE_FILE, lift_files(
            candidates, file_shares(paths), settings.file_keyword_lift, gates
        ))
    return traced(trace, DEFINITIONS_FIRST, definitions_first(
        candidates, intent, settings, demoted=demoted, facts=facts
    ))


def _score_block(
    block: Sequence[tuple[str, float]],
    read: RecordReader[C],
    intent: QueryIntent,
    settings: RankingSettings,
    accepts: Callable[[C], bool] | None,
    declared: tuple[Mapping[str, int] | None, Mapping[str, DefinitionFacts] | None],
    shaped: bool,
    trace: Trace | None = None,
) -> list[Scored[C]]:
    """The stages up to shaping over one block of fused candidates, their records read;
    `shaped`: definitions first too (the stage that looks across files comes after)."""
    records = read([chunk_id for chunk_id, _ in block])
    fresh = [
        (records[chunk_id], score)
        for chunk_id, score in block
        if chunk_id in records and (accepts is None or accepts(records[chunk_id]))
    ]
    fresh = traced(
        trace, BOOSTS, apply_boosts(fresh, intent, settings),
        lambda chunk: boost_parts(chunk, intent, settings),
    )
    fresh = traced(trace, COHERENCE, apply_coherence(fresh, settings))
    fresh = traced(
        trace, PENALTIES, apply_penalties(fresh, intent, settings),
        lambda chunk: penalty_parts(chunk, intent, settings),
    )
    if not shaped:
        return fresh
    demoted, facts = declared
    # Read in blocks, a definition in another case than the query's is not lifted: the bound
    # that stops the reading holds for those of the query's case (`definition_tier`).
    return traced(trace, DEFINITIONS_FIRST, definitions_first(
        fresh, intent, settings, demoted=demoted, facts=facts, any_case=False
    ))


def _kept_score(candidates: Sequence[Scored[C]], limit: int, max_per_file: int) -> float | None:
    """The score of the `limit`-th candidate shaping keeps, or None if fewer."""
    per_file: dict[str, int] = {}
    kept = 0
    for chunk, score in sorted(candidates, key=lambda pair: -pair[1]):
        count = per_file.get(chunk.path, 0)
        per_file[chunk.path] = count + 1
        if count < max_per_file:
            kept += 1
            if kept == limit:
                return score
    return None
