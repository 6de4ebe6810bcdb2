"""The result store of a sweep: one directory, one file per finished point.

    DIR/sweep.json            the points of the current spec and their keys
    DIR/points/KEY.json       one finished point: resolved config, summary, series, metadata
    DIR/failures/KEY.json     one failed point: its message
    DIR/*.parquet             the consolidated tables (rewritten at the end of each sweep)

KEY is a hash of the point's fully resolved config (every default filled in, seed included)
and of the files it names, so a point is reused only if nothing about it changed. Every file is written to a temporary
name and renamed into place: an interrupted sweep leaves finished points and nothing that
looks finished but is not. Points of earlier specs stay in points/ and are reused if a later
spec asks for them again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
import uuid
from pathlib import Path
from typing import Any, Callable

from ..outputs import claim_dir

MANIFEST = "sweep.json"
# What `write_atomically` names its temporary files: the only files a new sweep removes.
_TMP = re.compile(r"\..+\.[0-9a-f]{32}\.tmp")


def key_of(resolved_toml: str) -> str:
    """The point's key: its resolved config, and the content of every file it names (a flow-size
    CDF's `file`), so that a file changed between two sweeps runs its points again."""
    h = hashlib.sha256(resolved_toml.encode())
    for path in sorted(_files_named(tomllib.loads(resolved_toml))):
        p = Path(path)
        h.update(b"\0" + path.encode() + b"\0" + (p.read_bytes() if p.is_file() else b"(missing)"))
    return h.hexdigest()[:24]


def _files_named(value: Any, key: str = "") -> set[str]:
    """The paths under keys named `file` (or `..._file`) anywhere in a config."""
    if isinstance(value, dict):
        return set().union(*(_files_named(v, k) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(_files_named(v, key) for v in value))
    return {value} if isinstance(value, str) and (key == "file" or key.endswith("_file")) else set()


def write_atomically(path: Path, write: Callable[[str], None]) -> None:
    """Calls `write(tmp_path)`, then renames tmp_path to `path` (same directory: atomic).

    `write` creates the temporary file itself, so it gets the usual permissions (the umask's),
    not mkstemp's owner-only ones."""
    tmp = str(path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, value: Any) -> None:
    write_atomically(path, lambda tmp: Path(tmp).write_text(json.dumps(value)))


class Store:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.points = self.root / "points"
        self.failures = self.root / "failures"

    def create(self) -> None:
        """Claims the directory (`outputs.claim_dir`: new, empty or a sweep's) and clears the
        temporary files of a sweep killed mid-write."""
        claim_dir(self.root, "sweep", also_ours=(MANIFEST,))
        for d in (self.points, self.failures):
            d.mkdir(exist_ok=True)
        for d in (self.root, self.points, self.failures):
            for tmp in d.glob(".*.tmp"):
                if _TMP.fullmatch(tmp.name):
                    tmp.unlink(missing_ok=True)

    def finished(self, key: str) -> bool:
        return (self.points / f"{key}.json").is_file()

    def read_point(self, key: str) -> dict[str, Any]:
        return json.loads((self.points / f"{key}.json").read_text())

    def write_point(self, key: str, record: dict[str, Any]) -> None:
        write_json(self.points / f"{key}.json", record)
        (self.failures / f"{key}.json").unlink(missing_ok=True)

    def read_failure(self, key: str) -> dict[str, Any] | None:
        path = self.failures / f"{key}.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def write_failure(self, key: str, record: dict[str, Any]) -> None:
        write_json(self.failures / f"{key}.json", record)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json(self.root / MANIFEST, manifest)

    def absent(self) -> str | None:
        """Why the store's directory cannot hold results ("does not exist", "is not a
        directory"), or None."""
        if self.root.is_dir():
            return None
        return "is not a directory" if self.root.exists() else "does not exist"

    def read_manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        if (why := self.absent()) is not None:
            raise FileNotFoundError(f"{self.root} {why}: give the --out directory of a sweep")
        if not path.is_file():
            raise FileNotFoundError(f"{self.root} is not a sweep directory (no {MANIFEST}): run `lossless sweep SPEC --out {self.root}` first")
        return json.loads(path.read_text())
