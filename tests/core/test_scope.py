"""Global-section detection, topic ids and scope precedence."""

import pytest

from aac.core.scope import is_global_section, scope_of, slug, topic_of, topic_tree


@pytest.mark.parametrize(
    "title",
    [
        "Rules", "Hard Constraints", "🔒 SECURITY (Zero Tolerance)", "Safety", "Guardrails", "Project Conventions",
        "CRITICAL", "Important notes", "Do's and Don'ts", "Dos & Don'ts", "Boundaries", "Never Commit",
        "Things not to do", "Common Pitfalls to Avoid", "Anti-Patterns", "⚠️ RED FLAGS - Auto-Stop", "Coding Standards",
        "Regeln", "Sicherheitsrichtlinien und Sicherheit", "Wichtige Hinweise",  # de
        "Règles du projet", "Contraintes", "Sécurité",  # fr
        "Reglas", "Restricciones", "Seguridad",  # es
        "Regras", "Restrições", "Segurança",  # pt
        "Regole", "Vincoli", "Sicurezza",  # it
        "项目规则", "安全约束", "禁止事项",  # zh
        "ルール", "制約事項", "セキュリティ",  # ja
        "Правила", "Ограничения", "Безопасность",  # ru
    ],
)
def test_constraint_bearing_titles_are_global(title):
    assert is_global_section(title)


@pytest.mark.parametrize("title", ["Testing", "Architecture", "Project Structure", "Setup", "Commands", "Tech Stack",
                                   "Überblick", "Présentation", "项目概述", "概要", "Обзор", "Overrides", ""])
def test_descriptive_titles_are_not_global(title):
    assert not is_global_section(title)


def test_topic_of_slugs_each_heading_and_names_the_root():
    assert topic_of(()) == "(root)"
    assert topic_of(("My Project", "Testing & QA")) == "my-project/testing-qa"
    assert topic_of(("项目概述",)) == "项目概述"


def test_headings_without_letters_get_a_stable_hash_slug():
    assert slug("━━━━") == slug("━━━━") and slug("━━━━").startswith("h-")


def test_items_under_a_global_section_are_scoped_everywhere():
    assert scope_of(("Guide", "Safety rules"), "CLAUDE.md", None) == ("*",)


def test_a_file_title_with_rules_in_it_does_not_make_every_section_global():
    assert scope_of(("Project Rules", "Testing"), ".cursorrules", None) == ("project-rules/testing",)
    assert scope_of(("Project Rules",), ".cursorrules", None) == ("*",)


def test_globs_give_file_pattern_scope_from_a_string_or_a_list():
    assert scope_of(("TS",), "x.mdc", {"globs": "src/**/*.ts, tests/*.ts"}) == ("glob:src/**/*.ts", "glob:tests/*.ts")
    assert scope_of(("TS",), "x.mdc", {"globs": ["a/*.py", "b/*.py"]}) == ("glob:a/*.py", "glob:b/*.py")
    assert scope_of((), "x.instructions.md", {"applyTo": "**/*.go"}) == ("glob:**/*.go",)


def test_always_apply_and_match_everything_globs_are_global():
    assert scope_of(("TS",), "x.mdc", {"globs": "src/*.ts", "alwaysApply": True}) == ("*",)
    assert scope_of(("TS",), "x.mdc", {"globs": "**/*"}) == ("*",)
    assert scope_of(("TS",), "x.md", {"trigger": "always_on"}) == ("*",)


def test_without_globs_or_global_headings_an_item_keeps_its_own_topic():
    assert scope_of(("Guide", "Testing"), "CLAUDE.md", {"description": "x", "alwaysApply": False}) == ("guide/testing",)


def test_topic_tree_nests_headings_and_counts_items():
    tree = topic_tree([("A", "B"), ("A", "B"), ("A",), (), ("C",)])
    assert tree["n_items"] == 1
    assert tree["children"]["A"]["n_items"] == 1
    assert tree["children"]["A"]["children"]["B"] == {"id": "a/b", "title": "B", "n_items": 2, "children": {}}
    assert set(tree["children"]) == {"A", "C"}


@pytest.mark.parametrize(
    "title", ["Critical files", "🔗 Important Files", "Important Links", "DRY Principle (Don't Repeat Yourself)"]
)
def test_lists_of_things_and_dont_repeat_yourself_are_not_global(title):
    assert not is_global_section(title)


def test_a_glob_limited_file_keeps_its_glob_scope_under_a_global_section_title():
    front = {"globs": "src/**/*.component.ts", "alwaysApply": False}
    assert scope_of(("Components", "Naming Conventions"), "r.mdc", front) == ("glob:src/**/*.component.ts",)
    assert scope_of(("Components", "Naming Conventions"), "r.mdc", {"alwaysApply": False}) == ("*",)
