"""Join check logs of several runs and report the checks that machine noise could break.

Each run (a BLAS kernel and a thread count) wrote one JSON line per check
(:mod:`dr_lib._check_log`). For every check this compares what it used of its tolerance
across the runs: its headroom, 1 − max(used), must be at least ``RATIO`` (10) times its
spread, max(used) − min(used). A check that fails this would fail on a machine whose
round-off differs from ours a little more than the ones we tried.

Also reported, and each an error:

- a label that two places of one notebook use (two claims that the log cannot tell
  apart);
- a check that some runs of a notebook record and others do not (a label that carries a
  measured number, or a run that stopped early);
- a check that failed (headroom below 0) in some run.

Usage::

    python -m tests.check_log.report default=_build/checks/default.jsonl \\
        prescott-1=_build/checks/prescott-1.jsonl

Exits 1 when there is anything to report, else 0.
"""

import argparse
import json
import math
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

#: A check's headroom must be at least this many times its spread across runs.
RATIO = 10.0


@dataclass
class Check:
    """One check of one notebook, across runs: its worst headroom in each run."""

    notebook: str
    label: str
    kind: str = ""
    sites: set = field(default_factory=set)
    headroom: dict = field(default_factory=dict)  # run -> smallest headroom in the run

    @property
    def worst(self):
        return min(self.headroom.values())

    @property
    def spread(self):
        return max(self.headroom.values()) - min(self.headroom.values())

    @property
    def ratio(self):
        """Headroom over spread (inf when the runs agree exactly)."""
        if self.spread == 0:
            return math.inf
        return self.worst / self.spread

    def describe(self):
        values = ", ".join(f"{run} {1 - h:.3g}" for run, h in self.headroom.items())
        return f"{self.notebook} | {self.label} | used: {values}"


def _headroom(entry):
    value = entry.get("headroom")
    if value is None and entry.get("used") is not None:
        value = 1.0 - entry["used"]
    return -math.inf if value is None else float(value)


def load(runs):
    """``{(notebook, label): Check}`` and ``{run: notebooks it covers}`` from the
    logs."""
    checks, covered = {}, defaultdict(set)
    sites = defaultdict(set)  # (run, notebook, label) -> sites
    for run, path in runs.items():
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            key = (entry["notebook"], entry["label"])
            check = checks.setdefault(key, Check(*key, kind=entry.get("kind", "")))
            sites[(run, *key)].add(entry["site"])
            check.sites.add(entry["site"])
            headroom = _headroom(entry)
            check.headroom[run] = min(check.headroom.get(run, math.inf), headroom)
            covered[run].add(entry["notebook"])
    duplicates = sorted(
        {(nb, label): s for (run, nb, label), s in sites.items() if len(s) > 1}.items()
    )
    return checks, covered, duplicates


def judge(runs):
    """Everything to report, as lists of strings, plus a summary dict."""
    checks, covered, duplicates = load(runs)
    failed, missing, thin = [], [], []
    for check in checks.values():
        expected = [run for run in runs if check.notebook in covered[run]]
        absent = [run for run in expected if run not in check.headroom]
        if absent:
            missing.append(
                f"{check.notebook} | {check.label} | not in: {', '.join(absent)}"
            )
        if check.worst < 0:
            failed.append(check.describe())
        elif len(check.headroom) > 1 and check.worst < RATIO * check.spread:
            thin.append(check)
    thin.sort(key=lambda check: check.ratio)
    compared = [check for check in checks.values() if len(check.headroom) > 1]
    varying = [check for check in compared if check.spread > 0]
    summary = {
        "runs": list(runs),
        "checks": len(checks),
        "compared across runs": len(compared),
        "varying across runs": len(varying),
        "worst headroom / spread": min((c.ratio for c in varying), default=math.inf),
    }
    return {
        "summary": summary,
        "duplicate labels": [
            f"{nb} | {label} | at {sorted(s)}" for (nb, label), s in duplicates
        ],
        "missing in some runs": missing,
        "failed": failed,
        "thin headroom": [
            f"{c.describe()} | headroom {c.worst:.3g} < {RATIO:g} x spread "
            f"{c.spread:.3g}"
            for c in thin
        ],
        "closest": [
            f"{c.ratio:10.3g}  {c.describe()}"
            for c in sorted(varying, key=lambda check: check.ratio)[:10]
        ],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=LOG", help="a run and its log")
    args = parser.parse_args(argv)
    runs = dict(run.split("=", 1) for run in args.runs)
    result = judge(runs)
    summary = result["summary"]
    print(f"Check logs of {len(runs)} runs: {', '.join(summary['runs'])}")
    print(
        f"{summary['checks']} checks logged, {summary['compared across runs']} in more "
        f"than one run, {summary['varying across runs']} of them varying; worst "
        f"headroom / spread: {summary['worst headroom / spread']:.3g} "
        f"(at least {RATIO:g} required)"
    )
    if result["closest"]:
        print("The ten checks closest to the rule (headroom / spread):")
        print("\n".join(result["closest"]))
    problems = 0
    for heading in (
        "duplicate labels",
        "missing in some runs",
        "failed",
        "thin headroom",
    ):
        if result[heading]:
            problems += len(result[heading])
            print(f"\n{heading.upper()} ({len(result[heading])}):")
            print("\n".join(result[heading]))
    if problems:
        print(f"\n{problems} problems.")
        return 1
    print("\nNo check is thin: every headroom is at least 10 times the spread.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
