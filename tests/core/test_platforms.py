import json

from aac.core.platforms import PLATFORMS, platform_of


def test_every_sample_file_maps_to_its_labelled_platform(sample_path):
    rows = [json.loads(line) for line in sample_path.open(encoding="utf-8")]
    wrong = [(r["path"], r["platform"], platform_of(r["path"])) for r in rows if platform_of(r["path"]) != r["platform"]]
    assert wrong == []


def test_specific_entries_win_over_generic_ones():
    assert platform_of(".claude/commands/review.md") == "claude_commands"
    assert platform_of(".claude/agents/planner.md") == "claude_agents"
    assert platform_of("packages/web/CLAUDE.md") == "claude"
    assert platform_of("README.md") is None


def test_registry_names_are_unique_and_every_platform_has_a_query():
    names = [p.name for p in PLATFORMS]
    assert len(names) == len(set(names))
    assert all(p.queries for p in PLATFORMS)
    assert sum(p.in_paper for p in PLATFORMS) == 8
