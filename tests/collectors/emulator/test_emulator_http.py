"""The emulator over real HTTP: GitHub's JSON shapes (PyGithub parses them), auth, the 1000-result cap,
ETag/304, the free raw route and the control routes."""

import base64
import hashlib

import pytest
import requests

from aac.collectors.clock import VirtualClock
from aac.collectors.emulator import EmulatorServer

AUTH = {"Authorization": "token test-token"}
BIG = 384 * 1024


def records():
    recs = [{"repo": f"owner{i % 7}/repo{i}", "path": "CLAUDE.md", "content": f"# repo {i}\n" + "r" * (i % 500),
             "commit": f"{i:040x}", "license_spdx": "MIT" if i % 2 else None, "stars": i, "language": "Python"}
            for i in range(1200)]
    recs.append({"repo": "big/repo", "path": "docs/AGENTS.md", "content": "b" * BIG, "license_spdx": "GPL-3.0"})
    recs.append({"repo": "big/repo", "path": "AGENTS.md", "content": "small agents file"})
    return recs


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(records(), profile="ideal", clock=VirtualClock()) as s:
        yield s


@pytest.fixture()
def http():
    with requests.Session() as s:
        yield s


def test_search_requires_authentication(server, http):
    r = http.get(f"{server.url}/search/code", params={"q": "filename:CLAUDE.md"})
    assert r.status_code == 401
    assert r.json()["message"] == "Requires authentication"


def test_search_item_has_github_shape_and_a_git_blob_sha(server, http):
    r = http.get(f"{server.url}/search/code", params={"q": "filename:AGENTS.md", "per_page": 10}, headers=AUTH)
    body = r.json()
    assert r.status_code == 200 and body["incomplete_results"] is False
    assert [i["path"] for i in body["items"]] == ["AGENTS.md"]  # the 384 KB docs/AGENTS.md is not indexed
    item = body["items"][0]
    data = b"small agents file"
    assert item["sha"] == hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    repo = item["repository"]
    assert repo["full_name"] == "big/repo" and repo["owner"]["login"] == "big" and repo["private"] is False
    assert item["url"] == f"{server.url}/repositories/{repo['id']}/contents/AGENTS.md?ref={item['html_url'].split('/')[6]}"
    assert item["html_url"].startswith("https://github.com/big/repo/blob/")
    content = http.get(item["url"], headers=AUTH).json()
    assert base64.b64decode(content["content"]) == data and content["sha"] == item["sha"]


def test_files_past_the_index_limit_are_unsearchable_but_readable(server, http):
    r = http.get(f"{server.url}/search/code", params={"q": "path:docs"}, headers=AUTH)
    assert r.json()["total_count"] == 0
    c = http.get(f"{server.url}/repos/big/repo/contents/docs/AGENTS.md", headers=AUTH).json()
    assert c["size"] == BIG and len(base64.b64decode(c["content"])) == BIG


def test_paging_past_1000_results_is_refused_with_422(server, http):
    ok = http.get(f"{server.url}/search/code", params={"q": "filename:CLAUDE.md", "per_page": 100, "page": 10},
                  headers=AUTH)
    assert ok.status_code == 200 and len(ok.json()["items"]) == 100
    assert ok.json()["total_count"] == 1200
    refused = http.get(f"{server.url}/search/code", params={"q": "filename:CLAUDE.md", "per_page": 100, "page": 11},
                       headers=AUTH)
    assert refused.status_code == 422
    assert refused.json()["message"] == "Only the first 1000 search results are available"
    capped = http.get(f"{server.url}/search/code", params={"q": "filename:CLAUDE.md", "per_page": 500},
                      headers=AUTH)
    assert len(capped.json()["items"]) == 100  # per_page above 100 behaves as 100


def test_bad_query_is_422_validation_failed(server, http):
    r = http.get(f"{server.url}/search/code", params={"q": "filename:CLAUDE.md size:big"}, headers=AUTH)
    assert r.status_code == 422 and r.json()["message"] == "Validation Failed"
    assert "size" in r.json()["errors"][0]["message"]


def test_link_header_pages_through_every_visible_result(server, http):
    seen, url, params = [], f"{server.url}/search/code", {"q": "filename:CLAUDE.md size:<100", "per_page": 30}
    while url:
        r = http.get(url, params=params, headers=AUTH)
        seen += [(i["repository"]["full_name"], i["path"]) for i in r.json()["items"]]
        url, params = r.links.get("next", {}).get("url"), None
    assert len(seen) == len(set(seen)) == sum(1 for i in range(1200) if len(f"# repo {i}\n") + i % 500 < 100)


