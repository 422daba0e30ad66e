"""Run every benchmark in one process, then print all ratios in one table
(``make bench``).

Each ``bench_*.py`` has a ``main()``; this script imports them in alphabetical order,
runs them, and prints the table of ``_harness.RESULTS`` with the machine's load before
and after (the timings are only as quiet as the machine).
"""

import importlib
import pathlib

import _harness  # the script's folder is on sys.path when run as a script

HERE = pathlib.Path(__file__).resolve().parent


def main():
    """Run every benchmark and print the summary table."""
    print(f"Before: {_harness.load_average()}\n", flush=True)
    for path in sorted(HERE.glob("bench_*.py")):
        print(f"== {path.name}", flush=True)
        importlib.import_module(path.stem).main()
    print(f"\nAfter: {_harness.load_average()}")
    print(
        "\nEvery ratio dr_lib / reference (< 1: dr_lib is faster), from interleaved "
        "runs:\nratio = of the best runs, median = of the median runs, CPU = of the "
        "median\nCPU times of the process."
    )
    print(_harness.table())


if __name__ == "__main__":
    main()
