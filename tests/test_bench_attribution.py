"""Where a wrong first result came to lead (`benches.quality.attribution`): the stage that put
it ahead, read from two explanations, and which arms ranked it higher; and the per-question
oracle over stored results."""

from __future__ import annotations

from sharc.ranking.explain import DEFINITION, ArmPlace, Explanation

from benches.quality.attribution import arms_at_fusion, blame, oracle


def _explained(fused: float, *stages: tuple[str, float], **arms: int) -> Explanation:
    return Explanation(
        arms={arm: ArmPlace(rank, 1.0) for arm, rank in arms.items()}, fused=fused, stages=stages
    )


def test_the_stage_that_put_the_wrong_file_ahead_is_named() -> None:
    target = _explained(0.8, ("penalties", 0.8), keyword=2, semantic=1)
    assert blame(_explained(0.9, keyword=1, semantic=3), target) == "fusion"
    assert blame(_explained(0.7, ("files first", 0.95), keyword=1), target) == "files first"
    assert blame(_explained(0.7, ("boosts", 0.75), ("whole file", 0.85)), target) == "whole file"
    assert blame(_explained(0.7), target) == "tie"  # it trails at every stage
    lifted = Explanation(arms={}, fused=0.1, first=(DEFINITION,))
    assert blame(lifted, target) == "first"


def test_the_arms_that_ranked_the_wrong_chunk_higher() -> None:
    target = _explained(0.8, keyword=5, semantic=2)
    assert arms_at_fusion(_explained(0.9, keyword=1, semantic=1), target) == "both"
    assert arms_at_fusion(_explained(0.9, keyword=9, semantic=1), target) == "semantic"
    assert arms_at_fusion(_explained(0.9, keyword=1, semantic=4), target) == "keyword"
    # An arm that returned neither chunk ranked neither higher; one it did not return is last.
    assert arms_at_fusion(_explained(0.9, semantic=1), _explained(0.8, semantic=2)) == "semantic"
    assert arms_at_fusion(_explained(0.9, semantic=3), _explained(0.8, keyword=4)) == "semantic"


def test_the_oracle_takes_the_best_list_per_question_then_averages_repositories() -> None:
    def entry(category: str, hybrid: float, keyword: float, semantic: float) -> dict:  # type: ignore[type-arg]
        scores = {"hybrid": hybrid, "keyword": keyword, "semantic": semantic}
        return {"split": "dev", "category": category,
                **{mode: {"file_ndcg": value} for mode, value in scores.items()}}

    results = {"queries": {
        "a-01": entry("topic", 0.5, 1.0, 0.0),
        "a-02": entry("topic", 1.0, 0.0, 0.5),
        "b-01": entry("semantic", 0.2, 0.1, 0.6),
        "c-01": {**entry("topic", 0.0, 0.0, 0.0), "split": "test"},
    }}
    found = oracle(results, "dev")
    assert found["topic"] == {"hybrid": 75.0, "better arm": 75.0, "best of three": 100.0}
    assert found["all"] == {"hybrid": 47.5, "better arm": 67.5, "best of three": 80.0}
