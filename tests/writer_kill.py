"""Killing an index writer mid-update, shared by the kill tests (`test_index_build.py`,
`test_embed_policy.py`, `test_fast_vectors.py`, `test_vector_segments.py`): a writer script
that prints one line at the moment to kill it, and the function that runs it and kills it
there with SIGKILL, so the writer gets no chance to clean up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

# Prints how many chunks are embedded, and of how many, once the default model's first batch
# is journaled; then waits to be killed. Arguments: the repository, the index directory.
KILL_AFTER_A_BATCH = """
import sys, time, sharc
index = sharc.Index.open(sys.argv[1], index_dir=sys.argv[2])
def progress(p):
    if p.phase == "embedding" and p.vectors == "default" and p.chunks_done > 0:
        print(p.chunks_done, p.chunks_total, flush=True)
        time.sleep(60)
index.update(progress=progress)
"""


def killed_after_first_line(script: str, *args: str | Path) -> str:
    """Run `python -c script *args`, SIGKILL it once it prints its first line, reap it, and
    return that line, stripped ("" if the script ended without printing one)."""
    with subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)], stdout=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    return line
