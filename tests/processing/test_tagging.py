import json

import pytest

from aac.processing.tagging import authorship_of, function_of, is_pointer, project_identifiers, specificity_of, tag


@pytest.fixture(scope="module")
def sample(request):
    from tests.conftest import shared_file

    rows = [json.loads(line) for line in shared_file("agent_configs_sample.jsonl").open()]
    return {(r["repo"], r["path"]): r for r in rows}


POINTERS = [  # real files that only hand over to another instruction file
    ("Belgian-Coder/treadmill-runner", "GEMINI.md"),
    ("Belgian-Coder/treadmill-runner", ".claude/CLAUDE.md"),
    ("artisan-build/vibe-kit", "AGENTS.md"),
    ("3301x2/MaestroNexus", ".cursorrules"),
    ("Brak23/CodexProjectStandards", ".cursor/rules/project-standards.mdc"),
]
NOT_POINTERS = [  # short files that mention another file but carry their own instructions
    ("NickolayKolesnikov/cosmo", ".github/copilot-instructions.md"),
    ("WhitehatD/thesis-iot-monitoring", "CONVENTIONS.md"),
    ("09048435844r/auto-radio-generator", "CLAUDE.md"),
    ("19BCS4331/WebEon", ".windsurfrules"),
]
INIT_GENERATED = [("0143g/rubiks-ring", "CLAUDE.md"), ("0x4D44/mddedupe", "CLAUDE.md"), ("0143g/rubiks-ring", "GEMINI.md")]


@pytest.mark.parametrize("key", POINTERS)
def test_pointer_files_in_the_sample_are_tagged_pointer(sample, key):
    r = sample[key]
    assert tag(r["repo"], r["path"], r["content"]).function == "pointer"


@pytest.mark.parametrize("key", NOT_POINTERS)
def test_short_files_with_their_own_rules_are_not_pointers(sample, key):
    assert not is_pointer(sample[key]["content"])


@pytest.mark.parametrize("key", INIT_GENERATED)
def test_init_boilerplate_is_tool_generated(sample, key):
    assert authorship_of(sample[key]["content"]) == "tool_generated"


def test_every_sample_platform_matches_the_registry(sample):
    assert all(tag(r["repo"], r["path"], r["content"]).platform == r["platform"] for r in sample.values())


def test_function_defaults_come_from_the_platform():
    assert function_of(".aider.conf.yml", "aider", "read: AGENTS.md\n") == "tool_config"
    assert function_of("CLAUDE.md", "claude", "- run tests before commit\n") == "memory"
    assert function_of(".claude/commands/review.md", "claude_commands", "Review the diff.\n") == "slash_command"
    assert function_of(".claude/agents/qa.md", "claude_agents", "You are a QA agent.\n") == "sub_agent"
    assert function_of(".cursorrules", "cursor", "Always use TypeScript.\n") == "rules"


def test_template_copy_needs_a_cluster_over_enough_repos():
    assert authorship_of("- be concise\n", cluster_repos=5) == "template_copy"
    assert authorship_of("- be concise\n", cluster_repos=2) == "human"
    assert authorship_of("- be concise\n", cluster_repos=2, template_min_repos=2) == "template_copy"
    assert authorship_of("- be concise\n") == "human"


def test_specificity_from_project_identifiers():
    assert specificity_of("Run `npm run test:unit` and edit src/server/app.ts only.", "o/x") == "project_specific"
    assert specificity_of("The widgetforge CLI lives here.", "acme/widgetforge") == "project_specific"
    assert specificity_of("Be concise. Prefer functional style. Write tests.", "acme/widgetforge") == "generic"


def test_specificity_split_on_the_sample_is_mostly_project_specific(sample):
    specific = sum(specificity_of(r["content"], r["repo"]) == "project_specific" for r in sample.values())
    assert 0.6 < specific / len(sample) < 0.95  # measured: 242 of 293 (README)


def test_regenerated_and_bare_do_not_edit_headers_are_tool_generated():
    assert authorship_of("# X\n\n> **Regenerated from `.spec` by `spec-cli`.**\n\n- rule\n") == "tool_generated"
    assert authorship_of("# X\n\nDO NOT EDIT — changes will be overwritten.\n\n- rule\n") == "tool_generated"
    assert authorship_of("# Rules\n\n- Do not edit files in vendor/.\n") == "human"


def test_english_that_looks_like_commands_or_files_is_no_project_identifier():
    english = "Make sure you go through the list; make sure to use python whenever you can, with three.js or Next.js."
    assert specificity_of(english, "o/x") == "generic"
    real = "Run `make lint`, `go test`, `python -m pytest` and `python scripts/gen.py`; edit my-three.js."
    assert {"make lint", "go test", "python -m pytest", "my-three.js"} <= project_identifiers(real)
