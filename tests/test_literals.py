"""Text a query quotes from the code (`sharc.ranking.literals`): the chunk that holds it comes
first, in a real index."""

from __future__ import annotations

from pathlib import Path

import pytest
import sharc
from sharc.ranking.literals import MIN_WORDS, PASTED_DEPTH, QUOTED_DEPTH, asked_literal, holds


@pytest.mark.parametrize(
    ("query", "text", "depth"),
    [
        ("ValueError: due dates must carry a timezone", "due dates must carry a timezone",
         QUOTED_DEPTH),
        ("error: unknown option --verbose", "unknown option --verbose", QUOTED_DEPTH),
        ("where does 'a task needs a title' come from", "a task needs a title", QUOTED_DEPTH),
        ('who raises "titles are limited"?', "titles are limited", QUOTED_DEPTH),
        ("""where does "can't open '{path}'" come from""", "can't open '{path}'", QUOTED_DEPTH),
        ("The `timeout` option must be a number", "The `timeout` option must be a number",
         PASTED_DEPTH),
        ("plugin not found", "plugin not found", PASTED_DEPTH),
        ("task titles are limited to 200 characters", "task titles are limited to 200 characters",
         PASTED_DEPTH),
    ],
)
def test_a_message_pasted_or_quoted_is_read(query: str, text: str, depth: int) -> None:
    assert asked_literal(query) is not None
    assert (asked_literal(query).text, asked_literal(query).depth) == (text, depth)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "query",
    [
        "how are tasks stored",  # a question
        "find the code that stores tasks",  # a request
        "where is the config loaded from disk",
        "TaskStore",
        '"TaskStore"',  # one word in quotes is a name
        "retry backoff",  # fewer than MIN_WORDS words
        "ValueError: x",  # a message of one word
    ],
)
def test_a_question_or_a_name_quotes_nothing(query: str) -> None:
    assert len("retry backoff".split()) < MIN_WORDS
    assert asked_literal(query) is None


def test_holding_reads_case_and_runs_of_spaces_alike() -> None:
    assert holds('raise ValueError(\n    "Due dates  must carry\ta timezone")', "due dates must carry")
    assert not holds("due dates must be aware", "due dates must carry")


@pytest.fixture
def built(small_repo: Path, tmp_path: Path) -> sharc.Index:
    index = sharc.Index.open(small_repo, index_dir=tmp_path / "index")
    index.update()
    return index


@pytest.mark.parametrize(
    "query",
    [
        "ValueError: due dates must carry a timezone",
        "due dates must carry a timezone",
        "where does 'due dates must carry a timezone' come from",
    ],
)
def test_the_chunk_that_holds_a_pasted_message_comes_first(
    built: sharc.Index, query: str
) -> None:
    first = built.search(query, limit=3)[0]
    assert first.path == "taskboard/models.py"
    assert holds(first.code, "due dates must carry a timezone")
    # The question as asked ranks the rest, the way it did before.
    assert len(built.search(query, limit=3)) == 3


def test_a_message_whose_every_word_is_common_is_found_by_the_chunk_holding_them_all(
    tmp_path: Path,
) -> None:
    # 300 short helpers each say all but one of the message's words, some twice; the one
    # long function that raises it says each of them once, so BM25 ranks it below them all.
    words = ["missing", "type", "map", "configuration", "or", "unsupported", "mapping"]
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    for number in range(300):
        said = " ".join(word for n, word in enumerate(words) if n != number % len(words))
        (root / "src" / f"helper_{number}.py").write_text(
            f"def helper_{number}(value):\n    # {said}, {said}\n    return value + {number}\n"
        )
    body = "".join(f"    step_{n} = plan.compile_step({n}, request)\n" for n in range(60))
    (root / "src" / "planner.py").write_text(
        "def build_execution_plan(plan, request):\n"
        + body
        + "    if plan.mapper is None:\n"
        "        raise LookupError('Missing type map configuration or unsupported mapping.')\n"
        "    return plan\n"
    )
    (root / "src" / "plans.py").write_text(
        "class ExecutionPlan:\n    def __init__(self, steps):\n        self.steps = steps\n"
    )
    (root / "src" / "notes.py").write_text(
        "def describe():\n    # Read the ExecutionPlan definition before changing a step.\n"
        "    return 'plans'\n"
    )
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    message = "Missing type map configuration or unsupported mapping."
    for query in (message, f'"{message}"', f"LookupError: {message}"):
        first = index.search(query, limit=3)[0]
        assert first.path == "src/planner.py", query
        assert holds(first.code, message.rstrip("."))
    # Words that ask for a definition are no message, though a comment says them.
    assert index.search("the ExecutionPlan definition", limit=1)[0].path == "src/plans.py"
    index.close()
