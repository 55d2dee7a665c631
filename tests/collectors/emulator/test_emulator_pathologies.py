"""Search pathologies of profile github: undercounted total_count, lossy wide queries that narrower queries
repair, best-match order stable within a window only, incomplete pages and 5xx at their configured rates."""

from dataclasses import replace

import pytest
import requests

from aac.collectors.clock import VirtualClock
from aac.collectors.emulator import GITHUB, IDEAL, EmulatorServer

QUIET = replace(GITHUB, search_limit=None, core_limit=None, secondary_rate=0.0, error_rate=0.0,
                incomplete_rate=0.0, slow_rate=0.0)
RECS = [{"repo": f"org{i % 13}/repo{i}", "path": "CLAUDE.md", "content": "c" * (100 + i)} for i in range(400)]
AUTH = {"Authorization": "token t"}


def all_results(http, url, q):
    """Every (repo, path) a query returns, paging until a short page; and the first total_count."""
    found, total, page = [], None, 1
    while True:
        body = http.get(f"{url}/search/code", params={"q": q, "per_page": 100, "page": page}, headers=AUTH).json()
        total = body["total_count"] if total is None else total
        found += [(i["repository"]["full_name"], i["path"]) for i in body["items"]]
        if len(body["items"]) < 100:
            return found, total
        page += 1


@pytest.fixture()
def http():
    with requests.Session() as s:
        yield s


def test_total_count_undercounts_within_the_configured_band(http):
    with EmulatorServer(RECS, profile=replace(QUIET, lossy_rate=0.0), clock=VirtualClock(), seed=2) as s:
        ratios = []
        for lo in range(100, 500, 40):
            q = f"filename:CLAUDE.md size:{lo}..{lo + 39}"
            found, total = all_results(http, s.url, q)
            assert len(found) == 40
            ratios.append(total / 40)
        assert all(0.6 <= r <= 1.0 for r in ratios)
        assert min(ratios) < 0.9  # it really undercounts


def test_ideal_profile_counts_exactly(http):
    with EmulatorServer(RECS, profile=IDEAL) as s:
        found, total = all_results(http, s.url, "filename:CLAUDE.md")
        assert total == len(found) == 400


def test_wide_query_silently_loses_files_that_narrow_queries_return(http):
    clock = VirtualClock()
    prof = replace(QUIET, undercount=None, lossy_threshold=100, lossy_rate=0.05)
    with EmulatorServer(RECS, profile=prof, clock=clock, seed=5) as s:
        wide, _ = all_results(http, s.url, "filename:CLAUDE.md size:0..1000")
        clock.advance(3600)  # a later re-run of the same query loses the same files
        again, _ = all_results(http, s.url, "size:0..1000 filename:claude.md")  # same query, reworded
        narrow = []
        for lo in range(100, 500, 100):  # 100 files each: at the threshold, so nothing is lost
            narrow += all_results(http, s.url, f"filename:CLAUDE.md size:{lo}..{lo + 99}")[0]
        everything = {(r["repo"], r["path"]) for r in RECS}
        lost = everything - set(wide)
        assert set(narrow) == everything
        assert 5 <= len(lost) <= 40
        assert set(again) == set(wide)


def test_order_is_stable_within_a_window_and_changes_across_windows(http):
    clock = VirtualClock()
    with EmulatorServer(RECS, profile=replace(QUIET, lossy_rate=0.0), clock=clock) as s:
        def first_page():
            body = http.get(f"{s.url}/search/code", params={"q": "filename:CLAUDE.md", "per_page": 50},
                            headers=AUTH).json()
            return [i["repository"]["full_name"] for i in body["items"]]

        a = first_page()
        clock.advance(120)
        assert first_page() == a
        clock.advance(600)
        assert first_page() != a


def test_pages_fetched_promptly_partition_the_results(http):
    with EmulatorServer(RECS, profile=replace(QUIET, lossy_rate=0.0), clock=VirtualClock()) as s:
        found, _ = all_results(http, s.url, "filename:CLAUDE.md")
        assert len(found) == len(set(found)) == 400


def test_incomplete_results_flag_and_missing_items_at_the_configured_rate(http):
    prof = replace(QUIET, lossy_rate=0.0, incomplete_rate=0.2, incomplete_drop=0.5)
    with EmulatorServer(RECS, profile=prof, clock=VirtualClock(), seed=3) as s:
        flagged = short = 0
        for _ in range(300):
            body = http.get(f"{s.url}/search/code", params={"q": "filename:CLAUDE.md", "per_page": 20},
                            headers=AUTH).json()
            flagged += body["incomplete_results"]
            short += len(body["items"]) < 20
            assert body["incomplete_results"] or len(body["items"]) == 20
        assert 30 < flagged < 90 and short > 0.5 * flagged


def test_server_errors_at_the_configured_rate_cost_no_quota(http):
    prof = replace(QUIET, lossy_rate=0.0, error_rate=0.1, core_limit=5000)
    with EmulatorServer(RECS, profile=prof, clock=VirtualClock(), seed=9) as s:
        codes = [http.get(f"{s.url}/repos/org1/repo1", headers=AUTH).status_code for _ in range(500)]
        errors = [c for c in codes if c != 200]
        assert set(errors) <= {502, 503} and 25 < len(errors) < 80
        used = int(http.get(f"{s.url}/rate_limit", headers=AUTH).json()["resources"]["core"]["used"])
        assert used == codes.count(200)
        assert s.stats["errors_5xx"] == len(errors)


def test_same_seed_same_faults(http):
    prof = replace(QUIET, error_rate=0.2)

    def run(seed=11):
        with EmulatorServer(RECS, profile=prof, clock=VirtualClock(), seed=seed) as s:
            return [http.get(f"{s.url}/repos/org1/repo1", headers=AUTH).status_code for _ in range(60)]

    first = run()
    assert first == run()
    assert set(first) - {200} and set(first) <= {200, 502, 503}  # faults really are injected
    assert run(seed=12) != first  # and where they fall comes from the seed


def test_with_faults_scales_every_random_fault():
    p = GITHUB.with_faults(0.1)
    assert (p.secondary_rate, p.error_rate, p.incomplete_rate, p.slow_rate) == (0.1, 0.1, 0.1, 0.1)
    with pytest.raises(ValueError):
        replace(GITHUB, error_rate=1.5)
