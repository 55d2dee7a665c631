"""The code digest follows a package's own imports (absolute, relative, inside functions) and changes with them."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from aac.core import codehash


@pytest.fixture
def fixture_package(tmp_path, monkeypatch):
    """A throw-away package `ch_fix` on sys.path: a -> b (relative), b -> c (inside a function), d unrelated."""
    pkg = tmp_path / "ch_fix"
    pkg.mkdir()
    files = {
        "__init__.py": "",
        "a.py": "from . import b\nimport json\n",
        "b.py": "def f():\n    from ch_fix.c import g\n    return g()\n",
        "c.py": "def g():\n    return 1\n",
        "d.py": "X = 1\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield pkg
    for mod in [m for m in sys.modules if m == "ch_fix" or m.startswith("ch_fix.")]:
        del sys.modules[mod]
    codehash._digest.cache_clear()


def test_closure_follows_relative_and_function_level_imports_only_within_the_package(fixture_package):
    assert codehash.module_closure(["ch_fix.a"]) == ["ch_fix", "ch_fix.a", "ch_fix.b", "ch_fix.c"]  # `from . import b` runs the package too
    assert codehash.module_closure(["ch_fix.a"], exclude=["ch_fix.b"]) == ["ch_fix", "ch_fix.a"]


def test_digest_changes_with_an_imported_module_and_not_with_an_unrelated_one(fixture_package):
    before = codehash.code_digest(["ch_fix.a"])
    (fixture_package / "d.py").write_text("X = 2\n", encoding="utf-8")
    codehash._digest.cache_clear()
    assert codehash.code_digest(["ch_fix.a"]) == before
    (fixture_package / "c.py").write_text("def g():\n    return 2\n", encoding="utf-8")
    codehash._digest.cache_clear()
    assert codehash.code_digest(["ch_fix.a"]) != before


def test_digest_includes_library_versions(fixture_package):
    plain = codehash.code_digest(["ch_fix.c"])
    assert codehash.code_digest(["ch_fix.c"], ["pyarrow"]) != plain
    assert codehash.code_digest(["ch_fix.c"], ["no-such-distribution-aac"]) != plain  # recorded as absent


def test_processing_digests_cover_the_step_modules_but_not_the_classifiers():
    from aac.processing import steps

    stage = codehash.module_closure(s.__module__ for s in steps.ROW_STEPS)
    assert {"aac.processing.secrets", "aac.processing.tagging", "aac.core.platforms"} <= set(stage)
    items = codehash.module_closure(["aac.processing.steps.items", "aac.processing.items"], exclude=["aac.classifiers"])
    assert {"aac.core.segment", "aac.core.scope", "aac.core.tokens"} <= set(items)
    assert not any(m.startswith("aac.classifiers") for m in items)


def test_a_module_without_source_is_a_clear_error():
    with pytest.raises(ValueError, match="no Python source"):
        codehash.code_digest(["no_such_module_aac_xyz"])
