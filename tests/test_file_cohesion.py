"""How far each file's parts are about one thing (`sharc.file_cohesion`): the measure on known
vectors, then as the writer stores it on a real index with the real model, where a file of
date helpers holds together and a grab-bag of unrelated helpers does not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sharc
from sharc.file_cohesion import pair_similarity, raw_cohesion, scaled
from sharc.file_cohesion import reader as cohesion_reader
from sharc.manifest import Manifest
from sharc.vector_sets import DEFAULT_SET, FAST_SET
from sharc.vectors import normalize

DATES = '''
def parse_iso_date(text):
    """Parse an ISO 8601 date such as 2024-05-01 into a date."""
    year, month, day = (int(part) for part in text.split("-"))
    return datetime.date(year, month, day)


def format_iso_date(value):
    """Format a date as an ISO 8601 string, year-month-day."""
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def days_between_dates(start, end):
    """How many days lie between two dates."""
    return (end - start).days


def is_weekend_date(value):
    """Whether a date falls on a Saturday or a Sunday."""
    return value.weekday() >= 5
'''

GRAB_BAG = '''
def fetch_json(url):
    """Download a URL over HTTP and decode its JSON body."""
    with urllib.request.urlopen(url) as response:
        return json.load(response)


def matrix_product(a, b):
    """Multiply two matrices given as lists of rows."""
    return [[sum(x * y for x, y in zip(row, column)) for column in zip(*b)] for row in a]


def file_checksum(path):
    """The SHA-256 digest of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def reverse_words(sentence):
    """A sentence with its words in reverse order."""
    return " ".join(reversed(sentence.split()))
'''


def test_the_measure_is_one_for_parts_all_alike_and_zero_at_the_baseline() -> None:
    rng = np.random.default_rng(7)
    direction = normalize(rng.normal(size=(1, 64)))
    alike = normalize(np.repeat(direction, 5, axis=0) + 1e-4 * rng.normal(size=(5, 64)))
    assert scaled(raw_cohesion(alike), 0.3) == pytest.approx(1.0, abs=1e-3)
    scattered = normalize(rng.normal(size=(400, 64)))
    baseline = pair_similarity(scattered)
    assert abs(baseline) < 0.02
    assert scaled(raw_cohesion(scattered[:16]), baseline) < 0.2
    # Below the baseline clips to 0, as parts less alike than random say nothing more.
    opposed = np.vstack([direction, -direction, direction, -direction])
    assert scaled(raw_cohesion(opposed), 0.1) == 0
    assert pair_similarity(alike[:1]) == 0.0


def _measured(index: sharc.Index, paths: list[str]) -> dict[str, float]:
    manifest = index._reader_manifest()
    searched = index._vectors.choose(manifest, None)
    assert searched is not None
    read = cohesion_reader(manifest, searched.vector_set)
    assert read is not None
    return dict(read(paths))


def test_the_writer_measures_a_file_of_one_topic_above_a_grab_bag(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "dates.py").write_text("import datetime\n" + DATES)
    (root / "helpers.py").write_text("import json\n" + GRAB_BAG)
    (root / "tiny.py").write_text("def answer():\n    return 42\n")
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    heard: list[sharc.Progress] = []
    index.update(progress=heard.append)
    # Each set's measure reports its files, after the set is saved, before the update ends.
    measuring = [p for p in heard if p.phase == "measuring"]
    assert {p.vectors for p in measuring} == {"fast", "default"}
    assert all(p.files_done == p.files_total == 3 for p in measuring)
    phases = [p.phase for p in heard]
    assert phases.index("ready") < phases.index("measuring") and phases[-1] == "done"
    assert [p.percent for p in measuring] == [55.0, 99.0]
    fast = cohesion_reader(index._reader_manifest(), FAST_SET)  # each set measured apart
    assert fast is not None and set(fast(["dates.py", "helpers.py"])) == {"dates.py", "helpers.py"}
    cohesion = _measured(index, ["dates.py", "helpers.py", "tiny.py", "gone.py"])
    assert cohesion["dates.py"] > cohesion["helpers.py"] + 0.1
    assert 0.0 <= cohesion["helpers.py"] < 1.0
    # Too few parts to tell, or no such file: no value, so it counts as one thing.
    assert "tiny.py" not in cohesion and "gone.py" not in cohesion

    # A changed file is measured again by the update that embeds it; until then (its
    # content no longer the one measured, after an update that embeds nothing) it has no
    # value.
    (root / "helpers.py").write_text("import datetime\n" + DATES.replace("_date", "_day"))
    index.update(embed=False)
    assert "helpers.py" not in _measured(index, ["helpers.py"])
    index.update()
    again = _measured(index, ["dates.py", "helpers.py"])
    assert again["helpers.py"] > cohesion["helpers.py"] + 0.1
    assert "dates.py" in again  # unchanged: kept (its scale moves with the baseline)
    (root / "helpers.py").unlink()
    index.update()
    assert "helpers.py" not in _measured(index, ["helpers.py"])


def test_an_index_from_before_the_measure_is_measured_whole_by_its_next_update(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "dates.py").write_text("import datetime\n" + DATES)
    index = sharc.Index.open(root, index_dir=tmp_path / "index", fast_vectors=False)
    index.update()
    manifest = Manifest(tmp_path / "index" / "manifest.sqlite", writable=True)
    manifest.cohesion(DEFAULT_SET).clear()
    manifest.commit()
    manifest.close()
    searched = index._vectors.choose(index._reader_manifest(), None)
    assert searched is not None
    assert cohesion_reader(index._reader_manifest(), searched.vector_set) is None
    assert index.update().chunks_embedded == 0  # nothing changed: the measure alone
    assert "dates.py" in _measured(index, ["dates.py"])
