"""How the portability runs share the machine's cores."""

import pytest

from tests.check_log.portability import workers


@pytest.mark.parametrize(
    ("name", "env_changes", "cores", "expected"),
    [
        ("default", {}, 8, []),  # the machine's own thread count: one run at a time
        ("prescott-1", {"OMP_NUM_THREADS": "1"}, 2, ["-n", "2"]),
        ("haswell-2", {"OMP_NUM_THREADS": "2"}, 2, []),
        ("haswell-2", {"OMP_NUM_THREADS": "2"}, 8, ["-n", "4"]),
        ("prescott-1", {"OMP_NUM_THREADS": "1"}, 1, []),
    ],
)
def test_workers_leave_each_run_its_threads(name, env_changes, cores, expected):
    arguments = workers(env_changes, cores=cores)
    assert arguments[:2] == expected
    if expected:
        # a notebook's cells stay on one kernel
        assert arguments[2:] == ["--dist", "loadscope"]
