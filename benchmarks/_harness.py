"""Time dr_lib against a reference implementation on the same input, side by side.

The machine may be shared, so one comparison interleaves the two implementations (ours,
reference, reference, ours, ...): a burst of load then slows both sides alike. The ratio
reported is that of the best runs, which approach the times on a quiet machine; next to
it stand the ratio of the median runs (typical conditions, steadier when the machine is
busy) and that of the median CPU times of the process (all threads added up: the work
done, least sensitive to load, but blind to work spread over several cores). Fast
functions get many runs, slow ones few: runs continue until both sides have had
``min_repeats`` and the comparison has used ``budget`` seconds (or ``max_repeats``
each). Every comparison is recorded in ``RESULTS``, which ``run_all.py`` prints as one
table at the end.
"""

import os
import statistics
import time
from dataclasses import dataclass


@dataclass
class Timing:
    """Wall and CPU seconds of every run of one implementation."""

    wall: list
    cpu: list

    @property
    def best(self):
        """The shortest wall time."""
        return min(self.wall)

    @property
    def median(self):
        """The median wall time."""
        return statistics.median(self.wall)

    @property
    def median_cpu(self):
        """The median CPU time."""
        return statistics.median(self.cpu)


#: One row per comparison: (name, Timing of dr_lib, Timing of the reference).
RESULTS = []


def _timed(function):
    """Wall and process CPU time of one call of ``function()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def interleaved_times(ours, reference, *, min_repeats=3, budget=5.0, max_repeats=25):
    """Time ``ours()`` and ``reference()`` alternately; return their two Timings."""
    timings = {"ours": Timing([], []), "reference": Timing([], [])}
    start, runs = time.perf_counter(), 0
    while runs < max_repeats and (
        runs < min_repeats or time.perf_counter() - start < budget
    ):
        pair = [("ours", ours), ("reference", reference)]
        for label, function in pair if runs % 2 == 0 else pair[::-1]:
            wall, cpu = _timed(function)
            timings[label].wall.append(wall)
            timings[label].cpu.append(cpu)
        runs += 1
    return timings["ours"], timings["reference"]


def _ratios(ours, reference):
    """Best, median and median-CPU ratios ours / reference."""
    return (
        ours.best / reference.best,
        ours.median / reference.median,
        ours.median_cpu / reference.median_cpu,
    )


def compare(name, ours, reference, *, min_repeats=3, budget=5.0):
    """Time two zero-argument callables; print and return the best-run ratio."""
    ours(), reference()  # warm up caches and lazy imports
    mine, theirs = interleaved_times(
        ours, reference, min_repeats=min_repeats, budget=budget
    )
    RESULTS.append((name, mine, theirs))
    best, median, cpu = _ratios(mine, theirs)
    print(
        f"{name:52s} dr_lib {mine.best * 1e3:9.1f} ms   reference "
        f"{theirs.best * 1e3:9.1f} ms   ratio {best:5.2f}   (median {median:5.2f}, "
        f"CPU {cpu:5.2f}, {len(mine.wall)} runs)",
        flush=True,
    )
    return best


def load_average():
    """The 1-minute load average and the number of CPUs, as a short text."""
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def table(rows=None):
    """Every recorded comparison as one aligned text table."""
    rows = RESULTS if rows is None else rows
    width = max([len("benchmark")] + [len(row[0]) for row in rows])
    header = (
        f"{'benchmark':{width}s}  {'dr_lib ms':>9s}  {'ref. ms':>9s}  {'ratio':>5s}  "
        f"{'median':>6s}  {'CPU':>5s}  {'runs':>4s}"
    )
    lines = [header, "-" * len(header)]
    for name, mine, theirs in rows:
        best, median, cpu = _ratios(mine, theirs)
        flag = "" if best <= 1 else "  > 1"
        lines.append(
            f"{name:{width}s}  {mine.best * 1e3:9.1f}  {theirs.best * 1e3:9.1f}  "
            f"{best:5.2f}  {median:6.2f}  {cpu:5.2f}  {len(mine.wall):4d}{flag}"
        )
    return "\n".join(lines)
