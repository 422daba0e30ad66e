"""Time dr_lib against a reference implementation on the same input, side by side."""

import time


def best_time(function, repeats):
    """The shortest wall time of ``repeats`` calls of ``function()``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def compare(name, ours, reference, *, repeats=5):
    """Time two zero-argument callables alternately; print and return the ratio ours/reference."""
    ours(), reference()  # warm up caches and lazy imports
    t_ours = best_time(ours, repeats)
    t_ref = best_time(reference, repeats)
    ratio = t_ours / t_ref
    print(
        f"{name:45s} dr_lib {t_ours * 1e3:9.1f} ms   reference {t_ref * 1e3:9.1f} ms   "
        f"ratio {ratio:5.2f}"
    )
    return ratio
