#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# html_report.py — the experiment report page of `wanka report ... --html`:
# one self-contained HTML file (inline CSS, figures as inline SVG, no script,
# nothing fetched) with the runs, the tables wanka rendered as Markdown, the
# figures of plot.py and each run's scenario text, HTML-escaped. Written
# under a temporary name beside the target and renamed when complete.
"""usage: html_report.py --tables TABLES.md --title TITLE -o OUT.html
                      --figures TRACE... [--runs TRACE...]

  --tables   Markdown written by wanka (report and compare tables, notes)
  --figures  the traces drawn in the figures (overlaid; gantt, heatmap and
             recovery one panel each)
  --runs     every trace the report read (runs table, scenario texts);
             default: the --figures traces

Exit status: 0 written, 2 bad input (the message names the file; nothing is
written), 1 missing Python packages or an unexpected error.
"""
import signal  # first: the handlers below are installed before anything else loads


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP arrived."""

    def __init__(self, sig):
        super().__init__(sig)
        self.sig = sig


def interrupted(sig, frame):
    raise Interrupted(sig)


# from the start: an interrupt while the modules and matplotlib load is no
# traceback either; SIGHUP (a closed terminal) as SIGINT and SIGTERM
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
for _sig in STOP_SIGNALS:
    if signal.getsignal(_sig) is not signal.SIG_IGN:
        signal.signal(_sig, interrupted)

try:
    import argparse
    import html
    import io
    import os
    import re
    import sys
except Interrupted as _e:
    raise SystemExit(128 + _e.sig) from None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import plot  # noqa: E402  (analysis/plot.py, beside this file)
except Interrupted as _e:
    sys.exit(128 + _e.sig)

PROG = "wanka report"

# (--what, caption) in page order
FIGURES = [
    ("utilization", "Allocated GPUs / GPUs over time."),
    ("queue", "Jobs waiting in the queue over time."),
    ("power", "Facility power over time (GPUs + network, times PUE)."),
    ("jct-cdf", "CDF of the completion time (end − submit) of completed jobs."),
    ("incidents", "Cumulative incidents over time, by kind."),
    ("gantt", "The nodes of the cluster over time, grouped by pod (black lines) and rack (grey lines): each "
              "job segment a bar on the nodes it held, as tall as its share of a node's GPUs, colored by job "
              "(traces of schema 1.6 on; older traces: the jobs with the most GPU-time as bars)."),
    ("heatmap", "Each pod's allocated GPUs / GPUs per time bin (timeseries/pods)."),
    ("recovery", "Per incident that stopped jobs: detection, wait and restart (minutes), and the work rolled "
                 "back to the last checkpoint (GPU-h)."),
]

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;
padding:1em 2em;color:#222;line-height:1.4}
h1{font-size:1.6em;border-bottom:2px solid #444;padding-bottom:.2em}
h2{font-size:1.3em;margin-top:1.8em;border-bottom:1px solid #bbb}
h3{font-size:1.1em;margin-top:1.4em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;vertical-align:top}
th{background:#f0f0f0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:nth-child(even) td{background:#fafafa}
figure{margin:1.2em 0;page-break-inside:avoid}
figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#555}
pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:.85em}
.note{color:#555;font-size:.9em}
.missing{color:#a33}
"""


class ReportError(Exception):
    """Bad input (exit 2)."""


def esc(s):
    return html.escape(str(s), quote=True)


def inline(s):
    """Escape a line of Markdown text; `code` spans become <code>."""
    parts = str(s).split("`")
    return "".join(f"<code>{esc(p)}</code>" if i % 2 else esc(p) for i, p in enumerate(parts))


def cells(line):
    """A pipe-table row's cells; an escaped pipe (\\|) stays in its cell."""
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]


