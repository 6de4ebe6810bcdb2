"""``lossless report DIR``: one self-contained HTML page for a sweep.

Figures are inline SVG and styles are inline, so the page can be mailed or attached to a paper's
artifact without its directory. It holds the run metadata (simulator version and commit, seeds,
wall time, hosts), the parameters, the figures that fit the sweep's dimensions, a table per
point and the failures.
"""

from __future__ import annotations

import html
import io
import json
import os
from datetime import datetime, timezone
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from . import plot
from .outputs import check_file
from .sweeps.results import SweepResults, load
from .sweeps.store import Store, write_atomically

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f4f4f4; } td.text, th.text { text-align: left; }
figure { display: inline-block; margin: 0.5em; max-width: 100%; } figure svg { max-width: 100%; height: auto; } figcaption { font-size: 0.85em; color: #555; }
.failed { color: #b00; } pre { background: #f8f8f8; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
"""

#: The per-point table: identity columns, then these numbers.
_POINT_COLUMNS = ["class", "offered", "accepted", "packet_latency_mean_ns", "packet_latency_p99_ns", "fairness_jain"]


def report(directory: str | os.PathLike, out: str | os.PathLike | None = None) -> Path:
    """Writes the report of the sweep in `directory` (default: DIR/report.html); returns its path."""
    directory = Path(directory)
    # The manifest first: only a sweep has a report (`load` also reads a run's directory).
    manifest = Store(directory).read_manifest()
    results = load(directory)
    out = check_file(out if out else directory / "report.html", "--out", (".html",))
    page = _page(directory, results, manifest)
    write_atomically(out, lambda tmp: Path(tmp).write_text(page))
    return out


def _page(directory: Path, results: SweepResults, manifest: dict) -> str:
    title = f"Sweep {directory.resolve().name}"
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"]
    parts.append(f"<h1>{html.escape(title)}</h1>")
    parts.append("<h2>Run</h2>" + _table(_run_metadata(results, manifest), index=False, id="run"))
    parts.append("<h2>Parameters</h2>" + _table(_parameters(manifest), index=False, id="parameters"))
    if manifest.get("set"):
        parts.append("<p>Set in every point: " + ", ".join(f"<code>{html.escape(k)} = {html.escape(json.dumps(v))}</code>" for k, v in manifest["set"].items()) + "</p>")
    parts.append("<h2>Figures</h2>" + "".join(_figures(results)))
    parts.append("<h2>Points</h2>" + _table(_points(results), index=False, id="points"))
    if not results.failures.empty:
        failures = results.failures.drop(columns=["key"])
        parts.append(f"<h2 class='failed'>Failures ({len(failures)})</h2>" + _table(failures, index=False, id="failures"))
    if results.missing:
        parts.append(f"<p class='failed'>{len(results.missing)} points not run yet (interrupted sweep): {results.missing}</p>")
    parts.append("<h2>Scenario</h2><p>The base scenario, every default filled in:</p><pre>" + html.escape(manifest.get("resolved_base", "")) + "</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _run_metadata(results: SweepResults, manifest: dict) -> pd.DataFrame:
    meta = results.meta
    total = len(manifest["points"])
    rows = {
        "points": f"{len(meta)} finished, {len(results.failures)} failed, {len(results.missing)} not run, of {total}",
        "simulator version": ", ".join(sorted(set(meta["version"]))) if not meta.empty else manifest["version"],
        "commit": ", ".join(sorted(set(meta["commit"]))) if not meta.empty else "",
        "seeds": ", ".join(str(s) for s in sorted(set(meta["seed"]))) if not meta.empty else "",
        "wall time (sum over points)": f"{meta['wall_s'].sum():.1f} s" if not meta.empty else "",
        "executors": ", ".join(sorted(set(meta["executor"]))) if not meta.empty else "",
        "hosts": ", ".join(sorted(set(meta["host"]))) if not meta.empty else "",
        "last point finished": max(meta["finished_at"]) if not meta.empty else "",
        "report written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    return pd.DataFrame({"": list(rows), "value": list(rows.values())})


def _parameters(manifest: dict) -> pd.DataFrame:
    rows = []
    for d in manifest["dimensions"]:
        source = "seed" if d == "seed" else d
        values = list(dict.fromkeys(json.dumps(p["series"] if d == "series" else (p["seed"] if d == "seed" else p["params"].get(source))) for p in manifest["points"]))
        rows.append({"swept": d, "values": ", ".join(values), "count": len(values)})
    return pd.DataFrame(rows, columns=["swept", "values", "count"])


def _figures(results: SweepResults) -> list[str]:
    """The standard figures that fit this sweep; a figure that does not fit says why."""
    if results.points.empty:
        return ["<p>No finished point yet.</p>"]
    loads = [d for d in results.dimensions if d.endswith(".load")]
    candidates = []
    if loads:
        candidates += [("Latency vs offered load", results, plot.latency_load), ("Accepted vs offered load", results, plot.accepted_load)]
    # Time series and senders show one value of each swept key but the first (the curves): the
    # last value, usually the highest load.
    curves = next((d for d in results.dimensions if d != "seed"), None)
    fixed = {d: results.points[d].iloc[-1] for d in results.dimensions if d not in ("seed", curves)}
    at = "".join(f", {k} = {v}" for k, v in fixed.items())
    candidates += [(f"Accepted throughput over time{at}", results.select(fixed), plot.timeseries), (f"Per-sender throughput{at}", results.select(fixed), plot.senders)]
    out = []
    for caption, selected, make in candidates:
        try:
            fig = make(selected)
        except ValueError as e:
            out.append(f"<p><em>{html.escape(caption)}</em>: not drawn ({html.escape(str(e))})</p>")
            continue
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        plt.close(fig)
        svg = buf.getvalue()
        out.append(f"<figure>{svg[svg.index('<svg'):]}<figcaption>{html.escape(caption)}</figcaption></figure>")
    return out


def _points(results: SweepResults) -> pd.DataFrame:
    ident = ["point", *[d for d in results.dimensions if d != "seed"], "seed"]
    if results.points.empty:
        return pd.DataFrame(columns=ident + _POINT_COLUMNS)
    table = results.points[ident + _POINT_COLUMNS].merge(results.meta[["point", "wall_s"]], on="point")
    return table.round({"offered": 4, "accepted": 4, "packet_latency_mean_ns": 1, "packet_latency_p99_ns": 1, "fairness_jain": 4, "wall_s": 2})


def _table(df: pd.DataFrame, index: bool, id: str) -> str:
    return df.to_html(index=index, border=0, table_id=id, na_rep="", escape=True)
