"""The learned combination's weights (`sharc.ranking.learned`), written by
`python -m benches.quality.learn_repos train --variant pure --write`, not by hand:
trained on the repository benchmark's dev repositories (L2 penalty 1, chosen by
cross-validation over them)."""

WEIGHTS: tuple[tuple[str, float], ...] = (
    ('keyword', 3.00733),
    ('semantic', 2.22658),
    ('keyword_identifier', 0.90483),
    ('semantic_identifier', -1.51723),
    ('keyword_natural', -2.0459),
    ('semantic_natural', 2.15776),
    ('keyword_rank', 2.1903),
    ('semantic_rank', -0.726102),
    ('cosine', 3.91981),
    ('both_arms', 0.832943),
    ('symbol_exact', 2.70677),
    ('symbol_case_insensitive', -9.67993),
    ('qualified', 4.10054),
    ('type_definition', 12.5837),
    ('extending', -7.97948),
    ('definition_file', 1.24355),
    ('name_words', -0.832729),
    ('path_stem_words', -3.06645),
    ('path_directory_words', -2.34714),
    ('coherence', 0.678388),
    ('file_candidates', -0.0241361),
    ('file_best', -0.348216),
    ('lines', 0.881918),
    ('fragment', -0.457106),
    ('test', -4.92663),
    ('example', -3.55287),
    ('generated', -0.83124),
    ('declaration', -4.91085),
    ('docs', -5.65764),
    ('docs_asked', 0.786125),
    ('config', -4.59579),
    ('other_code', -5.37715),
)
BIAS = -0.70918
