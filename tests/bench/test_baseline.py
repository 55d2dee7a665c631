"""bench/_baseline.py and bench/process.py --baseline: another commit's code, run beside the working tree."""

from __future__ import annotations

import statistics
import subprocess

import pytest

from bench import _baseline


def test_an_unknown_revision_is_refused_naming_it():
    with pytest.raises(SystemExit, match="--baseline no-such-rev-26: not a commit"):
        _baseline.resolve("no-such-rev-26")


def test_an_exported_commit_imports_its_own_code_not_the_installed_one():
    head = _baseline.resolve("HEAD")
    tree = _baseline.export(head)
    try:
        committed = subprocess.run(["git", "-C", str(_baseline.REPO), "show", f"{head}:aac/__init__.py"],
                                   capture_output=True, text=True, check=True).stdout
        assert (tree / "aac" / "__init__.py").read_text() == committed
        res = _baseline.run(tree, ["-c", "import aac; print(aac.__file__)"])
        assert res.stdout.strip() == str(tree / "aac" / "__init__.py")
        assert res.wall > 0 and res.cpu >= 0
    finally:
        _baseline.remove(tree)
    assert not tree.exists()


def test_a_failing_child_stops_the_comparison_with_its_error():
    with pytest.raises(SystemExit, match="exited 3"):
        _baseline.run(_baseline.REPO, ["-c", "import sys; sys.exit(3)"])


def test_the_repository_itself_is_never_removed():
    _baseline.remove(_baseline.REPO)
    assert (_baseline.REPO / "aac").is_dir()


def test_process_bench_alternates_sides_so_load_drift_weighs_on_both(load_bench):
    order = load_bench("process")._order(3)
    assert order == ["before", "after", "after", "before", "before", "after"]
    assert order.count("before") == order.count("after")


def test_the_verdict_pairs_each_round_s_two_runs_so_a_load_drift_between_rounds_cancels(load_bench):
    bench = load_bench("process")
    # CPU seconds of a real run whose load drifted: the sides' medians give 13.6 / 12.0 = 1.13, the rounds 1.03
    before, after = [11.5, 12.0, 13.4], [10.9, 13.6, 13.8]
    ratios = bench.round_ratios(before, after)
    assert ratios == pytest.approx([0.948, 1.133, 1.030], abs=1e-3)
    assert statistics.median(ratios) == pytest.approx(1.030, abs=1e-3)
    with pytest.raises(ValueError, match="one of each"):
        bench.round_ratios([1.0, 2.0], [1.0])
