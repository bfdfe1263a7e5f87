"""Download the training corpus's packages from their registries, pinned by packages.lock.json.

    python -m tools.static_model.fetch            # everything in packages.json
    python -m tools.static_model.fetch --only pypi

PyPI sdists (and the one wheel that carries Zig's standard library) come from PyPI's JSON API
and files host, crates from crates.io, Debian source packages from bookworm through apt-get
with a private configuration (a deb-src line of its own; the system's apt is left alone).
The first fetch writes the versions and sha256 it got to packages.lock.json; later fetches
download exactly those. A package named in ``blocked`` (the evaluation repositories and the
pinned benchmark sdists) is refused outright.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tools.debian_sources import apt_config

HERE = Path(__file__).parent
PACKAGES = HERE / "packages.json"
LOCK = HERE / "packages.lock.json"
WORK = HERE.parent.parent / "benches" / "data" / "static-train"
DOWNLOADS = WORK / "downloads"
USER_AGENT = "sharc-static-model-build (https://github.com/; corpus of the fast model)"


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read()


def _save(path: Path, data: bytes, sha256: str | None) -> str:
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise RuntimeError(f"{path.name}: sha256 {digest}, expected {sha256}")
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(path.suffix + ".part")
    scratch.write_bytes(data)
    os.replace(scratch, path)
    return digest


def _sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- PyPI -------------------------------------------------------------------------------------


def fetch_pypi(name: str, pinned: dict[str, Any] | None, wheel: bool) -> dict[str, Any]:
    if pinned:
        target = DOWNLOADS / "pypi" / pinned["filename"]
        if target.is_file() and _sha256_of(target) == pinned["sha256"]:
            return pinned
    # The project's document lists every release's files; a mirror may not serve the
    # per-version documents.
    url = f"https://pypi.org/pypi/{name}/json"
    meta = json.loads(_get(url))
    version = pinned["version"] if pinned else meta["info"]["version"]
    files = meta["releases"].get(version, []) if pinned else meta["urls"]
    if wheel:
        files = [f for f in files if f["packagetype"] == "bdist_wheel"
                 and "manylinux" in f["filename"] and "x86_64" in f["filename"]]
    else:
        files = [f for f in files if f["packagetype"] == "sdist"]
    if pinned:
        files = [f for f in files if f["filename"] == pinned["filename"]]
    if not files:
        raise RuntimeError(f"{name} {version}: no {'wheel' if wheel else 'sdist'} on PyPI")
    chosen = files[0]
    target = DOWNLOADS / "pypi" / chosen["filename"]
    sha256 = chosen["digests"]["sha256"]
    if not (target.is_file() and _sha256_of(target) == sha256):
        # A mirror may answer with URLs relative to the JSON document.
        _save(target, _get(urllib.parse.urljoin(url, chosen["url"])), sha256)
    return {"name": name, "version": version, "filename": chosen["filename"], "sha256": sha256}


# -- crates.io --------------------------------------------------------------------------------


def _index_path(name: str) -> str:
    """The crate's file in the sparse index (the layout cargo reads)."""
    name = name.lower()
    if len(name) <= 2:
        return f"{len(name)}/{name}"
    if len(name) == 3:
        return f"3/{name[0]}/{name}"
    return f"{name[:2]}/{name[2:4]}/{name}"


def _newest_stable(name: str) -> tuple[str, str]:
    """The newest non-yanked release without a pre-release tag, and its checksum."""
    releases = [json.loads(line) for line in _get(
        f"https://index.crates.io/{_index_path(name)}").decode().splitlines() if line.strip()]
    stable = [r for r in releases if not r["yanked"] and "-" not in r["vers"]]

    def key(release: dict[str, Any]) -> tuple[int, ...]:
        return tuple(int(part) for part in release["vers"].split("+")[0].split("."))

    newest = max(stable, key=key)
    return newest["vers"], newest["cksum"]


def fetch_crate(name: str, pinned: dict[str, Any] | None) -> dict[str, Any]:
    version, sha256 = (pinned["version"], pinned["sha256"]) if pinned else _newest_stable(name)
    filename = f"{name}-{version}.crate"
    target = DOWNLOADS / "crates" / filename
    if not (target.is_file() and _sha256_of(target) == sha256):
        _save(target, _get(f"https://static.crates.io/crates/{name}/{filename}"), sha256)
    return {"name": name, "version": version, "filename": filename, "sha256": sha256}


# -- Debian -----------------------------------------------------------------------------------


def fetch_debian(name: str, pinned: dict[str, Any] | None) -> dict[str, Any]:
    config = apt_config(WORK / "apt")
    directory = DOWNLOADS / "debian" / name
    directory.mkdir(parents=True, exist_ok=True)
    spec = f"{pinned['source']}={pinned['version']}" if pinned else name
    if not (pinned and any(directory.glob("*.dsc"))):
        subprocess.run(
            ["apt-get", "source", "--download-only", "-q", spec],
            cwd=directory, env={**os.environ, "APT_CONFIG": str(config)},
            check=True, capture_output=True,
        )
    dsc = sorted(directory.glob("*.dsc"))[-1]
    fields = dict(
        line.split(": ", 1) for line in dsc.read_text(errors="replace").splitlines()
        if ": " in line and not line.startswith(" ")
    )
    return {"name": name, "source": fields["Source"], "version": fields["Version"],
            "dsc": dsc.name, "sha256": _sha256_of(dsc)}


# -- driver -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("pypi", "pypi_wheels", "crates", "debian"))
    parser.add_argument("--jobs", type=int, default=8)
    args = parser.parse_args(argv)

    wanted = json.loads(PACKAGES.read_text())
    blocked = {name.lower() for name in wanted["blocked"]}
    lock: dict[str, dict[str, Any]] = json.loads(LOCK.read_text()) if LOCK.is_file() else {}
    fetchers: dict[str, Callable[[str, dict[str, Any] | None], dict[str, Any]]] = {
        "pypi": lambda n, p: fetch_pypi(n, p, wheel=False),
        "pypi_wheels": lambda n, p: fetch_pypi(n, p, wheel=True),
        "crates": fetch_crate,
        "debian": fetch_debian,
    }
    failures = []
    for source, fetch in fetchers.items():
        if args.only and source != args.only:
            continue
        names = wanted[source]
        refused = [n for n in names if n.lower() in blocked]
        if refused:
            raise SystemExit(f"{source}: blocked packages listed: {refused}")
        pins = lock.setdefault(source, {})
        # apt-get shares its cache directory: one Debian download at a time.
        jobs = 1 if source == "debian" else args.jobs

        def one(name: str, pins: dict[str, Any] = pins,
                fetch: Callable[..., dict[str, Any]] = fetch) -> tuple[str, Any]:
            try:
                return name, fetch(name, pins.get(name))
            except Exception as error:  # a missing package is reported, the rest goes on
                return name, error

        with ThreadPoolExecutor(jobs) as pool:
            for name, result in pool.map(one, names):
                if isinstance(result, Exception):
                    failures.append(f"{source}/{name}: {result}")
                    print(f"FAILED {source}/{name}: {result}", file=sys.stderr)
                else:
                    if source == "debian" and result["source"].lower() in blocked:
                        raise SystemExit(f"debian/{name} is the blocked source {result['source']}")
                    pins[name] = result
                    print(f"{source}/{name} {result['version']}", file=sys.stderr)
        LOCK.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    print(f"{sum(len(v) for v in lock.values())} packages pinned; {len(failures)} failed",
          file=sys.stderr)
    for failure in failures:
        print(f"  {failure}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
