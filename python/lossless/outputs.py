"""Where lossless may write: the rule every command that writes a directory follows.

A result directory is claimed only if it does not exist, is empty, or holds the marker file that
lossless writes into every directory it creates (``lossless run`` writes the same marker,
``crates/cli/src/output.rs``). A directory of the user's, the working directory or one above
it, ``/`` and the home directory are refused: an output option must never cost a user a file.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._lossless import __version__

#: The file that marks a directory as written by lossless, and by which command: its first line
#: is `lossless run`, `lossless sweep` or `lossless reproduce`, then the version.
MARKER = ".lossless"


class OutputError(ValueError):
    """An output path lossless will not write to; the message says what to do instead."""


def claim_dir(path: str | os.PathLike, kind: str, option: str = "--out", *, also_ours: tuple[str, ...] = ()) -> Path:
    """Creates `path` or checks that `lossless KIND` may write into it, and marks it as ours.

    A directory another command wrote (a run's, when a sweep is asked for) is refused: each
    command replaces or extends only its own results. also_ours: names of files whose presence
    also shows the directory is this command's (a sweep's `sweep.json`, from before the marker)."""
    path = Path(path)
    shown = f"`{option} {path}`"
    if path.name in ("", ".", ".."):
        raise OutputError(f"{shown}: name a directory for the results (not `.`, `..` or `/`)")
    if path.exists() or path.is_symlink():
        if not path.is_dir() or path.is_symlink():
            raise OutputError(f"{shown}: exists and is not a directory (a file or a link): choose a new directory name")
        real = path.resolve()
        if _protected(real):
            raise OutputError(f"{shown}: is {real}, which lossless never writes into: choose a new directory")
        marked = (real / MARKER).read_text().split("\n")[0] if (real / MARKER).is_file() else None
        if marked is not None and not marked.startswith(f"lossless {kind}"):
            other = " ".join(marked.split(" ")[:2])
            raise OutputError(f"{shown}: holds the results of `{other}`, not of `lossless {kind}`: choose a new directory")
        ours = marked is not None or any((real / name).is_file() for name in also_ours)
        if not ours and any(real.iterdir()):
            raise OutputError(
                f"{shown}: exists and was not written by lossless (it has no `{MARKER}` file): choose a new directory, or empty this one yourself"
            )
    path.mkdir(parents=True, exist_ok=True)
    marker = path / MARKER
    if not marker.is_file():
        marker.write_text(f"lossless {kind} {__version__}\n")
    return path


def _protected(real: Path) -> bool:
    """The root, the home directory, and the working directory or any directory above it."""
    cwd = Path.cwd().resolve()
    return real.parent == real or real == Path.home().resolve() or cwd == real or real in cwd.parents


def check_file(path: str | os.PathLike, option: str, suffixes: tuple[str, ...]) -> Path:
    """A single output file (a figure, a report): of one of `suffixes`, not a directory.

    An existing file of that type is replaced, as plotting tools do; it is written atomically."""
    path = Path(path)
    if path.suffix.lower() not in suffixes:
        raise OutputError(f"`{option} {path}`: give a file name ending in {' or '.join(suffixes)}")
    if path.is_dir():
        raise OutputError(f"`{option} {path}`: is a directory: give a file name ending in {' or '.join(suffixes)}")
    if not path.parent.is_dir():
        raise OutputError(f"`{option} {path}`: the directory {path.parent} does not exist")
    return path
