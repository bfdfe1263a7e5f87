"""The learned combination's weights (`sharc.ranking.learned`), written by
`python -m benches.quality.learn_repos train --variant pure --write`, not by hand:
trained on the repository benchmark's dev repositories (L2 penalty 1, chosen by
cross-validation over them)."""

WEIGHTS: tuple[tuple[str, float], ...] = (
    ('keyword', 0.247244),
    ('semantic', -0.988276),
    ('keyword_identifier', 1.99575),
    ('semantic_identifier', -0.370232),
    ('keyword_natural', 2.36204),
    ('semantic_natural', 3.2105),
    ('keyword_rank', 1.33935),
    ('semantic_rank', 0.843756),
    ('cosine', 2.73364),
    ('both_arms', 0.979686),
    ('symbol_exact', 5.54172),
    ('symbol_case_insensitive', -4.81569),
    ('qualified', 16.0768),
    ('type_definition', 13.0465),
    ('extending', -10.3427),
    ('definition_file', 4.82097),
    ('name_words', -1.08374),
    ('path_stem_words', -2.08141),
    ('path_directory_words', 0.971513),
    ('coherence', 3.54527),
    ('file_candidates', -0.162945),
    ('file_best', 0.260727),
    ('lines', 0.790361),
    ('fragment', 0.344507),
    ('test', -4.15301),
    ('example', -3.33318),
    ('vendored', -3.48967),
    ('declaration', -4.10194),
    ('docs', -6.86216),
    ('docs_asked', 1.3101),
    ('config', -5.57813),
    ('other_code', -3.46006),
)
BIAS = -0.811132
