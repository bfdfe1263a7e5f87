"""The learned combination's weights (`sharc.ranking.learned`), written by
`python -m benches.quality.learn_repos train --variant pure --write`, not by hand:
trained on the repository benchmark's dev repositories (L2 penalty 0.1, chosen by
cross-validation over them)."""

WEIGHTS: tuple[tuple[str, float], ...] = (
    ('keyword', 5.33191),
    ('semantic', 1.24262),
    ('keyword_identifier', -1.17842),
    ('semantic_identifier', -0.457664),
    ('keyword_natural', -4.28072),
    ('semantic_natural', 3.45787),
    ('keyword_rank', 2.29691),
    ('semantic_rank', -1.28131),
    ('cosine', 5.37306),
    ('both_arms', 0.80805),
    ('symbol_exact', 2.33847),
    ('symbol_case_insensitive', -21.8267),
    ('qualified', 4.68864),
    ('type_definition', 24.9512),
    ('extending', -23.5189),
    ('definition_file', 1.15732),
    ('name_words', -1.09766),
    ('path_stem_words', -2.53113),
    ('path_directory_words', -2.46057),
    ('coherence', 0.427733),
    ('file_candidates', -0.011303),
    ('file_best', -0.473279),
    ('lines', 0.968924),
    ('fragment', -1.45835),
    ('test', -6.63682),
    ('example', -5.52416),
    ('generated', -0.965767),
    ('docs', -7.82733),
    ('docs_asked', 1.95586),
    ('config', -6.50496),
    ('other_code', -7.58607),
)
BIAS = -0.131121
