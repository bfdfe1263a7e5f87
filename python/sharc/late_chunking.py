"""Late chunking's bookkeeping: which tokens each chunk's span covers, the windows that cover a
long file, and the running sums the window outputs are pooled into.

Pure numpy over a tokenizer's output; the encoder that fills the windows is `sharc.embedding`
(`Embedder.embed_late`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer


@dataclass(frozen=True)
class Span:
    """A half-open range ``[start, end)`` of character offsets into a text."""

    start: int
    end: int


@dataclass
class LateFile:
    """One file of a late-chunking batch: its windows and the running sums of its spans."""

    starts: np.ndarray  # token range [starts, ends) of each span
    ends: np.ndarray
    sums: np.ndarray  # float64 [spans, dimension]
    counts: np.ndarray  # int64 [spans]
    windows: list[tuple[int, int, int, int]] = field(default_factory=list)


def as_span(span: Span | tuple[int, int], length: int) -> Span:
    if not isinstance(span, Span):
        span = Span(int(span[0]), int(span[1]))
    if not 0 <= span.start <= span.end <= length:
        raise ValueError(f"span {span} is outside the text (length {length})")
    return span


def special_frame(tokenizer: Tokenizer) -> tuple[list[int], list[int]]:
    """The special tokens the tokenizer puts before and after one sequence ([CLS] ... [SEP])."""
    encoding = tokenizer.encode("a", add_special_tokens=True)
    content = [i for i, special in enumerate(encoding.special_tokens_mask) if not special]
    if not content:
        return list(encoding.ids), []
    return list(encoding.ids[: content[0]]), list(encoding.ids[content[-1] + 1 :])


def late_state(
    body: Encoding, spans: list[Span], size: int, overlap: int, dimension: int
) -> LateFile:
    """Token ranges of the spans and the windows that cover them."""
    count = len(body.ids)
    offsets = np.asarray(body.offsets, dtype=np.int64).reshape(count, 2)
    token_starts = offsets[:, 0]
    token_ends = np.maximum.accumulate(offsets[:, 1]) if count else offsets[:, 1]
    span_starts = np.array([s.start for s in spans], dtype=np.int64)
    span_ends = np.array([s.end for s in spans], dtype=np.int64)
    # Tokens overlapping [start, end): the first whose end is past start, up to the last that
    # begins before end.
    first = np.searchsorted(token_ends, span_starts, side="right")
    last = np.searchsorted(token_starts, span_ends, side="left")
    last = np.where(span_starts == span_ends, first, np.maximum(first, last))
    state = LateFile(
        starts=first,
        ends=last,
        sums=np.zeros((len(spans), dimension), dtype=np.float64),
        counts=np.zeros(len(spans), dtype=np.int64),
    )
    overlap = min(overlap, max(0, size // 4))
    if count <= size:
        bounds = [(0, count)]
    else:
        stride = size - overlap
        window_starts = list(range(0, count - size, stride)) + [count - size]
        bounds = [(start, start + size) for start in window_starts]
    # Each token belongs to one window: overlaps split at their middle, where a token is
    # equally far from the edges of both windows.
    cuts = [0] + [(bounds[k][0] + bounds[k - 1][1]) // 2 for k in range(1, len(bounds))] + [count]
    wanted = first < last
    for k, (start, end) in enumerate(bounds):
        own_start, own_end = cuts[k], cuts[k + 1]
        if own_end > own_start and np.any(wanted & (first < own_end) & (last > own_start)):
            state.windows.append((start, end, own_start, own_end))
    return state


def accumulate(state: LateFile, owned: np.ndarray, own_start: int, own_end: int) -> None:
    """Add the vectors of tokens [own_start, own_end) to the sums of the spans holding them."""
    prefix = np.zeros((owned.shape[0] + 1, owned.shape[1]), dtype=np.float64)
    np.cumsum(owned, axis=0, dtype=np.float64, out=prefix[1:])
    low = np.clip(state.starts, own_start, own_end) - own_start
    high = np.clip(state.ends, own_start, own_end) - own_start
    high = np.maximum(high, low)
    state.sums += prefix[high] - prefix[low]
    state.counts += high - low
