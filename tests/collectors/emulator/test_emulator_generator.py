"""The synthetic snapshot generator: realistic shape, valid records, planted secrets real scanners catch,
determinism by seed."""

import collections
import itertools
import re
import statistics

import pytest

from aac.collectors.emulator import generate_snapshot, load_snapshot
from aac.core.platforms import platform_of

N = 20_000
DETECTOR = {"aws_access_key_id": "AWS Access Key", "github_token": "GitHub Token", "openai_api_key": "OpenAI Token",
            "slack_token": "Slack Token", "private_key": "Private Key", "password_in_url": "Basic Auth Credentials"}


@pytest.fixture(scope="module")
def recs():
    return list(generate_snapshot(N, seed=42))


def test_records_are_valid_snapshot_lines_with_unique_paths(recs):
    assert len(recs) == N
    assert load_snapshot(recs)  # validates every record and (repo, path) uniqueness
    assert all(r["size_bytes"] == len(r["content"].encode()) for r in recs)


def test_every_path_belongs_to_its_declared_platform(recs):
    assert all(platform_of(r["path"]) == r["platform"] for r in recs)


def test_platform_mix_is_heavy_on_the_big_four_and_covers_the_registry(recs):
    from aac.core.platforms import PLATFORMS

    counts = collections.Counter(r["platform"] for r in recs)
    assert set(counts) == {p.name for p in PLATFORMS}
    big4 = sum(counts[p] for p in ("claude", "universal", "cursor", "copilot"))
    assert big4 / N > 0.6
    assert counts.most_common(1)[0][0] == "claude"


def test_formats_of_real_files_appear(recs):
    paths = [r["path"] for r in recs]
    mdc = [r for r in recs if r["path"].endswith(".mdc")]
    assert mdc and all(r["content"].startswith("---\ndescription:") for r in mdc if "globs:" in r["content"][:200])
    assert any(r["path"].endswith(".aider.conf.yml") and "edit-format:" in r["content"] for r in recs)
    assert any(p.startswith(".claude/commands/") for p in paths) and any(p.startswith(".claude/agents/") for p in paths)
    assert any(r["content"].strip() == "@AGENTS.md" for r in recs)
    assert any("This file provides guidance to Claude Code (claude.ai/code)" in r["content"] for r in recs)
    assert any(re.match(r"(packages|apps|services|libs)/[^/]+/", p) for p in paths)  # nested monorepo files
    headings = {h for r in recs for h in re.findall(r"^#{1,2} (\w+)", r["content"], re.M)}
    assert {"Rules", "Build", "Testing", "Architecture", "Changelog"} <= headings


def test_size_distribution_median_near_1_2_kb_with_a_thin_tail_past_384_kb(recs):
    sizes = [r["size_bytes"] for r in recs]
    assert 900 <= statistics.median(sizes) <= 1600
    huge = sum(s >= 384 * 1024 for s in sizes)
    assert 1 <= huge <= N * 0.002


def test_many_small_repos_few_big_ones_and_power_law_stars(recs):
    per_repo = collections.Counter(r["repo"] for r in recs)
    sizes = sorted(per_repo.values())
    assert statistics.median(sizes) == 1 and sizes[-1] >= 50
    stars = [r["stars"] for r in {r["repo"]: r for r in recs}.values()]
    assert statistics.median(stars) <= 3 and max(stars) > 1000


def test_license_mix_includes_copyleft_none_and_proprietary(recs):
    licenses = collections.Counter(r["license_spdx"] for r in recs)
    assert {"MIT", "Apache-2.0", "GPL-3.0", "AGPL-3.0", None, "LicenseRef-Proprietary"} <= set(licenses)
    assert any(k and k.startswith("BSD") for k in licenses)


def test_exact_and_near_copies_across_repositories(recs):
    by_content = collections.defaultdict(set)
    for r in recs:
        if len(r["content"]) > 200:
            by_content[r["content"]].add(r["repo"])
    assert sum(len(v) > 1 for v in by_content.values()) > 100
    # near copies: same first 3 lines in different repos but different text
    heads = collections.defaultdict(set)
    for r in recs:
        if len(r["content"]) > 300:
            heads["\n".join(r["content"].split("\n")[:6])].add(r["content"])
    assert sum(len(v) > 1 for v in heads.values()) > 50


def test_planted_fake_secrets_are_listed_and_caught_by_detect_secrets(recs):
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    planted = [(r, p) for r in recs for p in r.get("_planted", [])]
    kinds = collections.Counter(p["kind"] for _, p in planted)
    assert set(DETECTOR) | {"email"} == set(kinds)
    with default_settings():
        for r, p in planted:
            assert p["value"] in r["content"]
            if p["kind"] == "email":
                continue
            first = p["value"].split("\n")[0]
            line = next(l for l in r["content"].split("\n") if first in l)
            assert DETECTOR[p["kind"]] in {s.type for s in scan_line(line)}, (p["kind"], line)


def test_same_seed_same_records_other_seed_other_records():
    a = list(itertools.islice(generate_snapshot(500, seed=1), 500))
    assert a == list(generate_snapshot(500, seed=1))
    assert a != list(generate_snapshot(500, seed=2))


def test_negative_count_is_refused():
    with pytest.raises(ValueError):
        generate_snapshot(-1, seed=0)


def test_generated_files_are_reachable_by_their_platforms_registry_queries():
    """Every indexable generated file is found by its platform's registry queries (through the emulator),
    including Roo Code's per-mode folders ``.roo/rules-{mode}/`` that only ``path:.roo`` reaches."""
    import requests

    from aac.collectors.emulator import EmulatorServer
    from aac.core.platforms import PLATFORMS

    recs = list(generate_snapshot(3000, seed=8))
    with EmulatorServer(recs, profile="ideal") as s, requests.Session() as http:
        found = set()
        for p in PLATFORMS:
            for q in p.queries:
                page = 1
                while True:
                    body = http.get(f"{s.url}/search/code", params={"q": q, "per_page": 100, "page": page},
                                    headers={"Authorization": "token t"}).json()
                    found |= {(i["repository"]["full_name"], i["path"]) for i in body["items"]}
                    if len(body["items"]) < 100:
                        break
                    page += 1
    missed = [r["path"] for r in recs if r["size_bytes"] < 384 * 1024 and (r["repo"], r["path"]) not in found]
    assert missed == []
