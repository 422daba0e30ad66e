"""Run the notebooks and the library tests as other machines would, and compare the
checks.

A reader's CPU makes OpenBLAS pick another kernel, and their machine another number of
threads; both change round-off. This runs, for each configuration given,

- the library tests (``tests/lib``), which must pass, and
- the notebooks (``pytest --nbval-lax``), with every check recorded in
  ``<out>/<configuration>.jsonl`` (:mod:`tests.check_log.plugin`),

then joins the logs and reports every check whose headroom is less than ten times its
spread across the runs (:mod:`tests.check_log.report`).

A configuration is ``default`` (what the machine picks) or ``<kernel>-<threads>``, e.g.
``prescott-1`` (OpenBLAS's generic x86-64 kernel, one thread) or ``haswell-2``. The
thread count is set for OpenMP, OpenBLAS and numba together. A kernel this CPU cannot
run (Haswell needs AVX2 and FMA, SkylakeX AVX-512, and every one of them x86-64) is
skipped with the reason printed.

Usage::

    python -m tests.check_log.portability --runs default,prescott-1,haswell-2
    python -m tests.check_log.portability --out _build/checks --keep default \\
        --runs prescott-1 book/04_isomap book/05_lle book/06_laplacian_eigenmaps

The positional arguments are the notebooks (files or folders; ``book`` by default).

``--keep`` names runs whose logs are already in ``--out`` (``make test`` keeps the log
of its own run of every notebook), to join without running them again.
"""

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from dr_lib import _check_log
from tests.check_log import report

ROOT = Path(__file__).resolve().parents[2]

#: What each OpenBLAS kernel needs of the CPU (numpy's names for the features).
KERNEL_NEEDS = {
    "prescott": ("SSE3",),
    "haswell": ("AVX2", "FMA3"),
    "skylakex": ("AVX512F", "AVX512CD", "AVX512_SKX"),
}
#: OPENBLAS_CORETYPE spells the kernels so.
KERNEL_NAMES = {"prescott": "Prescott", "haswell": "Haswell", "skylakex": "SkylakeX"}
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")


def cpu_features():
    """The CPU features numpy detected, e.g. {"AVX2": True, ...}."""
    from numpy._core._multiarray_umath import __cpu_features__

    return __cpu_features__


def configuration(name):
    """The environment of a configuration, or the reason this machine cannot run it."""
    if name == "default":
        return {}, None
    kernel, _, threads = name.partition("-")
    if kernel not in KERNEL_NEEDS or not threads.isdigit():
        known = ", ".join(KERNEL_NEEDS)
        raise SystemExit(
            f"{name!r}: use default or <kernel>-<threads>, kernel in {known}"
        )
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None, f"{kernel} is an x86-64 kernel and this is {platform.machine()}"
    absent = [f for f in KERNEL_NEEDS[kernel] if not cpu_features().get(f)]
    if absent:
        return None, f"{kernel} needs {', '.join(absent)}, which this CPU lacks"
    env = {"OPENBLAS_CORETYPE": KERNEL_NAMES[kernel]}
    env.update(dict.fromkeys(THREAD_VARIABLES, threads))
    return env, None


def _run(command, env, title):
    print(f"\n=== {title}: {' '.join(command)}", flush=True)
    start = time.perf_counter()
    code = subprocess.call(command, cwd=ROOT, env=env)
    print(
        f"=== {title}: exit {code} after {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    return code


def _blas_report(env):
    """What OpenBLAS says it uses under ``env``: kernel and threads of each copy."""
    probe = (
        "import numpy, scipy.linalg, threadpoolctl\n"
        "for pool in threadpoolctl.threadpool_info():\n"
        "    if pool['internal_api'] == 'openblas':\n"
        "        print(f\"  {pool['prefix']}: {pool.get('architecture')}, \"\n"
        "              f\"{pool['num_threads']} threads\")\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return output.stdout.rstrip()


def workers(env_changes, cores=None):
    """pytest-xdist's arguments for a configuration: as many workers as its threads
    leave cores free (a one-thread run uses every core), none for the machine's default.

    Each worker runs whole test modules and whole notebooks (``--dist loadscope``: a
    notebook's cells share one kernel), in a process of its own, with the
    configuration's kernel and thread count: what a check computes is the same as in a
    run one test at a time.
    """
    threads = env_changes.get(THREAD_VARIABLES[0])
    count = (cores or os.cpu_count() or 1) // int(threads) if threads else 1
    return ["-n", str(count), "--dist", "loadscope"] if count > 1 else []


def run_configuration(name, env_changes, out, notebooks):
    """Library tests and notebooks under one configuration; returns the failed steps."""
    env = dict(os.environ, **env_changes)
    env.pop(_check_log.LOG_VARIABLE, None)
    settings = (
        " ".join(f"{k}={v}" for k, v in env_changes.items()) or "(as the machine picks)"
    )
    print(f"\n##### {name}: {settings}\n{_blas_report(env)}", flush=True)
    failed = []
    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    pytest += workers(env_changes)
    if _run([*pytest, "tests/lib"], env, f"{name}: library tests"):
        failed.append(f"{name}: library tests")
    env[_check_log.LOG_VARIABLE] = str(out / f"{name}.jsonl")
    nbval = ["-p", "tests.check_log.plugin", "--nbval-lax", "--nbval-current-env"]
    if _run([*pytest, *nbval, *notebooks], env, f"{name}: notebooks"):
        failed.append(f"{name}: notebooks")
    return failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", default=["book"], metavar="NOTEBOOK")
    parser.add_argument("--runs", required=True, help="configurations, comma-separated")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "portability")
    parser.add_argument("--keep", default="", help="runs already logged in --out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failed, logs = [], {}
    for name in filter(None, args.keep.split(",")):
        logs[name] = args.out / f"{name}.jsonl"
        if not logs[name].exists():
            raise SystemExit(f"--keep {name}: there is no {logs[name]}")
    for name in args.runs.split(","):
        env_changes, reason = configuration(name)
        if reason:
            print(f"\n##### {name}: skipped, {reason}.", flush=True)
            continue
        failed += run_configuration(name, env_changes, args.out, args.notebooks)
        logs[name] = args.out / f"{name}.jsonl"
    print()
    verdict = report.main([f"{name}={path}" for name, path in logs.items()])
    if failed:
        print("\nFailed: " + "; ".join(failed))
    return 1 if failed or verdict else 0


if __name__ == "__main__":
    sys.exit(main())
