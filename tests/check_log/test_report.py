"""The report finds thin headroom, shared labels, missing and failed checks."""

import json

import pytest

from tests.check_log import report


def write(path, entries):
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return str(path)


def entry(label, used, site="cell 1, line 1", notebook="book/a.ipynb", **extra):
    return {"notebook": notebook, "label": label, "used": used, "site": site, **extra}


@pytest.fixture
def runs(tmp_path):
    def make(**logs):
        return {name: write(tmp_path / f"{name}.jsonl", e) for name, e in logs.items()}

    return make


def test_headroom_must_be_ten_times_the_spread(runs):
    result = report.judge(
        runs(
            one=[entry("wide", 0.10), entry("thin", 0.70), entry("steady", 0.95)],
            two=[entry("wide", 0.12), entry("thin", 0.75), entry("steady", 0.95)],
        )
    )
    # wide: headroom 0.88 >= 10 x 0.02; thin: 0.25 < 10 x 0.05; steady: no spread at all
    assert (
        len(result["thin headroom"]) == 1 and "| thin |" in result["thin headroom"][0]
    )
    assert result["summary"]["checks"] == 3
    assert result["summary"]["varying across runs"] == 2
    assert result["summary"]["worst headroom / spread"] == pytest.approx(0.25 / 0.05)


def test_the_worst_entry_of_a_run_counts(runs):
    # a check in a loop writes its new worst cases: the run's value is the largest used
    result = report.judge(
        runs(
            one=[entry("loop", 0.1), entry("loop", 0.5)],
            two=[entry("loop", 0.1), entry("loop", 0.3)],
        )
    )
    assert len(result["thin headroom"]) == 1  # 0.5 < 10 x 0.2


def test_headroom_field_is_preferred_to_one_minus_used(runs):
    tiny = {"headroom": 1e-12}
    result = report.judge(
        runs(
            one=[entry("bound", 1.0, **tiny)],
            two=[entry("bound", 1.0, headroom=1e-12 + 1e-15)],
        )
    )
    assert result["thin headroom"] == []  # 1e-12 >= 10 x 1e-15
    assert result["summary"]["worst headroom / spread"] == pytest.approx(1000, rel=1e-3)


def test_one_label_at_two_sites_is_reported(runs):
    result = report.judge(
        runs(
            one=[
                entry("same", 0.1, site="cell 1, line 1"),
                entry("same", 0.1, "cell 2, line 4"),
            ]
        )
    )
    assert len(result["duplicate labels"]) == 1


def test_a_check_missing_from_a_run_of_its_notebook_is_reported(runs):
    result = report.judge(
        runs(
            one=[
                entry("kl = 2.731", 0.1),
                entry("other", 0.1, notebook="book/b.ipynb"),
            ],
            two=[entry("kl = 2.732", 0.1)],
        )
    )
    missing = result["missing in some runs"]
    assert len(missing) == 2 and all("book/a.ipynb" in line for line in missing)
    # book/b.ipynb was not run in "two": its check is not missing there


def test_failures_and_nan_are_reported(runs):
    result = report.judge(runs(one=[entry("over", 1.2), entry("nan", None)]))
    assert len(result["failed"]) == 2


def test_main_exits_1_on_problems_and_0_without(runs, capsys):
    good = runs(one=[entry("a", 0.1)], two=[entry("a", 0.1)])
    assert report.main([f"{k}={v}" for k, v in good.items()]) == 0
    bad = runs(one=[entry("a", 0.5)], two=[entry("a", 0.6)])
    assert report.main([f"{k}={v}" for k, v in bad.items()]) == 1
    assert "THIN HEADROOM (1)" in capsys.readouterr().out
