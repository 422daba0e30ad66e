"""Time dr_lib against a reference implementation on the same input, side by side.

The machine may be shared, so one comparison interleaves the two implementations (ours,
reference, reference, ours, ...) and keeps the best run of each: a burst of load then
slows both sides alike, or neither, and the best of many runs approaches the time on a
quiet machine. Fast functions get many runs, slow ones few: runs continue until both sides
have had ``min_repeats`` and the comparison has used ``budget`` seconds (or ``max_repeats``
each). Next to the wall time, the best CPU time of the process is kept too (all threads
added up): it counts the work done and is less sensitive to load, but hides the gain of
work spread over several cores. Every comparison is recorded in ``RESULTS``, which
``run_all.py`` prints as one table at the end.
"""

import os
import time

#: One row per comparison: (name, wall s dr_lib, wall s reference, CPU s dr_lib,
#: CPU s reference, runs of each).
RESULTS = []


def _timed(function):
    """Wall and process CPU time of one call of ``function()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def best_times(ours, reference, *, min_repeats=3, budget=5.0, max_repeats=25):
    """Best (wall, CPU) times of ``ours()`` and ``reference()``, interleaved.

    Returns ``(best_ours, best_reference, runs)``, each best a (wall, CPU) pair of
    seconds, each minimised separately.
    """
    best = {"ours": [float("inf")] * 2, "reference": [float("inf")] * 2}
    start, runs = time.perf_counter(), 0
    while runs < max_repeats and (
        runs < min_repeats or time.perf_counter() - start < budget
    ):
        pair = [("ours", ours), ("reference", reference)]
        for label, function in pair if runs % 2 == 0 else pair[::-1]:
            best[label] = [min(b, t) for b, t in zip(best[label], _timed(function))]
        runs += 1
    return best["ours"], best["reference"], runs


def compare(name, ours, reference, *, min_repeats=3, budget=5.0):
    """Time two zero-argument callables; print and return the wall ratio ours / reference."""
    ours(), reference()  # warm up caches and lazy imports
    (wall, cpu), (wall_ref, cpu_ref), runs = best_times(
        ours, reference, min_repeats=min_repeats, budget=budget
    )
    RESULTS.append((name, wall, wall_ref, cpu, cpu_ref, runs))
    print(
        f"{name:52s} dr_lib {wall * 1e3:9.1f} ms   reference {wall_ref * 1e3:9.1f} ms"
        f"   ratio {wall / wall_ref:5.2f}   (CPU ratio {cpu / cpu_ref:5.2f}, {runs} runs)",
        flush=True,
    )
    return wall / wall_ref


def load_average():
    """The 1-minute load average and the number of CPUs, as a short text."""
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def table(rows=None):
    """Every recorded comparison as one aligned text table, wall ratio first."""
    rows = RESULTS if rows is None else rows
    width = max([len("benchmark")] + [len(row[0]) for row in rows])
    header = (
        f"{'benchmark':{width}s}  {'dr_lib ms':>10s}  {'reference ms':>12s}  "
        f"{'ratio':>5s}  {'CPU ratio':>9s}  {'runs':>4s}"
    )
    lines = [header, "-" * len(header)]
    for name, wall, wall_ref, cpu, cpu_ref, runs in rows:
        flag = "" if wall <= wall_ref else "  > 1"
        lines.append(
            f"{name:{width}s}  {wall * 1e3:10.1f}  {wall_ref * 1e3:12.1f}  "
            f"{wall / wall_ref:5.2f}  {cpu / cpu_ref:9.2f}  {runs:4d}{flag}"
        )
    return "\n".join(lines)
