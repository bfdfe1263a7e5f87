"""Many threads searching one `Index` while another process updates it: no error, and every
answer comes from one committed state (real model, usearch and tantivy).

The writer process rewrites four files a version at a time, each a change of a few files that
an update commits at once; every version renames nothing but changes each function's text, and
odd versions add a function to each file that even versions remove. An answer that mixed two
versions, held a function of a version that never had it, or held code that no version had, would
be read from a state no update committed.
"""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sharc

FIXTURES = Path(__file__).parent / "fixtures"
FILES = 4
VERSIONS = 5
SEARCH_THREADS = 8
#: Only a guard against a hang (the test fails instead); nothing is timed.
WAIT_SECONDS = 300


def ledger_functions(number: int, version: int) -> dict[str, str]:
    """The functions of ledger file `number` at `version`, by name: their exact source."""
    functions = {
        f"ledger_entry_{number}": (
            f"def ledger_entry_{number}():\n"
            f'    """Ledger entry {number}, ledger version {version}."""\n'
            f"    return {version}\n"
        )
    }
    if version % 2:
        functions[f"ledger_extra_{number}"] = (
            f"def ledger_extra_{number}():\n"
            f'    """Extra ledger line {number}, ledger version {version}."""\n'
            f"    return -{version}\n"
        )
    return functions


def write_ledger(root: Path, version: int) -> None:
    for number in range(FILES):
        source = "\n\n".join(ledger_functions(number, version).values())
        (root / "ledger" / f"part_{number}.py").write_text(source)


WRITER = f"""
import sys
from pathlib import Path
import sharc
FILES = {FILES}
{inspect.getsource(ledger_functions)}
{inspect.getsource(write_ledger)}
root, index_dir = Path(sys.argv[1]), sys.argv[2]
index = sharc.Index.open(root, index_dir=index_dir)
for version in range(1, {VERSIONS} + 1):
    if sys.stdin.readline().strip() != "next":
        break
    write_ledger(root, version)
    report = index.update()
    assert not report.errors, report.errors
    print(version, flush=True)
"""


class Readers:
    """Threads searching one index until stopped; each answer is checked as it comes."""

    def __init__(self, index: sharc.Index) -> None:
        self.index = index
        self.errors: list[BaseException] = []
        self.seen: set[int] = set()
        self.answers = 0
        self.changed = threading.Condition()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run) for _ in range(SEARCH_THREADS)]

    def __enter__(self) -> Readers:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def wait_for(self, version: int) -> None:
        """Until some answer has come from `version` (or a search failed)."""
        with self.changed:
            assert self.changed.wait_for(
                lambda: version in self.seen or self.errors, timeout=WAIT_SECONDS
            ), f"no answer from version {version}"

    def _run(self) -> None:
        while not self.stop.is_set() and not self.errors:
            try:
                version = self._check(self.index.search("ledger version", limit=30,
                                                        max_per_file=None))
            except BaseException as error:  # noqa: BLE001 - reported by the test
                with self.changed:
                    self.errors.append(error)
                    self.changed.notify_all()
                return
            with self.changed:
                self.answers += 1
                self.seen.add(version)
                self.changed.notify_all()

    @staticmethod
    def _check(response: sharc.index.SearchResponse) -> int:
        """The one version every ledger hit of this answer is from."""
        hits = [hit for hit in response if hit.path.startswith("ledger/")]
        assert hits, [hit.location for hit in response]
        versions = {int(re.findall(r"ledger version (\d+)", hit.code)[0]) for hit in hits}
        assert len(versions) == 1, f"an answer from versions {sorted(versions)}"
        (version,) = versions
        for hit in hits:
            number = int(hit.path.removeprefix("ledger/part_").removesuffix(".py"))
            expected = ledger_functions(number, version)
            assert hit.symbol in expected, f"{hit.symbol} in version {version}"
            assert hit.code.strip() == expected[hit.symbol].strip()
        return version


@pytest.mark.slow
def test_threads_search_while_another_process_updates(small_repo: Path, tmp_path: Path) -> None:
    (small_repo / "ledger").mkdir()
    write_ledger(small_repo, 0)
    index_dir = tmp_path / "index"
    sharc.Index.open(small_repo, index_dir=index_dir).update()
    index = sharc.Index.open(small_repo, index_dir=index_dir)

    with Readers(index) as readers, subprocess.Popen(
        [sys.executable, "-c", WRITER, str(small_repo), str(index_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    ) as writer:
        assert writer.stdin is not None and writer.stdout is not None
        for version in range(1, VERSIONS + 1):
            # Each version is answered while the writer lives, and each update runs while
            # the threads search.
            readers.wait_for(version - 1)
            writer.stdin.write("next\n")
            writer.stdin.flush()
            assert writer.stdout.readline().strip() == str(version)
        readers.wait_for(VERSIONS)
        writer.stdin.close()
        assert writer.wait() == 0

    assert not readers.errors, readers.errors[0]
    assert readers.seen == set(range(VERSIONS + 1))
    assert readers.answers > VERSIONS


def test_answer_checks_catch_a_mixed_state() -> None:
    """The checks above would see an answer read from no committed state."""

    def hit(number: int, version: int, name: str = "entry") -> sharc.SearchResult:
        code = ledger_functions(number, version).get(f"ledger_{name}_{number}") or (
            ledger_functions(number, version + 1)[f"ledger_{name}_{number}"].replace(
                f"version {version + 1}", f"version {version}"
            )
        )
        return sharc.SearchResult(
            path=f"ledger/part_{number}.py", start_line=1, end_line=3, score=1.0,
            kind="function", symbol=f"ledger_{name}_{number}", fqn=f"ledger_{name}_{number}",
            language="python", header="", code=code, id=f"ledger/part_{number}.py::x",
        )

    def answer(*hits: sharc.SearchResult) -> sharc.index.SearchResponse:
        return sharc.index.SearchResponse(list(hits), ("keyword",), "natural_language", True)

    assert Readers._check(answer(hit(0, 3), hit(1, 3), hit(1, 3, "extra"))) == 3
    with pytest.raises(AssertionError, match="versions"):
        Readers._check(answer(hit(0, 3), hit(1, 4)))
    with pytest.raises(AssertionError, match="ledger_extra_1 in version 2"):
        Readers._check(answer(hit(0, 2), hit(1, 2, "extra")))
    torn = hit(2, 1)
    with pytest.raises(AssertionError):
        Readers._check(answer(sharc.SearchResult(**{**torn.__dict__, "code": torn.code + "x"})))
    with pytest.raises(AssertionError):
        Readers._check(answer())

