"""bench/_baseline.py and bench/process.py --baseline: another commit's code, run beside the working tree."""

from __future__ import annotations

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
