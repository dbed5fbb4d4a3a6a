#!/usr/bin/env python3
"""Renders the leaderboard with `kernelgate report --html`, loads every page in
headless Chromium and checks the DOM the browser built against the JSON
reports: every ranked implementation has a table row and a chart bar with the
report's latency, pages with a floor draw it, the semantics and identity are
there. Takes a screenshot of the first workload page. Exits 1 naming what
differs.
"""
import argparse
import html.parser
import json
import math
import pathlib
import subprocess
import sys


class PageDom(html.parser.HTMLParser):
    """The parts of a page the test looks at, from the browser's DOM dump."""

    def __init__(self):
        super().__init__()
        self.tables = {}        # hardware -> {implementation: mean shown (data-value)}
        self.bars = []          # (implementation, mean_ms) in document order
        self.floors = []        # floor values drawn
        self.history = {}       # hardware -> {(implementation, trust): [ms of each point drawn]}
        self.change_points = {} # hardware -> [(implementation, observed)] circled
        self._history = None
        self.identity = ""
        self.headings = []
        self._table = None
        self._row = None
        self._in_identity = False
        self._in_heading = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = a.get("class", "").split()
        if tag == "table" and "implementations" in classes:
            self._table = self.tables.setdefault(a.get("data-hardware", ""), {})
        elif tag == "tr" and self._table is not None and "data-implementation" in a:
            self._row = a["data-implementation"]
        elif tag == "td" and self._row is not None and "mean" in classes:
            self._table[self._row] = float(a["data-value"])
        elif tag == "rect" and "bar" in classes:
            self.bars.append((a["data-implementation"], float(a["data-mean-ms"])))
        elif tag == "div" and "history" in classes:
            self._history = a.get("data-hardware", "")
            self.history.setdefault(self._history, {})
        elif tag == "circle" and "history-point" in classes and self._history is not None:
            key = (a["data-implementation"], a["data-trust"])
            self.history[self._history].setdefault(key, []).append(float(a["data-ms"]))
            if "change-point" in classes:
                self.change_points.setdefault(self._history, []).append((key[0], a["data-observed"]))
        elif tag == "line" and "floor" in classes:
            self.floors.append(float(a["data-floor-ms"]))
        elif tag == "code" and "identity" in classes:
            self._in_identity = True
        elif tag in ("h2", "h3"):
            self._in_heading = True

    def handle_endtag(self, tag):
        if tag == "div":
            self._history = None
        if tag == "table":
            self._table = None
        elif tag == "tr":
            self._row = None
        elif tag == "code":
            self._in_identity = False
        elif tag in ("h2", "h3"):
            self._in_heading = False

    def handle_data(self, data):
        if self._in_identity:
            self.identity += data.strip()
        if self._in_heading and data.strip():
            self.headings.append(data.strip())


def chromium(browser, page, *extra):
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--virtual-time-budget=2000", *extra, page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def published_series(baseline):
    """Each implementation's published records in a baseline file, oldest
    first, as the history chart must draw them: {(implementation, trust): [ms]}."""
    series = {}
    for record in baseline["records"]:
        key = (record["implementation"], record["trust"])
        records = [h["previous"] for h in baseline.get("history", [])
                   if h.get("previous") and (h["previous"]["implementation"], h["previous"]["trust"]) == key]
        records.append(record)
        by_median = all(r["latency"].get("median_ms") for r in records)
        series[key] = [r["latency"]["median_ms" if by_median else "mean_ms"] for r in records]
    return series


