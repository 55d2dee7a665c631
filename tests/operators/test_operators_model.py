import subprocess
import sys

import pytest

from aac.operators.model import AUTHORITY_WEIGHTS, TYPES, Item, KnowledgeBase, TopicTree, scope_covers


def test_constants_mirror_the_schema_and_classifier_interface():
    from aac.classifiers import AUTHORITY_WEIGHTS as W
    from aac.core.labels import TYPES as T  # what aac.core.schema re-exports

    assert TYPES == T and AUTHORITY_WEIGHTS == W


def test_operators_import_without_pipeline_or_heavy_dependencies():
    code = ("import sys, aac.operators, aac.operators.decompose, aac.operators.retrieve, aac.operators.baselines, "
            "aac.operators.evaluate, aac.operators.ingest, "
            "aac.operators.metrics; bad = [m for m in ('prefect', 'github', 'typer', 'torch', 'sklearn', 'pyarrow', "
            "'duckdb', 'datasets') "
            "if m in sys.modules]; print(bad); sys.exit(bool(bad))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_scope_on_a_topic_covers_its_descendants_and_star_covers_all():
    tree = TopicTree()
    tree.add("db/migrations")
    assert scope_covers(("db",), "db/migrations", tree)
    assert not scope_covers(("db/migrations",), "db", tree)
    assert scope_covers(("*",), "anything", tree)
    assert scope_covers(("glob:src/**",), "x", tree, paths=["src/a.ts"]) and scope_covers(("glob:src/**",), "x", tree)
    assert not scope_covers(("glob:src/**",), "x", tree, unknown_glob=False)
    assert not scope_covers(("glob:src/**",), "x", tree, paths=["docs/a.md"])


def test_from_rows_reads_pipeline_item_rows():
    kb = KnowledgeBase.from_rows([{"item_id": "a1", "text": "Never push to main", "type": "C",
                                   "type_proba": [0.9, 0.025, 0.025, 0.025, 0.025], "topic": "git",
                                   "scope": ["*"], "authority": "dev", "ordinal": 3, "abstained": False,
                                   "kind": "bullet", "section_path": ["Git"], "n_tokens": 999}])
    (it,) = kb.items
    assert (it.id, it.type, it.topic, it.scope, it.order) == ("a1", "C", "git", ("*",), 3)
    assert it.tokens < 999  # recounted with the project tokenizer
    assert abs(it.risk - 0.9 * 1.25) < 1e-9


def test_unknown_type_is_rejected_with_a_clear_error():
    import pytest

    with pytest.raises(ValueError, match="not one of"):
        Item("x", "t", "Z")


@pytest.mark.parametrize("path, pattern, covered", [
    ("setup.py", "**/*.py", True), ("src/x.ts", "src/**/*.ts", True), ("./src/x.ts", "src/**/*.ts", True),
    ("src/a/b/x.ts", "src/**/*.ts", True), ("lib/x.ts", "src/**/*.ts", False), ("pkg/setup.py", "*.py", True),
    ("src/a.tsx", "**/*.{ts,tsx}", True), ("src/a.js", "**/*.{ts,tsx}", False), ("src\\x.ts", "src/**", True),
    ("docs/a.md", "docs/*.md", True), ("docs/x/a.md", "docs/*.md", False), ("c.py", "[!ab].py", True),
    ("src/a.ts", "src/{*.ts,*.tsx}", True), ("src/a.js", "src/{*.ts,*.tsx}", False),
    ("pkg/README.md", "{*.md,docs/**}", True), ("docs/x/a.txt", "{*.md,docs/**}", True), ("a.c", "{a,{b,c}}.c", True),
])
def test_glob_scopes_follow_cursor_globstar_semantics(path, pattern, covered):
    from aac.operators.model import glob_matches

    assert glob_matches(path, pattern) is covered
    assert scope_covers((f"glob:{pattern}",), "", paths=(path,), unknown_glob=False) is covered


def test_a_preamble_rule_covers_its_whole_document_and_only_it():
    assert scope_covers(("(root)",), "guide/database")
    assert scope_covers(("a.md/(root)",), "a.md/guide/database") and scope_covers(("a.md/(root)",), "a.md")
    assert not scope_covers(("a.md/(root)",), "b.md/guide") and not scope_covers(("a.md/(root)",), "a.mdx/guide")


def test_a_callers_token_count_is_not_trusted():
    from aac.core.tokens import count_tokens

    text = "Never run DROP TABLE against the production database without a verified backup."
    assert Item("x", text, "C", tokens=1).tokens == count_tokens(text) > 1
