"""The large repositories' source trees, each laid out once under `benches/data/large/`:

- `cpython-lib`: the running interpreter's standard library (it must be a Python 3.11),
  copied without `site-packages`, compiled files and extension modules.
- `rails`: Ruby on Rails 6.1.7.10's six core gems (activesupport, activerecord, activemodel,
  actionpack, actionview, railties; their `lib/` as Debian ships them), fetched with
  `apt-get download` at that version and unpacked with `dpkg-deb`, one folder a gem.
- `eigen`: Eigen 3.4.0's headers (`libeigen3-dev`), fetched the same way
  (`benches.quality.class_heads`).

Each refuses another version than its questions were written against, before anything is
copied or fetched: their files and lines move between versions.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: The standard library the questions were written against.
PYTHON_VERSION = (3, 11)
#: The Rails release the questions were written against, as Debian 12 packages it.
RAILS_VERSION = "6.1.7.10"
RAILS_PACKAGE_VERSION = "2:6.1.7.10+dfsg-1~deb12u4"
#: Eigen, a C++ template library of headers only, as Debian 12 packages it.
EIGEN_PACKAGE_VERSION = "3.4.0-4"
RAILS_GEMS = ("activesupport", "activerecord", "activemodel", "actionpack", "actionview",
              "railties")


def stdlib_tree(root: Path, version: tuple[int, int] = PYTHON_VERSION) -> Path:
    """`root` holding a copy of the running interpreter's standard library (copied once)."""
    if sys.version_info[:2] != version:
        raise SystemExit(
            f"the questions are about Python {version[0]}.{version[1]}'s standard library;"
            f" this is Python {sys.version_info[0]}.{sys.version_info[1]}"
        )
    if not root.is_dir():
        shutil.copytree(
            sysconfig.get_paths()["stdlib"], root, symlinks=True,
            ignore=shutil.ignore_patterns(
                "site-packages", "__pycache__", "lib-dynload", "config-*", "*.pyc"
            ),
        )
    return root


def rails_tree(root: Path) -> Path:
    """`root` holding Rails' six core gems, one folder each (fetched and unpacked once)."""
    if root.is_dir():
        return root
    packages = [f"ruby-{gem}={RAILS_PACKAGE_VERSION}" for gem in RAILS_GEMS]
    with _debian_packages(packages, f"Rails {RAILS_VERSION}") as unpacked:
        gems = unpacked / "usr/share/rubygems-integration/all/gems"
        staging = _staging(root)
        for gem in RAILS_GEMS:
            shutil.copytree(gems / f"{gem}-{RAILS_VERSION}", staging / gem)
        staging.rename(root)
    return root


def eigen_tree(root: Path) -> Path:
    """`root` holding Eigen's headers as Debian installs them (`Eigen/`, `unsupported/`)."""
    if root.is_dir():
        return root
    with _debian_packages([f"libeigen3-dev={EIGEN_PACKAGE_VERSION}"], "Eigen") as unpacked:
        staging = _staging(root)
        shutil.copytree(unpacked / "usr/include/eigen3", staging)
        staging.rename(root)
    return root


@contextlib.contextmanager
def _debian_packages(packages: list[str], what: str) -> Iterator[Path]:
    """Debian's `packages` (`name=version`) fetched with `apt-get download` and unpacked with
    `dpkg-deb` into a temporary folder, yielded; a clear refusal where either tool is missing
    or a version is not to be had."""
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise SystemExit(f"fetching {what} needs Debian's {tool}")
    with tempfile.TemporaryDirectory() as work:
        fetched = subprocess.run(
            ["apt-get", "download", *packages], cwd=work, capture_output=True, text=True
        )
        if fetched.returncode != 0:
            raise SystemExit(
                f"apt-get could not fetch {what} ({', '.join(packages)}):"
                f" {fetched.stderr.strip()[-300:]}"
                " (a version Debian's lists on this machine do not hold yet may come with"
                " `apt-get update`)"
            )
        unpacked = Path(work) / "unpacked"
        for deb in sorted(Path(work).glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
        yield unpacked


def _staging(root: Path) -> Path:
    """A fresh folder beside `root` to lay a tree out in, renamed to `root` once whole."""
    staging = root.with_name(root.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.parent.mkdir(parents=True, exist_ok=True)
    return staging
