"""What sharc's MCP server serves: the roots it may touch (`AllowedRoots`) and one live index
per root (`SharcService`), closed when the server shuts down."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

from sharc.errors import PathNotAllowedError
from sharc.live import LiveIndex


class AllowedRoots:
    """The directories a server may touch, and the check every tool path goes through."""

    def __init__(self, roots: Sequence[str | os.PathLike[str]]) -> None:
        if not roots:
            raise ValueError("an MCP server needs at least one root")
        resolved = []
        for root in roots:
            path = Path(root).expanduser().resolve()
            if not path.is_dir():
                raise NotADirectoryError(f"root is not a directory: {root}")
            if path not in resolved:
                resolved.append(path)
        self.roots: tuple[Path, ...] = tuple(resolved)

    def resolve(self, path: str) -> tuple[Path, Path]:
        """(the root that holds `path`, the resolved path); `PathNotAllowedError` otherwise.

        A relative path is taken from the first root.
        """
        if not path or not path.strip():
            raise PathNotAllowedError("a path is required: the repository root to work on")
        candidate = Path(path.strip()).expanduser()
        if not candidate.is_absolute():
            candidate = self.roots[0] / candidate
        real = candidate.resolve()
        holders = [root for root in self.roots if real == root or root in real.parents]
        if not holders:
            allowed = ", ".join(str(r) for r in self.roots)
            raise PathNotAllowedError(
                f"{path} resolves to {real}, outside the roots this server may read ({allowed});"
                " restart the server with that directory as a root to use it"
            )
        if not real.exists():
            raise FileNotFoundError(f"no such file or directory: {real}")
        return max(holders, key=lambda root: len(root.parts)), real


class SharcService:
    """The state behind the tools: one `LiveIndex` per root, created on first use."""

    def __init__(
        self,
        roots: Sequence[str | os.PathLike[str]],
        *,
        debounce: float,
        embed: bool = True,
        model: str | None = None,
    ) -> None:
        self.allowed = AllowedRoots(roots)
        self.debounce = debounce
        self.embed = embed
        self.model = model
        self._live: dict[Path, LiveIndex] = {}
        self._lock = threading.Lock()

    def live(
        self,
        root: Path,
        *,
        ignore_patterns: Sequence[str] = (),
        custom_extensions: Sequence[str] = (),
    ) -> LiveIndex:
        """The live index of `root`; new walk settings replace an idle one."""
        with self._lock:
            live = self._live.get(root)
            wanted = (tuple(ignore_patterns), tuple(custom_extensions))
            if live is not None and (ignore_patterns or custom_extensions):
                current = live.settings
                # A running job keeps its settings (the call joins it); an idle one is replaced.
                changed = (current["ignore_patterns"], current["custom_extensions"]) != wanted
                if changed and not live.status().busy:
                    live.close()
                    live = None
            if live is None:
                live = LiveIndex(
                    root,
                    ignore_patterns=ignore_patterns,
                    custom_extensions=custom_extensions,
                    embed=self.embed,
                    debounce=self.debounce,
                    model=self.model,
                )
                self._live[root] = live
            return live

    def resume(self) -> None:
        """Sync and watch every root that already has an index (changes made while no server
        ran are picked up); roots without one wait for index_codebase."""
        for root in self.allowed.roots:
            live = self.live(root)
            if live.status().indexed:
                live.sync()
                live.watch()

    def close(self) -> None:
        with self._lock:
            lives = list(self._live.values())
            self._live.clear()
        for live in lives:
            live.close()
