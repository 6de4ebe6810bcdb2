"""The example scenarios that ship inside the package, usable wherever lossless is installed.

``lossless examples`` lists them, ``lossless examples copy DIR`` copies them into a folder of
the user's, and ``example:NAME`` (``example:srp/fig1_baseline``) names one wherever a scenario
file is taken: ``lossless run``, ``validate`` and ``sweep``, and the Python API's ``config``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

#: The examples' folder in the installed package (a checkout's `examples/` links to it).
EXAMPLES = Path(__file__).resolve().parent / "examples"

#: The prefix that names a bundled example in place of a file path.
PREFIX = "example:"

#: What counts as an example: scenario and sweep files, and the scripts that drive them.
_SUFFIXES = (".toml", ".py")


def names() -> list[str]:
    """Every example, as `example:` takes it: its path below the folder, without `.toml`."""
    return sorted(_name(p) for p in _files())


def _files() -> list[Path]:
    return [p for p in EXAMPLES.rglob("*") if p.is_file() and p.suffix in _SUFFIXES and "__pycache__" not in p.parts]


def _name(p: Path) -> str:
    rel = p.relative_to(EXAMPLES).as_posix()
    return rel.removesuffix(".toml")


def resolve(spec: str) -> Path:
    """The file an `example:NAME` names; FileNotFoundError naming the closest ones if none."""
    name = spec.removeprefix(PREFIX).strip().removesuffix(".toml")
    path = EXAMPLES / f"{name}.toml"
    if name and ".." not in Path(name).parts and path.is_file():
        return path
    import difflib

    known = [n for n in names() if not n.endswith(".py")]
    near = difflib.get_close_matches(name, known, n=3, cutoff=0.6) or [n for n in known if name and name in n][:3]
    hint = f"did you mean {', '.join(PREFIX + n for n in near)}? " if near else ""
    raise FileNotFoundError(f"no bundled example `{spec}`: {hint}`lossless examples` lists them")


def resolve_arg(arg: str) -> str:
    """A command-line scenario argument, an `example:NAME` replaced by its file's path."""
    return str(resolve(arg)) if arg.startswith(PREFIX) else arg


def describe(p: Path) -> str:
    """An example's first comment line (TOML `#`, or a script's docstring)."""
    for line in p.read_text().splitlines():
        text = line.strip().lstrip("#").strip().strip('"').strip()
        if text:
            return text
    return ""


def copy(dest: Path) -> list[Path]:
    """Copies every example into `dest` (created if missing); refuses before copying anything if
    one of them would replace a file already there."""
    from .outputs import OutputError

    files = _files()
    clashes = [dest / p.relative_to(EXAMPLES) for p in files if (dest / p.relative_to(EXAMPLES)).exists()]
    if clashes:
        raise OutputError(f"`{dest}` already has {clashes[0]}{f' and {len(clashes) - 1} more' if len(clashes) > 1 else ''}: copy into a new or empty folder")
    written = []
    for p in files:
        target = dest / p.relative_to(EXAMPLES)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, target)
        written.append(target)
    return written


def main(argv: list[str]) -> int:
    from .commands import guarded

    ap = argparse.ArgumentParser(
        prog="lossless examples",
        description="List the example scenarios that ship with lossless, or copy them into a folder. "
        "Run one where it is with `lossless run example:NAME --out DIR`.",
    )
    sub = ap.add_subparsers(dest="action")
    cp = sub.add_parser("copy", help="copy every example into DIR (never replacing a file)")
    cp.add_argument("dir", type=Path, help="the folder to copy into (created if missing)")
    args = ap.parse_args(argv)

    def go() -> int:
        if args.action == "copy":
            written = copy(args.dir)
            print(f"copied {len(written)} examples into {args.dir}; try: lossless run {args.dir / 'fattree256_uniform.toml'} --out runs/first")
            return 0
        files = sorted(_files(), key=_name)
        width = max(len(PREFIX + _name(p)) for p in files)
        for p in files:
            shown = _name(p) if p.suffix == ".py" else PREFIX + _name(p)
            print(f"{shown:<{width}}  {describe(p)}")
        print("\nrun one: lossless run example:fattree256_uniform --out runs/first", file=sys.stderr)
        return 0

    return guarded(go, "nothing copied")