def is_rule(line):
    return bool(re.fullmatch(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?", line.strip()))


def markdown_html(text):
    """The Markdown wanka renders (headings, pipe tables, lists, paragraphs)
    as HTML, every piece of text escaped."""
    out, lines, i = [], text.splitlines(), 0
    in_list = False
    while i < len(lines):
        line = lines[i].rstrip()
        if not line.startswith("- ") and in_list:
            out.append("</ul>")
            in_list = False
        if not line.strip():
            i += 1
            continue
        if line.startswith("|") and i + 1 < len(lines) and is_rule(lines[i + 1]):
            head = cells(line)
            rule = cells(lines[i + 1])
            right = [c.endswith(":") for c in rule]
            out.append("<table><thead><tr>" + "".join(f"<th>{inline(h)}</th>" for h in head) + "</tr></thead><tbody>")
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                row = cells(lines[i])
                tds = []
                for k, c in enumerate(row):
                    cls = ' class="num"' if k < len(right) and right[k] else ""
                    tds.append(f"<td{cls}>{inline(c)}</td>")
                out.append("<tr>" + "".join(tds) + "</tr>")
                i += 1
            out.append("</tbody></table>")
            continue
        m = re.match(r"(#{1,6})\s+(.*)", line)
        if m:
            level = min(len(m.group(1)) + 1, 6)
            out.append(f"<h{level}>{inline(m.group(2))}</h{level}>")
        elif line.startswith("- "):
            if not in_list:
                out.append('<ul class="note">')
                in_list = True
            out.append(f"<li>{inline(line[2:])}</li>")
        else:
            out.append(f"<p>{inline(line)}</p>")
        i += 1
    if in_list:
        out.append("</ul>")
    return "\n".join(out)


def svg_of(fig, n):
    """fig as an inline <svg> element: no XML prolog, no metadata, and every
    id prefixed with f<n>- so that several figures share one page."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    s = buf.getvalue()
    s = s[s.index("<svg"):]
    s = re.sub(r"<metadata>.*?</metadata>\s*", "", s, flags=re.S)
    s = re.sub(r'\bid="([^"]+)"', lambda m: f'id="f{n}-{m.group(1)}"', s)
    s = re.sub(r'href="#([^"]+)"', lambda m: f'href="#f{n}-{m.group(1)}"', s)
    s = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#f{n}-{m.group(1)})", s)
    return s


def open_traces(h5py, paths):
    traces = [plot.Trace(h5py, p) for p in paths]
    plot.disambiguate(traces)
    return traces


def runs_html(traces):
    rows = ["<table><thead><tr><th>run</th><th>scenario</th><th>scheduler</th><th>seed</th><th>GPUs</th>"
            "<th>overrides</th><th>file</th><th>wanka</th></tr></thead><tbody>"]
    for t in traces:
        f = t.f
        rows.append("<tr>" + "".join(f"<td>{esc(v)}</td>" for v in (
            t.label, t.scenario, plot.attr_str(f, "scheduler"), f.attrs.get("seed", ""), t.gpus,
            plot.attr_str(f, "overrides").strip().replace("\n", "; ") or "—", t.path,
            plot.attr_str(f, "wanka_version"))) + "</tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def scenarios_html(traces):
    """Each distinct scenario text once, with the runs that used it."""
    seen = {}
    for t in traces:
        key = plot.attr_str(t.f, "scenario")
        seen.setdefault(key, []).append(t)
    out = []
    for text, ts in seen.items():
        first = ts[0]
        name = plot.attr_str(first.f, "scenario_file") or first.scenario
        out.append(f"<h3>{esc(first.scenario or name)} <span class=\"note\">({esc(name)}; runs: "
                   f"{esc(', '.join(t.label for t in ts))})</span></h3>")
        sets = sorted({plot.attr_str(t.f, "overrides").strip() for t in ts} - {""})
        for s in sets:
            out.append(f"<p class=\"note\">--set overrides of some runs:</p><pre>{esc(s)}</pre>")
        out.append(f"<pre class=\"scenario\">{esc(text) if text else '(the trace holds no scenario text)'}</pre>")
    return "\n".join(out)


def figures_html(mods, traces):
    out = []
    for n, (what, caption) in enumerate(FIGURES, 1):
        try:
            fig = plot.figure(mods, what, traces)
        except plot.PlotError as e:
            out.append(f'<p class="missing">Figure {n} ({esc(what)}) not drawn: {esc(e)}</p>')
            continue
        svg = svg_of(fig, n)
        mods["plt"].close(fig)
        out.append(f'<figure id="fig-{esc(what)}">{svg}<figcaption>Figure {n}: {esc(caption)} '
                   f'(<code>wanka plot --what {esc(what)}</code>)</figcaption></figure>')
    return "\n".join(out)


def page(title, tables_md, runs, figure_traces, mods):
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        "<h2>Runs</h2>",
        runs_html(runs),
        "<h2>Results</h2>",
        markdown_html(tables_md),
        "<h2>Figures</h2>",
        f'<p class="note">Runs drawn: {esc(", ".join(t.label for t in figure_traces))}.</p>',
        figures_html(mods, figure_traces),
        "<h2>Scenarios</h2>",
        scenarios_html(runs),
        "</body></html>",
        "",
    ])


def commit_unless_interrupted(tmp, f, path):
    """Rename tmp over path with the stop signals held back: a signal already
    arrived leaves the page unwritten (its handler raises Interrupted once
    they are let through again); once the page is renamed it is complete,
    and a signal after that is ignored, so that an interrupted report never
    leaves a page and a page written is never reported as interrupted."""
    f.flush()
    os.fsync(f.fileno())  # the slow part, before the signals are held back: a signal in it stops the page
    ours = [s for s in STOP_SIGNALS if signal.getsignal(s) is interrupted]
    old = signal.pthread_sigmask(signal.SIG_BLOCK, ours)
    try:
        if not signal.sigpending() & set(ours):
            plot.commit_tmp(tmp, f, path)  # its own flush and fsync have nothing left to do
            for s in ours:
                signal.signal(s, signal.SIG_IGN)  # a pending one is dropped with it
            return True
        return False
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a pending signal raises Interrupted here


def write_atomic(path, text):
    """Write text to path through a temporary file beside it and a rename."""
    tmp = None
    try:
        tmp, f = plot.create_tmp(path, "w")  # never through a planted link
        with f:
            f.write(text)
            if commit_unless_interrupted(tmp, f, path):
                tmp = None
        if tmp:  # held back and not raised: still an interrupt, no page
            raise Interrupted(signal.SIGINT)
    except FileExistsError:
        raise ReportError(f"{path}: cannot create: its temporary {path}.tmp.{os.getpid()} already exists "
                          "(not made by this run; a link there is never followed): remove it") from None
    except OSError as e:
        plot.remove_quietly(tmp)
        raise ReportError(f"{path}: cannot write: {e}") from None
    except BaseException:  # interrupted: no partial output
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        for t in list(plot.OPEN_TMPS):  # one made but not yet named here (the signal came in between)
            plot.remove_quietly(t)
        raise


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description="Write the HTML report page.",
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", required=True, metavar="TABLES.md")
    p.add_argument("--title", required=True)
    p.add_argument("-o", "--output", required=True, metavar="OUT.html")
    p.add_argument("--figures", nargs="+", required=True, metavar="TRACE")
    p.add_argument("--runs", nargs="+", metavar="TRACE")
    a = p.parse_args(argv)
    outdir = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(outdir):
        plot.die(f"--html {a.output}: directory {outdir} does not exist")
    mods = plot.import_deps()
    mods["matplotlib"].rcParams["svg.hashsalt"] = "wanka"  # the same page for the same traces
    mods["matplotlib"].rcParams["svg.fonttype"] = "path"  # text as paths: no font needed
    try:
        with open(a.tables, encoding="utf-8", errors="replace") as f:
            tables = f.read()
    except OSError as e:
        plot.die(f"{a.tables}: cannot read: {e}")
    try:
        figs = open_traces(mods["h5py"], a.figures)
        runs = open_traces(mods["h5py"], a.runs) if a.runs else figs
        text = page(a.title, tables, runs, figs, mods)
        write_atomic(a.output, text)
    except (plot.PlotError, ReportError) as e:
        plot.die(str(e))
    return 0


def run(argv):
    """main(), with an interrupt status 128 + the signal (the temporary
    removed, no page written), never a traceback."""
    try:
        return main(argv)
    except (Interrupted, KeyboardInterrupt) as e:  # wanka, which got it too, says so in one line
        return 128 + int(getattr(e, "sig", signal.SIGINT))


if __name__ == "__main__":
    plot.PROG = PROG
    try:
        sys.exit(run(sys.argv[1:]))
    except (Interrupted, KeyboardInterrupt) as _e:  # between run() and exit
        sys.exit(128 + int(getattr(_e, "sig", signal.SIGINT)))
