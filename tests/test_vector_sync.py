"""The pending work of a vector sync as arrays: file order, blocks that keep a file whole, and
copies of one text grouped under their smallest key."""

from __future__ import annotations

import numpy as np
from sharc.manifest import ChunkPlace
from sharc.vector_sync import Places, _Copies

A, B, C = "a" * 32, "0" * 31 + "b", "c" * 16 + "0" * 16

PLACES = [
    ChunkPlace("src/b.py", 5, 11, A),
    ChunkPlace("src/a.py", 9, 12, B),
    ChunkPlace("src/a.py", 1, 13, A),
    ChunkPlace("src/b.py", 1, 14, C),
    ChunkPlace("src/c.py", 1, 3, B),
]


def test_places_are_in_path_then_line_order() -> None:
    places = Places.of(PLACES)
    assert places.keys.tolist() == [13, 12, 14, 11, 3]
    assert places.files.tolist() == [0, 0, 1, 1, 2]


def test_blocks_never_split_a_file() -> None:
    places = Places.of(PLACES)
    assert [block.tolist() for block in places.blocks(1)] == [[13, 12], [14, 11], [3]]
    assert [block.tolist() for block in places.blocks(3)] == [[13, 12, 14, 11], [3]]
    assert [block.tolist() for block in places.blocks(100)] == [[13, 12, 14, 11, 3]]


def test_copies_follow_the_smallest_key_of_their_text() -> None:
    places = Places.of(PLACES)
    copies = _Copies.of(places)
    assert dict(zip(copies.followers.tolist(), copies.leaders.tolist())) == {13: 11, 12: 3}
    assert places.without(copies.followers).keys.tolist() == [14, 11, 3]
    keys, rows = copies.spread(np.array([11, 3, 14]))
    # Each follower takes the row of its leader.
    assert sorted(zip(keys.tolist(), rows.tolist())) == [(3, 1), (11, 0), (12, 1), (13, 0), (14, 2)]


def test_vector_keys_differing_in_either_half_are_different_texts() -> None:
    low_differs = ["1" * 16 + "2" * 16, "1" * 16 + "3" * 16]
    places = Places.of(
        [
            ChunkPlace("x.py", line, line, key)
            for line, key in ((1, low_differs[0]), (2, low_differs[1]))
        ]
    )
    assert len(_Copies.of(places).followers) == 0


def test_nothing_pending() -> None:
    places = Places.of([])
    assert len(places) == 0 and list(places.blocks(32)) == []
    copies = _Copies.of(places)
    keys, rows = copies.spread(np.array([5], dtype=np.int64))
    assert keys.tolist() == [5] and rows.tolist() == [0]


def test_vector_keys_of_another_form_are_grouped_by_digest() -> None:
    keys = ((1, "vk0"), (2, "vk0"), (3, "VK0"))
    odd = [ChunkPlace("x.py", line, line, key) for line, key in keys]
    copies = _Copies.of(Places.of(odd))
    assert copies.followers.tolist() == [2] and copies.leaders.tolist() == [1]
