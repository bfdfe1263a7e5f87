"""What the ranking stages read about a candidate: plain records, no code."""

from __future__ import annotations

from typing import Protocol, TypeVar


class RankedChunk(Protocol):
    """What ranking reads from a candidate (`sharc.manifest.RankRecord` has it all); an
    optional `generated: bool` attribute marks generated code the path does not give away."""

    @property
    def id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def symbol(self) -> str: ...
    @property
    def fqn(self) -> str: ...
    @property
    def tier(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...


C = TypeVar("C", bound=RankedChunk)

#: A candidate and its score: every stage takes a list of these and returns a new one.
Scored = tuple[C, float]

#: A boost or penalty that applied to a candidate, named, with its factor: `(reason, factor)`
#: (what `sharc.ranking.explain` says of a stage).
Part = tuple[str, float]


def named(parts: list[Part] | None, reason: str, factor: float) -> float:
    """`factor`, recorded in `parts` under `reason` when a caller asks what applied."""
    if parts is not None:
        parts.append((reason, factor))
    return factor

#: Chunk tiers from `sharc._core`: 1 AST code, 2 docs, 3 config, 4 other code.
TIER_CODE = 1
TIER_DOCS = 2
TIER_CONFIG = 3
TIER_TEXT = 4

#: Chunk kinds that define a type: what a capitalised name most often means.
TYPE_KINDS = frozenset(
    "class struct interface trait protocol enum type record union object annotation".split()
)
#: Chunk kinds that add to a type defined elsewhere (`impl Error`, `extension Provider`).
EXTENDING_KINDS = frozenset({"impl", "extension"})
