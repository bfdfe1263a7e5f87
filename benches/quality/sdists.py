"""The pinned real repositories: PyPI source distributions, downloaded once and extracted.

`pip download --no-deps --no-binary NAME NAME==VER` fetches the sdist itself (never a wheel).
The brief's `--no-binary :all:` would also force pip to build every *build* dependency from
source while it prepares metadata (maturin from source for a Rust package: many CPU minutes);
limiting it to NAME fetches the same file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from benches.quality.dataset import data_dir, sha256_file


@dataclass(frozen=True)
class Package:
    """A pinned sdist and which of its files may hold CodeSearchNet-style targets."""

    name: str
    version: str
    language: str  # the language its targets are in
    source_dirs: tuple[str, ...]  # targets only under these (library code, not docs/examples)

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def slug(self) -> str:
        return f"{self.name}-{self.version}"


PACKAGES: tuple[Package, ...] = (
    Package("requests", "2.32.3", "python", ("src/requests",)),
    Package("click", "8.1.7", "python", ("src/click",)),
    Package("networkx", "3.3", "python", ("networkx",)),
    # Hugging Face tokenizers: its sdist carries the Rust core crate (tokenizers/src) and the
    # pyo3 bindings (bindings/python/src), with `///` doc comments on ~360 functions.
    # (pydantic-core 2.23.4 was considered: only ~60 documented functions, 44 usable queries.)
    Package("tokenizers", "0.20.0", "rust", ("tokenizers/src", "bindings/python/src")),
)


def package(name: str) -> Package:
    for candidate in PACKAGES:
        if candidate.name == name or candidate.slug == name:
            return candidate
    raise KeyError(f"no pinned package {name!r}; known: {', '.join(p.name for p in PACKAGES)}")


def sdist_dir() -> Path:
    return data_dir() / "sdists"


def source_root(pkg: Package) -> Path:
    """Where the original (unstripped) sources of `pkg` are extracted."""
    return data_dir() / "src" / pkg.slug


def find_sdist(pkg: Package, directory: Path | None = None) -> Path | None:
    directory = directory or sdist_dir()
    stems = {pkg.slug, f"{pkg.name.replace('-', '_')}-{pkg.version}"}
    for stem in sorted(stems):
        for ext in (".tar.gz", ".zip"):
            candidate = directory / f"{stem}{ext}"
            if candidate.is_file():
                return candidate
    return None


def download(pkg: Package) -> Path:
    """The sdist of `pkg`, downloaded with pip unless it is already there."""
    found = find_sdist(pkg)
    if found:
        return found
    sdist_dir().mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        pkg.name,
        pkg.pin,
        "-d",
        str(sdist_dir()),
    ]
    print("+", " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True)
    found = find_sdist(pkg)
    if not found:
        raise FileNotFoundError(f"pip reported success but no sdist of {pkg.pin} in {sdist_dir()}")
    return found


def extract(pkg: Package, *, force: bool = False) -> Path:
    """Extract the sdist of `pkg` (downloading it if needed) to `source_root(pkg)`."""
    root = source_root(pkg)
    marker = root.with_name(root.name + ".extracted")  # beside, not inside: it is not source
    archive = download(pkg)
    digest = sha256_file(archive)
    if not force and marker.is_file() and marker.read_text().strip() == digest:
        return root
    if root.exists():
        shutil.rmtree(root)
    staging = root.with_name(root.name + ".tmp")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(staging, filter="data")
        else:  # Python before 3.10.12 / 3.11.4: refuse what the data filter would
            for member in tar.getmembers():
                if member.name.startswith("/") or ".." in Path(member.name).parts:
                    raise ValueError(f"{archive}: unsafe member {member.name}")
                if member.issym() or member.islnk():
                    raise ValueError(f"{archive}: link member {member.name}")
            tar.extractall(staging)
    tops = list(staging.iterdir())
    if len(tops) == 1 and tops[0].is_dir():
        tops[0].rename(root)
        shutil.rmtree(staging)
    else:
        staging.rename(root)
    marker.write_text(digest + "\n")
    return root


def sdist_version(pkg: Package) -> str:
    archive = find_sdist(pkg)
    digest = sha256_file(archive)[:16] if archive else "missing"
    return f"{pkg.pin} sdist sha256:{digest}"
