"""How a search ranks: one module per stage, pure functions over plain records.

1. `framing`: the words around a question that are about the search, left out. `asked`: a
   question about one name's definition, a name typed in another case or convention, or a
   member of a type named in words, searched as the name the code defines. `locations`:
   the lines a query gives by file and line (`app.ts:42`, a stack trace). `literals`: text
   it quotes from the code (an error message). `query`: what the
   query looks like (identifier, words, mixed) and asks for.
2. The arms (`sharc.keyword`, `sharc.vectors`) return candidates, handed in by `sharc.index`.
3. `fusion`: the arms' scores fused into one (score fusion, or RRF).
4. `boosts`: the definition of what the query names; names and files made of its words.
5. `coherence`: a file with several relevant chunks lifts its best one.
6. `penalties`: tests, docs, config, generated and vendored code, fragments.
7. `files`: files first: a file scores its best chunk plus a share of its next ones, and a
   file's later chunks come only where no other file is as strong.
8. `shaping`: a name's definitions first when the query is that name, the primary
   definition first; then `graph`: files the code graph links to the strongest hits (off by
   default); best first, no file filling the top; last, `named_files`: a file the query
   names ("request.js") before the rest, and the chunks that hold the text it quotes or a
   line it gives before all (`shaping.first_of`).
9. `crowding`: where tests or generated code crowd the first results, or one file's chunks
   fill an arm's whole list, the arms are asked again, deeper, and what that adds fills the
   places after the first ranking's: as many results as asked for.

`pipeline.rank` runs them in that order; every tunable number is in `RankingSettings`.
"""

from sharc.ranking.boosts import name_words_match, path_words_match
from sharc.ranking.framing import framed_name, stripped_request
from sharc.ranking.fusion import (
    FAST_SEMANTIC,
    KEYWORD,
    SEMANTIC,
    ArmWeights,
    fuse,
    normalize_scores,
    reciprocal_rank_fusion,
    score_fusion,
    weights_for,
)
from sharc.ranking.penalties import is_generated_path, is_test_path, is_vendored_path
from sharc.ranking.pipeline import Ranking, candidate_depth, rank, rank_hits
from sharc.ranking.query import (
    STOPWORDS,
    QueryIntent,
    QueryKind,
    classify_query,
    content_words,
    covers_words,
    qualified_names,
    query_identifiers,
    wants_config,
    wants_docs,
    wants_tests,
)
from sharc.ranking.settings import DEFAULT_SETTINGS, FUSION_METHODS, RankingSettings
from sharc.ranking.shaping import diversify, result_groups

__all__ = [
    "DEFAULT_SETTINGS",
    "FAST_SEMANTIC",
    "FUSION_METHODS",
    "KEYWORD",
    "SEMANTIC",
    "STOPWORDS",
    "ArmWeights",
    "QueryIntent",
    "QueryKind",
    "Ranking",
    "RankingSettings",
    "candidate_depth",
    "classify_query",
    "content_words",
    "covers_words",
    "diversify",
    "framed_name",
    "fuse",
    "is_generated_path",
    "is_test_path",
    "is_vendored_path",
    "name_words_match",
    "normalize_scores",
    "path_words_match",
    "qualified_names",
    "query_identifiers",
    "rank",
    "rank_hits",
    "reciprocal_rank_fusion",
    "result_groups",
    "score_fusion",
    "stripped_request",
    "wants_config",
    "wants_docs",
    "wants_tests",
    "weights_for",
]
