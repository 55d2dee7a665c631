"""Rate limits under profile github: real headers, 403/429 when exhausted, reset by advancing the virtual
clock; secondary limits at the configured rate, with and without retry-after; per-token accounting."""

from dataclasses import replace

import pytest
import requests

from aac.collectors.clock import VirtualClock
from aac.collectors.emulator import GITHUB, EmulatorServer

QUIET = replace(GITHUB, secondary_rate=0.0, error_rate=0.0, incomplete_rate=0.0, slow_rate=0.0)
RECS = [{"repo": f"o/r{i}", "path": "AGENTS.md", "content": "a" * i} for i in range(1, 50)]


def search(http, url, token="token one", **params):
    return http.get(f"{url}/search/code", params={"q": "filename:AGENTS.md", **params},
                    headers={"Authorization": token})


def test_search_limit_is_10_per_minute_then_refused_until_reset():
    clock = VirtualClock()
    with EmulatorServer(RECS, profile=QUIET, clock=clock) as s, requests.Session() as http:
        for i in range(10):
            r = search(http, s.url)
            assert r.status_code == 200
            assert r.headers["x-ratelimit-remaining"] == str(9 - i)
            assert r.headers["x-ratelimit-resource"] == "search" and r.headers["x-ratelimit-limit"] == "10"
        refused = search(http, s.url)
        assert refused.status_code in (403, 429)
        assert refused.json()["message"].startswith("API rate limit exceeded")
        assert refused.headers["x-ratelimit-remaining"] == "0"
        reset = int(refused.headers["x-ratelimit-reset"])
        assert reset == int(clock.now()) + 60
        clock.advance(reset - clock.now())
        assert search(http, s.url).status_code == 200
        assert s.stats["rate_limited"] == 1


def test_limits_are_kept_per_token():
    with EmulatorServer(RECS, profile=replace(QUIET, search_limit=2), clock=VirtualClock()) as s, \
            requests.Session() as http:
        assert [search(http, s.url).status_code for _ in range(3)][-1] in (403, 429)
        assert search(http, s.url, token="token two").status_code == 200


def test_primary_refusals_are_sometimes_429():
    clock = VirtualClock()
    with EmulatorServer(RECS, profile=replace(QUIET, search_limit=1, limit_429_share=0.5), clock=clock, seed=4) as s, \
            requests.Session() as http:
        statuses = set()
        for _ in range(40):
            search(http, s.url)
            statuses.add(search(http, s.url).status_code)
            clock.advance(60)
        assert statuses == {403, 429}


def test_core_limit_applies_to_repository_routes():
    clock = VirtualClock()
    with EmulatorServer(RECS, profile=replace(QUIET, core_limit=3), clock=clock) as s, requests.Session() as http:
        h = {"Authorization": "token one"}
        codes = [http.get(f"{s.url}/repos/o/r1", headers=h).status_code for _ in range(4)]
        assert codes[:3] == [200, 200, 200] and codes[3] in (403, 429)
        assert http.get(f"{s.url}/repos/o/r1", headers=h).headers["x-ratelimit-resource"] == "core"
        clock.advance(3600)
        assert http.get(f"{s.url}/repos/o/r1", headers=h).status_code == 200


def test_secondary_limits_occur_at_the_configured_rate_with_and_without_retry_after():
    clock = VirtualClock()
    prof = replace(QUIET, search_limit=None, secondary_rate=0.1)
    with EmulatorServer(RECS, profile=prof, clock=clock, seed=1) as s, requests.Session() as http:
        with_header = without = ok = 0
        for _ in range(600):
            r = search(http, s.url)
            if r.status_code == 200:
                ok += 1
                continue
            assert r.status_code == 403
            assert r.json()["message"].startswith("You have exceeded a secondary rate limit")
            if "retry-after" in r.headers:
                with_header += 1
                clock.advance(int(r.headers["retry-after"]))
            else:
                without += 1
                clock.advance(60)
        rate = (with_header + without) / 600
        assert 0.06 < rate < 0.14
        assert with_header > 10 and without > 10


def test_ignoring_a_secondary_limit_keeps_the_token_blocked():
    clock = VirtualClock()
    prof = replace(QUIET, search_limit=None, secondary_rate=1.0, secondary_retry_after_share=1.0,
                   secondary_retry_after=(30, 30))
    with EmulatorServer(RECS, profile=prof, clock=clock) as s, requests.Session() as http:
        first = search(http, s.url)
        assert first.headers["retry-after"] == "30"
        clock.advance(10)
        again = search(http, s.url)
        assert again.status_code == 403 and again.headers["retry-after"] == "20"


def test_rate_limit_route_reports_resources_and_costs_nothing():
    with EmulatorServer(RECS, profile=QUIET, clock=VirtualClock()) as s, requests.Session() as http:
        search(http, s.url)
        for _ in range(3):
            body = http.get(f"{s.url}/rate_limit", headers={"Authorization": "token one"}).json()
        assert body["resources"]["search"] == {**body["resources"]["search"], "limit": 10, "used": 1, "remaining": 9}
        assert body["resources"]["core"]["used"] == 0 and body["rate"] == body["resources"]["core"]


def test_date_header_follows_the_virtual_clock():
    from email.utils import parsedate_to_datetime

    clock = VirtualClock(start=1_800_000_000)
    with EmulatorServer(RECS, profile=QUIET, clock=clock) as s, requests.Session() as http:
        r = search(http, s.url)
        assert parsedate_to_datetime(r.headers["Date"]).timestamp() == pytest.approx(1_800_000_000)
