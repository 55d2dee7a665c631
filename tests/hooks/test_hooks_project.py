"""Instruction files found by the platform registry, typed once and cached by content hash."""

from __future__ import annotations

import pytest

import aac.classifiers
from aac.hooks import project
from aac.hooks.project import base_of, instruction_files, load_items, rules_of
from hook_fixtures import make_project


def test_instruction_files_root_first_and_skips(tmp_path):
    make_project(tmp_path)
    files = instruction_files(tmp_path)
    assert files == ["AGENTS.md", "CLAUDE.md", ".cursor/rules/api.mdc", ".github/instructions/docs.instructions.md",
                     "src/api/CLAUDE.md"]  # no slash command, nothing under node_modules; nested last


@pytest.mark.parametrize("rel,base", [("CLAUDE.md", ""), ("src/api/CLAUDE.md", "src/api"),
                                      (".cursor/rules/a.mdc", ""), ("pkg/.github/copilot-instructions.md", "pkg")])
def test_base_of(rel, base):
    assert base_of(rel) == base


def test_warm_load_does_not_classify_and_a_change_is_retyped(tmp_path, monkeypatch):
    monkeypatch.setenv("AAC_HOOKS_CACHE", str(tmp_path / "cache"))
    root = make_project(tmp_path / "p")
    files = instruction_files(root)
    cold = load_items(root, files)
    assert any(r["lane"] == "C" for r in cold["CLAUDE.md"])

    def no_classifier(*a, **k):
        raise AssertionError("a warm call must not classify")

    monkeypatch.setattr(aac.classifiers, "get_classifier", no_classifier)
    assert load_items(root, files) == cold
    (root / "AGENTS.md").write_text("# Agents\n\n## Rules\n- Never delete the audit log.\n")
    with pytest.raises(AssertionError, match="must not classify"):
        load_items(root, files)  # new bytes: typed again
    monkeypatch.undo()
    monkeypatch.setenv("AAC_HOOKS_CACHE", str(tmp_path / "cache"))
    rules = rules_of(load_items(root, files))
    assert any(r.text == "Never delete the audit log." and r.file == "AGENTS.md" and r.line == 4 for r in rules)


def test_glob_regexes_agree_with_the_operator_library():
    import re

    from aac.operators.model import glob_matches

    patterns = ["src/**/*.ts", "*.py", "{*.md,docs/**}", "app/[a-c]?.js", "**/test_*.py", "./lib/**"]
    paths = ["src/x.ts", "src/a/b/x.ts", "x.ts", "pkg/setup.py", "setup.py", "README.md", "docs/a/b.txt",
             "app/b1.js", "app/d1.js", "tests/unit/test_a.py", "test_b.py", "lib/z/y.c", "other/lib/y.c"]
    for pat in patterns:
        alts = project.glob_regexes(pat)
        for path in paths:
            ours = any(re.fullmatch(rx, path if full else path.rsplit("/", 1)[-1]) for rx, full in alts)
            assert ours == glob_matches(path, pat), (pat, path)


def test_secrets_in_rules_are_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("AAC_HOOKS_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "p"
    root.mkdir()
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (root / "CLAUDE.md").write_text(f"# X\n\n## Rules\n- Never use the token {key} outside staging.\n")
    items = load_items(root, ["CLAUDE.md"])
    texts = [r["text"] for r in items["CLAUDE.md"]]
    assert texts == ["Never use the token [REDACTED:github_token] outside staging."]
    assert key not in (tmp_path / "cache").joinpath("items").rglob("*.json").__next__().read_text()


from aac.operators.compact import THETA_C  # noqa: E402  the model's hard-lane threshold


class AbstainingClassifier:
    """Types items saying "Never" C (p(C) 0.9), abstains (label B, p(C) 0.3) on items saying "maybe", is sure of a
    belief otherwise."""

    name = "test-abstain"
    fingerprint = "test-abstain/v1"

    def predict(self, items):
        from aac.classifiers.base import Prediction

        out = []
        for it in items:
            if "Never" in it.text:
                out.append(Prediction("C", (0.9, 0.02, 0.04, 0.02, 0.02), 0.9))
            elif "maybe" in it.text:
                out.append(Prediction("B", (0.3, 0.05, 0.45, 0.1, 0.1), 0.45, abstained=True))
            else:
                c = THETA_C / 4  # a sure belief: its constraint risk well under the model's hard-lane threshold
                out.append(Prediction("B", (c, 0.05, 0.85 - c, 0.05, 0.05), 0.85 - c))
        return out


def _rules_typed_by_test_classifier(tmp_path, monkeypatch, agents_md: str):
    from aac.classifiers import base

    monkeypatch.setenv("AAC_HOOKS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(base.REGISTRY, "test-abstain", "test_hooks_project:AbstainingClassifier")
    monkeypatch.setattr(project, "CLASSIFIER", "test-abstain")
    root = tmp_path / "p"
    root.mkdir()
    (root / "AGENTS.md").write_text(agents_md)
    return rules_of(load_items(root, ["AGENTS.md"]))


def test_hard_lane_abstentions_are_injected_as_typecompact_keeps_them(tmp_path, monkeypatch):
    rules = _rules_typed_by_test_classifier(tmp_path, monkeypatch, "# X\n\n- The deploy key maybe must stay out of "
                                            "CI logs.\n- The API is REST.\n")
    assert [r.text for r in rules] == ["The deploy key maybe must stay out of CI logs."]


def test_the_typing_stamp_covers_every_segmenter_module(monkeypatch):
    """Cached items are retyped when any module of the segmenter package changes, not only one of them."""
    from pathlib import Path

    import aac.core.segment

    stamped: list[Path] = []
    real = project._stamp
    monkeypatch.setattr(project, "_stamp", lambda p: stamped.append(p) or real(p))
    project.typing_stamp()
    modules = set(Path(aac.core.segment.__file__).parent.glob("*.py"))
    assert len(modules) > 5 and modules <= set(stamped)
    assert all(p.exists() for p in stamped if p.suffix == ".py")


def test_rules_carry_the_c_decision_and_the_risk_the_block_ranks_them_by(tmp_path, monkeypatch):
    rules = _rules_typed_by_test_classifier(tmp_path, monkeypatch, "# X\n\n- The deploy key maybe must stay out of "
                                            "CI logs.\n- Never push to main.\n")
    assert [(r.text, r.labelled, r.risk) for r in rules] == [
        ("The deploy key maybe must stay out of CI logs.", False, 0.3), ("Never push to main.", True, 0.9)]


def test_a_cache_of_an_older_format_is_rebuilt(tmp_path, monkeypatch):
    """Records written before they carried the risk would rank every rule last: a new cache version retypes."""
    monkeypatch.setenv("AAC_HOOKS_CACHE", str(tmp_path / "cache"))
    root = make_project(tmp_path / "p")
    current = project.CACHE_VERSION
    monkeypatch.setattr(project, "CACHE_VERSION", current - 1)
    load_items(root, ["CLAUDE.md"])
    monkeypatch.setattr(project, "CACHE_VERSION", current)
    calls = []
    real = project._type_files
    monkeypatch.setattr(project, "_type_files", lambda files: calls.append(files) or real(files))
    items = load_items(root, ["CLAUDE.md"])
    assert len(calls) == 1 and all("risk" in r for r in items["CLAUDE.md"])
