"""The learned combination's weights (`sharc.ranking.learned`), written by
`python -m benches.quality.learn_repos train --variant pure --write` (that benchmark's code is
in git, 5389e58), not by hand:
trained on the repository benchmark's dev repositories (L2 penalty 1, chosen by
cross-validation over them)."""

WEIGHTS: tuple[tuple[str, float], ...] = (
    ('keyword', 0.249465),
    ('semantic', 2.00959),
    ('keyword_identifier', 6.38073),
    ('semantic_identifier', -2.66899),
    ('keyword_natural', 2.44241),
    ('semantic_natural', 0.712865),
    ('keyword_rank', 1.22054),
    ('semantic_rank', -0.251168),
    ('cosine', 6.09507),
    ('both_arms', 0.951957),
    ('symbol_exact', 7.6002),
    ('symbol_case_insensitive', -4.15779),
    ('qualified', 14.3384),
    ('type_definition', 12.2543),
    ('extending', -8.69052),
    ('definition_file', 2.07553),
    ('name_words', -2.73825),
    ('path_stem_words', -3.52241),
    ('path_directory_words', -1.57107),
    ('coherence', 1.34982),
    ('file_candidates', -0.110356),
    ('file_best', -0.445552),
    ('lines', 0.770212),
    ('fragment', -1.08392),
    ('test', -4.74041),
    ('example', -3.51856),
    ('generated', -0.29658),
    ('vendored', -3.08918),
    ('declaration', -4.46882),
    ('docs', -5.83108),
    ('docs_asked', 0.234742),
    ('config', -5.07875),
    ('other_code', -3.97238),
)
BIAS = -0.634241