def test_repo_metadata_license_and_repo_by_id(server, http):
    repo = http.get(f"{server.url}/repos/owner1/repo1", headers=AUTH).json()
    assert repo["license"]["spdx_id"] == "MIT" and repo["stargazers_count"] == 1
    assert repo["default_branch"] == "main" and repo["language"] == "Python"
    assert http.get(f"{server.url}/repositories/{repo['id']}", headers=AUTH).json()["full_name"] == "owner1/repo1"
    lic = http.get(f"{server.url}/repos/owner1/repo1/license", headers=AUTH).json()
    assert b"MIT" in base64.b64decode(lic["content"]) and lic["license"]["key"] == "mit"
    assert http.get(f"{server.url}/repos/owner2/repo2/license", headers=AUTH).status_code == 404
    assert http.get(f"{server.url}/repos/nobody/nothing", headers=AUTH).status_code == 404


def test_contents_honours_ref_and_unknown_refs_404(server, http):
    base = f"{server.url}/repos/owner3/repo3/contents/CLAUDE.md"
    assert http.get(base, params={"ref": f"{3:040x}"}, headers=AUTH).status_code == 200
    assert http.get(base, params={"ref": "main"}, headers=AUTH).status_code == 200
    assert http.get(base, params={"ref": "f" * 40}, headers=AUTH).status_code == 404


def test_etag_revalidation_is_304_and_costs_no_quota(server, http):
    url = f"{server.url}/repos/owner4/repo4"
    first = http.get(url, headers=AUTH)
    used = int(first.headers["x-ratelimit-used"])
    again = http.get(url, headers={**AUTH, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.content == b""
    assert int(again.headers["x-ratelimit-used"]) == used
    assert server.stats["not_modified"] >= 1


def test_raw_route_serves_bytes_without_spending_quota(server, http):
    item = http.get(f"{server.url}/search/code", params={"q": "repo:owner5/repo5"}, headers=AUTH).json()["items"][0]
    dl = http.get(item["url"], headers=AUTH).json()["download_url"]
    before = http.get(f"{server.url}/rate_limit", headers=AUTH).json()["resources"]["core"]["used"]
    for _ in range(5):
        raw = http.get(dl)
        assert raw.status_code == 200 and raw.content.startswith(b"# repo 5\n")
    after = http.get(f"{server.url}/rate_limit", headers=AUTH).json()["resources"]["core"]["used"]
    assert after == before and server.stats["raw_requests"] >= 5


def test_every_response_carries_rate_limit_and_clock_headers(server, http):
    for path in ("/rate_limit", "/repos/owner1/repo1", "/nope", "/_emulator/clock"):
        h = http.get(server.url + path, headers=AUTH).headers
        assert {"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-used",
                "x-ratelimit-resource"} <= {k.lower() for k in h}
        assert h["X-Emulator-Clock"] == "virtual"


def test_control_routes_advance_the_virtual_clock_and_report_stats(server, http):
    now = http.get(f"{server.url}/_emulator/clock").json()["now"]
    moved = http.post(f"{server.url}/_emulator/clock/advance", json={"seconds": 90}).json()
    assert moved["now"] == now + 90 and moved["virtual"] is True
    assert http.post(f"{server.url}/_emulator/clock/advance", json={"seconds": -1}).status_code == 400
    stats = http.get(f"{server.url}/_emulator/stats").json()
    assert stats["search_requests"] >= 1 and stats["routes"]["search"] >= 1


def test_snapshot_reload_swaps_the_data(tmp_path, http):
    first = tmp_path / "a.jsonl"
    first.write_text('{"repo": "x/y", "path": "AGENTS.md", "content": "one"}\n')
    second = tmp_path / "b.jsonl"
    second.write_text('{"repo": "x/z", "path": "AGENTS.md", "content": "two"}\n')
    with EmulatorServer(first, profile="ideal") as s:
        q = {"q": "filename:AGENTS.md"}
        assert [i["repository"]["full_name"] for i in http.get(f"{s.url}/search/code", params=q, headers=AUTH).json()["items"]] == ["x/y"]
        assert http.post(f"{s.url}/_emulator/snapshot", json={"path": str(second)}).json()["files"] == 1
        assert [i["repository"]["full_name"] for i in http.get(f"{s.url}/search/code", params=q, headers=AUTH).json()["items"]] == ["x/z"]
        bad = http.post(f"{s.url}/_emulator/snapshot", json={"path": str(tmp_path / "missing.jsonl")})
        assert bad.status_code == 400 and "missing.jsonl" in bad.json()["message"]


def test_pygithub_runs_unchanged_against_the_emulator(server):
    from github import Auth, Github

    g = Github(base_url=server.url, auth=Auth.Token("x"), retry=None, seconds_between_requests=0)
    results = g.search_code("filename:CLAUDE.md size:<40")
    files = list(results)
    assert results.totalCount == len(files) > 0
    f = files[0]
    repo = g.get_repo(f.repository.full_name)
    assert repo.default_branch == "main"
    assert repo.get_contents(f.path, ref=f.html_url.split("/")[6]).decoded_content.startswith(b"# repo ")
    assert g.get_rate_limit().resources.search.limit > 0
