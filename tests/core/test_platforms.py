import json
import math

import pytest

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


def _filled(platform, template: str) -> list[str]:
    """Every path a template gives, each placeholder filled with each of its choices (slug: a sample slug)."""
    import itertools
    import string

    names = [f for _, f, _, _ in string.Formatter().parse(template) if f and f != "slug"]
    options = [dict(platform.choices)[n] for n in names]
    return [template.format(slug="api-rules", **{n: v.format(slug="api-rules") for n, v in zip(names, combo)})
            for combo in itertools.product(*options)]


@pytest.mark.parametrize("platform", PLATFORMS, ids=[p.name for p in PLATFORMS])
def test_every_platform_has_example_paths_its_own_patterns_recognise(platform):
    assert platform.examples, "the emulator's generator draws this platform's paths from its examples"
    assert platform.examples[-1].below == math.inf  # some example is always taken
    for example in platform.examples:
        for path in _filled(platform, example.template):
            assert platform_of(path) == platform.name, path
            if platform.name != "zed":  # the generator nests the others in monorepo folders; Zed reads only the root
                assert platform_of(f"packages/app/{path}") == platform.name, path
