"""Every tunable number of the ranking pipeline, in one settings object."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

#: `score`: convex combination of normalised scores; `rrf`: reciprocal rank fusion.
FUSION_METHODS = ("score", "rrf")
#: `hand`: the stages' factors as set here; `learned`: a linear model over the stages'
#: features (`sharc.ranking.learned`) has the last word.
COMBINATIONS = ("hand", "learned")


@dataclass(frozen=True, slots=True)
class RankingSettings:
    """How the arms are combined per query kind, and every boost and penalty after that.

    Fusion was tuned on dev data with a sweep (`benches/quality/tune.py`, in git at b3edf9c;
    MRR@10 over CoSQA dev, the CodeSearchNet-style sets and the hand-written queries); the
    boosts after it with
    `python -m benches.quality.repos --split dev` on the repository benchmark. No
    natural-language keyword share wins everywhere alone: CoSQA's short web queries want
    little, repository questions more; lifting the chunks whose names are made of the query's
    words (`name_words_lift`) gives the repository questions what a larger share gave them.
    """

    #: One of `FUSION_METHODS`.
    method: str = "score"
    #: The keyword arm's share of the fused score per query kind, 0-1; vectors get the rest.
    #: `natural_keyword` went from 0.15 to 0.1 with the keyword arm's word forms and the
    #: semantic floor score: the setting with the best repository dev NDCG@10 (82.6) that
    #: keeps CoSQA dev MRR at 51 (51.0; 50.7 at 0.15). The held-out repositories preferred
    #: 0.15 (80.6 against 81.1), which fails that floor.
    identifier_keyword: float = 0.85
    natural_keyword: float = 0.1
    mixed_keyword: float = 0.5
    #: A question in words whose every content word (in some form) the keyword arm's best hit
    #: holds, in its code, header or path, leans on BM25 this much instead: its words are all
    #: there. Chosen on dev data: 0.6 kept the repository dev NDCG@10 (+0.1) and CoSQA dev
    #: (MRR 51.05) and lifted the hand-written questions' MRR@10 65.0 -> 68.7 and the
    #: CodeSearchNet-style 53.0 -> 53.3; 0 (or any share not above `natural_keyword`) is off.
    covered_keyword: float = 0.6
    #: A question in words searched by BM25 alone (`mode="keyword"`, an index without
    #: vectors): each hit's score times the share of the question's content words its chunk
    #: holds, to this power (`pipeline.covered_hits`); 0 turns it off. Chosen on the
    #: repository benchmark's dev third: BM25-only file NDCG@10 78.0 -> 80.8, +2.8
    #: [+1.5, +4.1] at 1 (+2.5 at 0.5 and at 2); held out +1.8 [-0.0, +3.6]; keyword-only
    #: MRR@10 CoSQA dev +3.8 [+1.8, +5.8], hand-written +4.8 [+1.2, +8.9], CodeSearchNet-
    #: style -0.3 [-2.2, +1.7]. Fused searches gain nothing from it (-0.0 [-0.5, +0.4] on
    #: dev): the vectors hold that evidence.
    keyword_coverage: float = 1.0
    #: The RRF constant (method `rrf` only): larger flattens the difference between ranks.
    k: int = 20
    #: Score fusion: each arm's scores are scaled so its best hit is 1 and its hit at this
    #: rank (or its last, if fewer) is 0.
    floor_rank: int = 100
    #: Score fusion: the semantic arm's hit at `floor_rank` scores this, not 0 (its hits are
    #: scaled to this-1): a chunk among the vectors' best hundred keeps some credit against
    #: one only BM25 found. It stands in for a deeper floor (scaling to 0 at rank 300 gained
    #: as much on dev but searched the vectors 300 deep, 3 ms more at 100k chunks).
    semantic_floor_score: float = 0.15

    # -- boosts: what the query names ------------------------------------------------------
    #: For the chunk that defines the identifier the query names (a case-insensitive match
    #: gets half the lift).
    symbol_match_factor: float = 1.6
    #: On top of that, when the chunk's qualified name ends with the query's qualified name
    #: (`Web::Engine`, `os.path.join`).
    qualified_match_factor: float = 1.3
    #: On top of a symbol match, when the chunk's file is named after the symbol
    #: (`engine.rb` for `Engine`): the defining file of a class reopened elsewhere.
    definition_file_factor: float = 1.15
    #: On top of a symbol match: a type definition (class, struct, trait...) when the name is
    #: capitalised, rather than a constructor or a function of the same name.
    type_definition_factor: float = 1.3
    #: On top of a symbol match: an `impl` or `extension` block adds to a type defined
    #: elsewhere, so it gets this share of the lift.
    extending_definition_factor: float = 0.7
    #: A query that is one name (`Engine`, `Postgrex.query`): the chunks that define it come
    #: before every other chunk, the surest definition first (`definition_tier`), whatever
    #: the arms scored; multiplying alone cannot lift a definition that BM25 ranks low (a
    #: long doc comment, a name every file mentions) above the files that merely use it.
    definitions_first: bool = True
    #: Fused searches only: a chunk whose symbol name is made of the query's words
    #: (`betweenness_centrality` for "betweenness centrality of nodes") rises by up to this
    #: fraction (`name_words_match`).
    name_words_lift: float = 0.3
    #: Searches for words: a chunk whose file or directory is named by the query's words
    #: (`cookies.py` for "cookie handling") rises by up to this fraction.
    path_words_lift: float = 0.5

    # -- file coherence --------------------------------------------------------------------
    #: The best chunk of a file with several other relevant chunks rises by up to this
    #: fraction (`coherence`); 0 turns the stage off.
    coherence_lift: float = 0.0
    #: How many of a file's other chunks count as its evidence.
    coherence_chunks: int = 4

    #: Hits each arm returns at least (three per result asked for, if more:
    #: `pipeline.HITS_PER_RESULT`). 200 and 300 moved the repository benchmark's dev NDCG@10
    #: by less than 0.1.
    candidates: int = 100
    #: When chunks the query did not ask for (tests, examples, vendored or generated code)
    #: fill more than `crowded_share` of the top results and the arms had more to give, they
    #: search again this many times deeper and rank only the other chunks: in a repository
    #: made mostly of tests (AutoMapper), the arms' best hundred held no other code at all.
    #: 1 turns it off. Chosen on the repository benchmark's dev third: file NDCG@10 +1.2
    #: [+0.7, +1.9] (topic +1.8 [+0.5, +3.8]; a share of 0.5: +0.5 [+0.1, +1.1]; a factor of
    #: 3 or 8 as 4, which ranks every query of every set as 8 did at half its extra search);
    #: held-out third +0.3 [-0.2, +0.8]; MRR@10 CoSQA dev +0.0, CodeSearchNet-style +0.5
    #: [-0.1, +1.2], hand-written +0.8 [-2.4, +4.3].
    crowded_depth_factor: int = 4
    crowded_share: float = 0.3
    #: How many of the first results that share is read over, whatever the number of results
    #: asked for: a window that followed the limit gave a search for 8 or 12 results another
    #: first result than the same search for 10 (3 tests among the first 8, or 12, crowd them
    #: out; 3 among 10 do not), and the MCP tool's 3 results a far readier re-search than
    #: the 30 the repository benchmark measured. 30 is that measured window; against it, on
    #: the repository benchmark, 10 (what a search for ten results read) -0.5 [-0.9, -0.1] on
    #: dev and -0.3 [-0.6, +0.1] held out, 20 -0.2, 50 / 100 / 200 +0.2 / +0.1 / +0.2 (each
    #: interval holds zero); MRR@10 against 100 (what the function-level sets' searches for
    #: 100 read): CoSQA dev +0.0, CodeSearchNet-style -0.1 [-0.7, +0.4], hand-written +0.0.
    crowded_window: int = 30

    # -- files first (`sharc.ranking.files`) ------------------------------------------------
    #: Rank files by the evidence of all their candidates: a file's best chunk scores its own
    #: score plus `file_share` of its next `file_chunks` candidates' scores; a file's other
    #: chunks keep their own score times `repeat_factor`, so a second chunk of a file comes
    #: only where no other file is as strong. False turns the stage off. Chosen on the
    #: repository benchmark's dev third (fast model, the top 10 as returned): against the
    #: stage off, +2.1 [+1.3, +2.9]; `file_share` 0.15 / 0.5 and `file_chunks` 1 / 4 each did
    #: worse than 0.3 and 2. A `repeat_factor` of 0.5 / 0.25 gains more there (+3.5 / +3.7)
    #: but puts an exact function that is its file's second candidate far down: MRR on the
    #: CodeSearchNet-style sets -4.7 [-6.0, -3.3] against the stage off, -1.6 [-2.7, -0.5]
    #: at 1.0 (hand-written questions -3.6 / -1.6), so each chunk keeps its own score.
    files_first: bool = True
    file_share: float = 0.3
    file_chunks: int = 2
    repeat_factor: float = 1.0
    #: A file's other candidates and its whole text count as its evidence (files first,
    #: `file_keyword_lift`) in proportion to how far its parts are about one thing
    #: (`sharc.file_cohesion`: 0 for parts no more alike than any two chunks of the index,
    #: 1 for parts all alike): not at all up to `cohesion_floor`, fully from
    #: `cohesion_full`; a grab-bag file is judged by its best chunk alone. Equal values turn
    #: it off. Chosen on CoSQA dev, whose pool files are modules of 16 unrelated functions
    #: (cohesion median 0.35; the dev repositories' files mostly above 0.45): MRR@10 49.1 ->
    #: 50.3, +1.2 [-0.3, +2.6] (MRR 51.2); CodeSearchNet-style -0.0, hand-written +0.0.
    cohesion_floor: float = 0.3
    cohesion_full: float = 0.4
    #: A search grouped by file (`Index.search`'s default) shows each file's best hit with
    #: those of the file's other hits that score at least this share of it
    #: (`result_groups`). Chosen on the function-level sets, each hit counted where it is
    #: read (a file's hits under it), against the flat list of two hits per file (a probe
    #: over that list): MRR@10 CoSQA dev -0.3 [-0.6, +0.1], CodeSearchNet-style -0.2 [-0.9,
    #: +0.6], hand-written +0.3 [-1.5, +2.2] at 0.7 with two more per file; 0.9 / 0.8:
    #: CodeSearchNet-style -1.0 [-1.7, -0.4] (one more) / -0.6; 0.5: CoSQA dev -0.8 [-1.3,
    #: -0.4] (three more); no other hit at all: -0.5, -4.3 [-5.3, -3.3], -3.2 [-5.7, -1.2].
    #: As built: -0.3 [-0.7, +0.2], +0.6 [-0.3, +1.6], -0.4 [-3.2, +2.2]; the repository
    #: benchmark's top 10 as returned +2.0 [+1.5, +2.4] on dev, +1.9 [+1.3, +2.6] held out.
    same_file_share: float = 0.7
    #: Questions that are not one name, in fused searches: every candidate of a file rises by
    #: this fraction times the file's BM25 over its whole text relative to the best file's
    #: (`sharc.file_keywords`), so the file that covers the question's words across its
    #: functions comes before the helper whose one function matches best. 0 turns it off.
    #: Chosen on the repository benchmark's dev third against the lift off: +0.8 [+0.3, +1.3]
    #: (fast model +0.7 [+0.2, +1.1]); 0.5 / 1.0 / 1.5 did no better with the default model
    #: (84.4 each, 84.5 at 0.25) and cost CoSQA dev, whose modules are 16 unrelated functions
    #: each, so a file's text says nothing of one function: MRR@10 -0.8 [-2.3, +0.7] at 0.5,
    #: -2.3 [-4.2, -0.4] at 1.0, +0.1 [-0.9, +1.1] at 0.25.
    file_keyword_lift: float = 0.25

    # -- a second opinion (`sharc.ranking.even`): questions in words, fused searches -----
    #: The even ranking's share of a weighted reciprocal-rank merge of its file order with
    #: the staged one (constant `even_k`), times each file's cohesion gate; 0 turns it off.
    #: The stages were chosen one by one on the repository benchmark's dev questions, where
    #: the even ranking alone trails them by 2.9 [-4.2, -1.7], a lead the held-out
    #: repositories do not confirm (the even ranking alone +1.2 [-0.5, +3.1] there; a first
    #: prototype, `benches.quality.even_alone`'s probe: -5.1 / +0.9). Chosen on dev: 0.3
    #: keeps dev (+0.1 [-0.1, +0.4]; 0.5: -0.1 [-0.6, +0.4]); the fresh dev questions +0.5
    #: [-0.2, +1.1], asked tersely +0.6 [-0.1, +1.3]; CoSQA dev MRR@10 50.3 -> 50.5 (49.4
    #: without the gates, MRR -0.8 [-1.6, -0.1]: a grab-bag module's place in the even
    #: order is one of its parts'). Held out, seen before the choice: +1.8 [+0.8, +2.9].
    even_share: float = 0.3
    even_k: int = 10
    #: A third opinion, opt-in: where the index keeps the fast model's vectors beside the
    #: default model's (`sharc.fast_vectors`) and the search reads the default model's, the
    #: even ranking over the keyword arm's hits and the fast model's own nearest hundred
    #: (`fusion.FAST_SEMANTIC`), merged into the file order after the even opinion, as it is
    #: (this share, `even_k`, each file's cohesion gate); 0, the default, turns it off. Two
    #: encoders err differently: at 0.3 (0.15 / 0.5 did less on dev), against it off, file
    #: NDCG@10 on the repository benchmark's dev third +0.3 [-0.1, +0.7] (architecture +1.6
    #: [+0.6, +2.7]), held out +0.4 [-0.1, +0.9] (architecture +1.5 [+0.2, +2.8]); the fresh
    #: dev questions -0.1 [-1.0, +0.7], asked tersely +0.5 [-0.4, +1.3]; MRR@10 CoSQA dev -0.4
    #: [-1.0, +0.3] (MRR 51.3 -> 51.0), CodeSearchNet-style -0.3 [-0.8, +0.2], hand-written
    #: +0.6 [+0.0, +1.8]. It costs a second vector search and the reading of its hits: warm
    #: query p50 1.18x at 100k chunks (10.8 ms against 9.2 on an AMD EPYC), 1.24x at 10k,
    #: past the 10 ms budget at 100k, so it stays off. Judging the arms' own hits by the fast
    #: vectors instead of searching them (cheaper) gained nothing: dev -0.1 [-0.5, +0.3].
    fast_opinion_share: float = 0.0

    # -- graph neighbours (`sharc.ranking.graph`): questions in words only -----------------
    #: Every candidate of a file linked by a reference (either way) to one of the
    #: `neighbour_seeds` files of the strongest candidates rises by up to this fraction, times
    #: that file's score relative to the best; 0 turns the stage off. Off by default: at 0.5
    #: (chosen on dev) file NDCG@10 moved -0.2 [-1.2, +0.6] on dev (architecture +0.9) and
    #: -0.4 [-1.8, +1.0] on test (`benches/results/quality_repos_graph.json`).
    neighbour_lift: float = 0.0
    neighbour_seeds: int = 3

    # -- penalties: unless the query asks for that kind of file ----------------------------
    test_factor: float = 0.25
    example_factor: float = 0.4
    generated_factor: float = 0.5
    vendored_factor: float = 0.5
    docs_factor: float = 0.15
    config_factor: float = 0.75
    #: Questions in words: declarations without the code behind them (`*.d.ts`, `*.pyi`,
    #: `Interfaces/`), which answer "what is the shape" rather than "how does it work".
    declaration_factor: float = 0.5
    #: A chunk of at most `fragment_lines` lines (a one-line alias, constant or delegating
    #: method) that the query does not name is multiplied by this.
    fragment_factor: float = 0.7
    fragment_lines: int = 2

    # -- combination -----------------------------------------------------------------------
    #: One of `COMBINATIONS`. `learned` (trained on the repository benchmark's dev
    #: repositories, `benches.quality.learn_repos`) does not win clearly on the held-out ones:
    #: refit at stop 45, file NDCG@10 +0.4 [-1.6, +2.4] with definition at 1 89.2 against
    #: 97.3 (dev cross-validation -1.2 [-2.4, -0.0]); an earlier fit (+2.4 [-0.7, +5.3]) lost
    #: on the older sets (CoSQA dev MRR 48.1 against 51.3, CodeSearchNet-style MRR@10 47.0
    #: against 53.0); and it reads every candidate's features (about 4-5 ms more CPU per
    #: search at 100k chunks), so `hand` stays the default.
    combination: str = "hand"
    #: The learned combination's `(feature, weight)` pairs and bias; empty: the weights
    #: shipped in `sharc.ranking.learned_weights`.
    learned_weights: tuple[tuple[str, float], ...] = ()
    learned_bias: float = 0.0
    #: How many of the hand-tuned order's best candidates the learned combination rescores
    #: (None: all; 50 rescored costs less and lost 1.0 NDCG@10 on dev cross-validation).
    learned_depth: int | None = None

    def __post_init__(self) -> None:
        if self.method not in FUSION_METHODS:
            raise ValueError(f"fusion method must be one of {FUSION_METHODS}, got {self.method!r}")
        if self.combination not in COMBINATIONS:
            raise ValueError(
                f"combination must be one of {COMBINATIONS}, got {self.combination!r}"
            )
        shares = (
            self.identifier_keyword, self.natural_keyword, self.mixed_keyword,
            self.covered_keyword, self.even_share, self.fast_opinion_share,
        )
        if not all(0.0 <= share <= 1.0 for share in shares):
            raise ValueError(f"shares must lie in 0-1, got {shares}")
        lifts = (
            self.name_words_lift, self.path_words_lift, self.coherence_lift,
            self.neighbour_lift, self.file_share, self.file_keyword_lift,
        )
        if not 0.0 <= self.same_file_share <= 1.0:
            raise ValueError(f"same_file_share must lie in 0-1, got {self.same_file_share}")
        if min(lifts) < 0.0:
            raise ValueError(f"lifts must not be negative, got {lifts}")
        if self.keyword_coverage < 0.0:
            raise ValueError(f"keyword_coverage must not be negative, got {self.keyword_coverage}")

    def plain(self) -> RankingSettings:
        """These settings with fusion only: every boost and penalty neutral (for ablations)."""
        neutral = {
            field.name: 1.0
            for field in dataclasses.fields(self)
            if field.name.endswith("_factor")
        }
        lifts = {
            name: 0.0
            for name in (
                "name_words_lift", "path_words_lift", "coherence_lift", "neighbour_lift",
                "file_keyword_lift",
            )
        }
        return dataclasses.replace(
            self, **neutral, **lifts, definitions_first=False, files_first=False,
            even_share=0.0, fast_opinion_share=0.0,
        )


DEFAULT_SETTINGS = RankingSettings()