def check_history(page, dom, baselines_dir, workload):
    """The page draws one point per published record of every stored file."""
    problems = []
    for path in sorted((baselines_dir / workload).glob("*.json")):
        expected = published_series(json.loads(path.read_text()))
        drawn = dom.history.get(path.stem)
        if drawn is None:
            problems.append(f"{page.name}: no history chart for {path.stem}")
            continue
        for key, values in expected.items():
            shown = drawn.get(key, [])
            if len(shown) != len(values) or not all(close(a, b) for a, b in zip(shown, values)):
                problems.append(f"{page.name} [{path.stem}]: history of {key[0]} ({key[1]}) draws {shown}, "
                                f"the baseline file has {values}")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernelgate", required=True)
    parser.add_argument("--chromium", default="")
    parser.add_argument("--reports", required=True, type=pathlib.Path)
    parser.add_argument("--baselines", required=True)
    parser.add_argument("--suites", required=True)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args()
    if not args.chromium or not pathlib.Path(args.chromium).exists():
        print("chromium not found: run ci/install-deps.sh", file=sys.stderr)
        return 1

    subprocess.run([args.kernelgate, "report", "--html", str(args.out), "--reports", str(args.reports),
                    "--baselines", args.baselines, "--suites", args.suites], check=True)
    reports = sorted(p for p in args.reports.glob("*.json") if p.name.count(".") == 2)
    if not reports:
        print(f"no JSON report in {args.reports}", file=sys.stderr)
        return 1

    problems = []
    by_workload = {}
    for path in reports:
        report = json.loads(path.read_text())
        by_workload.setdefault(report["workload"]["id"], []).append(report)

    for workload, workload_reports in sorted(by_workload.items()):
        page = args.out / f"{workload}.html"
        result = chromium(args.chromium, page, "--dump-dom")
        if result.returncode != 0 or "<html" not in result.stdout:
            problems.append(f"{page.name}: the browser did not load it: {result.stderr[-400:]}")
            continue
        dom = PageDom()
        dom.feed(result.stdout)
        for report in workload_reports:
            hardware = report["hardware"]
            table = dom.tables.get(hardware)
            if table is None:
                problems.append(f"{page.name}: no implementations table for {hardware}")
                continue
            bars = dict(dom.bars)
            for entry in report["ranking"]:
                name, mean = entry["implementation"], entry["mean_ms"]
                if name not in table or not close(table[name], mean):
                    problems.append(f"{page.name} [{hardware}]: table shows {table.get(name)} ms for {name}, "
                                    f"the report says {mean}")
                if name not in bars or not close(bars[name], mean):
                    problems.append(f"{page.name} [{hardware}]: chart bar {bars.get(name)} ms for {name}, "
                                    f"the report says {mean}")
            # A counted report's modelled times: a table of their own, one row per counted candidate.
            counted = [c for c in report["candidates"] if "hardware" in c.get("model", {})]
            if counted:
                at = result.stdout.find("Modelled from interpret mode's counters")
                if at < 0:
                    problems.append(f"{page.name} [{hardware}]: counted candidates but no table of modelled times")
                for c in counted:
                    modelled = [m for m in c["model"]["hardware"].values() if "not_modelled" not in m]
                    row = f"<code>{c['id']}</code>"
                    if at < 0 or row not in result.stdout[at:] or (
                            modelled and f" ms, {modelled[0]['bound']}" not in result.stdout[at:]):
                        problems.append(f"{page.name} [{hardware}]: no modelled row for {c['id']}")
            if report.get("floors") and not dom.floors:
                problems.append(f"{page.name} [{hardware}]: the report has floors but no floor line is drawn")
        # Stored GPU baselines (the H100 records that ship with the repository)
        # come with floors: a page for a workload that has them draws one.
        stored_gpu = [p for p in (pathlib.Path(args.baselines) / workload).glob("*.json") if p.stem != "cpu"]
        if stored_gpu and not dom.floors:
            problems.append(f"{page.name}: no floor line drawn, though {workload} has stored GPU baselines")
        problems += check_history(page, dom, pathlib.Path(args.baselines), workload)
        if len(dom.identity) != 64:
            problems.append(f"{page.name}: the workload identity is missing")
        for heading in ("Semantics", "Tensors", "Axes", "Constraints"):
            if heading not in dom.headings:
                problems.append(f"{page.name}: no '{heading}' section")
        # The pages share one template: one screenshot shows that a page
        # renders (each browser start is a second or two of the test's time).
        if workload == min(by_workload):
            shot = args.out / f"{workload}.png"
            result = chromium(args.chromium, page, f"--screenshot={shot}", "--window-size=1100,1600")
            if result.returncode != 0 or not shot.exists() or shot.stat().st_size < 10000:
                problems.append(f"{page.name}: no screenshot: {result.stderr[-400:]}")

    index = chromium(args.chromium, args.out / "index.html", "--dump-dom")
    for workload in by_workload:
        if f'href="{workload}.html"' not in index.stdout:
            problems.append(f"index.html: no link to {workload}.html")

    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(by_workload)} workload page(s) checked in the browser, {len(problems)} problem(s); "
          f"a screenshot in {args.out}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
