"""POST /graphql of the emulator over HTTP: the aliased repository query, GitHub's error shapes, auth, the
graphql rate limit (a 200 with RATE_LIMITED once spent), and the REST body describing the same repository."""

from dataclasses import replace

import pytest
import requests

from aac.collectors.clock import VirtualClock
from aac.collectors.emulator import GITHUB, IDEAL, EmulatorServer

QUIET = replace(GITHUB, secondary_rate=0.0, error_rate=0.0, incomplete_rate=0.0, slow_rate=0.0)
RECS = [{"repo": "acme/tool", "path": "CLAUDE.md", "content": "x", "license_spdx": "MIT", "stars": 70,
         "language": "Python", "pushed_at": "2024-05-01T10:00:00Z"},
        {"repo": "acme/odd", "path": "AGENTS.md", "content": "y", "license_spdx": "WTFPL"},
        {"repo": "solo/plain", "path": ".cursorrules", "content": "z"}]
AUTH = {"Authorization": "token one"}
FIELDS = ("nameWithOwner stargazerCount forkCount primaryLanguage { name } licenseInfo { spdxId } "
          "defaultBranchRef { name } pushedAt isFork isArchived")
QUERY = ("query Repos($o0: String!, $n0: String!) {\n"
         f"  r0: repository(owner: $o0, name: $n0) {{ {FIELDS} }}\n"
         f"  r1: repository(owner: \"acme\", name: \"odd\") {{ {FIELDS} }}\n"
         "  gone: repository(owner: \"acme\", name: \"missing\") { nameWithOwner }\n}")


@pytest.fixture()
def http():
    with requests.Session() as s:
        yield s


def post(http, url, body, headers=AUTH, path="/graphql"):
    return http.post(url + path, json=body, headers=headers)


def test_aliased_repositories_answer_like_rest_and_a_missing_one_is_null_with_not_found(http):
    with EmulatorServer(RECS, profile=IDEAL) as s:
        r = post(http, s.url, {"query": QUERY, "variables": {"o0": "acme", "n0": "tool"}})
        assert r.status_code == 200 and r.headers["x-ratelimit-resource"] == "graphql"
        body = r.json()
        tool, odd = body["data"]["r0"], body["data"]["r1"]
        rest = http.get(f"{s.url}/repos/acme/tool", headers=AUTH).json()
        assert tool == {"nameWithOwner": rest["full_name"], "stargazerCount": rest["stargazers_count"],
                        "forkCount": rest["forks_count"], "primaryLanguage": {"name": rest["language"]},
                        "licenseInfo": {"spdxId": rest["license"]["spdx_id"]},
                        "defaultBranchRef": {"name": rest["default_branch"]}, "pushedAt": rest["pushed_at"],
                        "isFork": rest["fork"], "isArchived": rest["archived"]}
        assert tool["licenseInfo"] == {"spdxId": "MIT"} and tool["pushedAt"] == "2024-05-01T10:00:00Z"
        assert odd["licenseInfo"] == {"spdxId": "NOASSERTION"} and odd["primaryLanguage"] is None
        assert body["data"]["gone"] is None
        [err] = body["errors"]
        assert err["type"] == "NOT_FOUND" and err["path"] == ["gone"]
        assert err["message"] == "Could not resolve to a Repository with the name 'acme/missing'."
        assert err["locations"] == [{"line": 4, "column": 3}]


def test_enterprise_path_and_unlicensed_repository(http):
    with EmulatorServer(RECS, profile=IDEAL) as s:
        q = '{ repository(owner: "solo", name: "plain") { licenseInfo { spdxId } nameWithOwner } }'
        body = post(http, s.url, {"query": q}, path="/api/graphql").json()
        assert body == {"data": {"repository": {"licenseInfo": None, "nameWithOwner": "solo/plain"}}}


@pytest.mark.parametrize("query, fragment", [
    ('{ r0: repository(owner: "acme", name: "tool") { nameWithOwner bogus } }',
     "Field 'bogus' doesn't exist on type 'Repository'"),
    ('{ r0: repository(owner: "acme", name: "tool") { primaryLanguage { color } } }',
     "Field 'color' doesn't exist on type 'Language'"),
    ('{ r0: repository(owner: "acme") { nameWithOwner } }', "missing required arguments: name"),
    ('{ r0: repository(owner: "acme", name: "tool") { nameWithOwner }', "Parse error on end of file"),
    ('{ r0: repository(owner: acme, name: "tool") { nameWithOwner } }', 'Parse error on "acme"'),
    ('query($o: String!) { r0: repository(owner: $o, name: "tool") { nameWithOwner } }',
     "Variable $o of type String! was provided invalid value"),
    ("{ }", "Parse error"),
])
def test_malformed_queries_get_a_200_with_errors_and_no_data(http, query, fragment):
    with EmulatorServer(RECS, profile=IDEAL) as s:
        r = post(http, s.url, {"query": query})
        assert r.status_code == 200
        body = r.json()
        assert "data" not in body and fragment in body["errors"][0]["message"]


def test_bodies_that_are_not_a_graphql_request_are_400(http):
    with EmulatorServer(RECS, profile=IDEAL) as s:
        assert http.post(s.url + "/graphql", data=b"{not json", headers=AUTH).status_code == 400
        r = post(http, s.url, {"variables": {}})
        assert r.status_code == 400 and "query attribute" in r.json()["message"]
        assert http.get(s.url + "/graphql", headers=AUTH).status_code == 405


def test_graphql_needs_a_token_and_can_be_switched_off(http):
    with EmulatorServer(RECS, profile=IDEAL) as s:
        r = post(http, s.url, {"query": QUERY}, headers={})
        assert r.status_code == 401 and "authenticated" in r.json()["message"]
    with EmulatorServer(RECS, profile=replace(IDEAL, graphql=False)) as s:
        assert post(http, s.url, {"query": QUERY}).status_code == 404


def test_graphql_limit_is_its_own_resource_and_is_refused_with_rate_limited_in_a_200(http):
    clock = VirtualClock()
    with EmulatorServer(RECS, profile=replace(QUIET, core_limit=3), clock=clock) as s:
        q = {"query": '{ r: repository(owner: "acme", name: "tool") { nameWithOwner } }'}
        for i in range(3):
            r = post(http, s.url, q)
            assert r.json()["data"]["r"]["nameWithOwner"] == "acme/tool"
            assert r.headers["x-ratelimit-remaining"] == str(2 - i) and r.headers["x-ratelimit-used"] == str(i + 1)
        refused = post(http, s.url, q)
        assert refused.status_code == 200 and refused.headers["x-ratelimit-remaining"] == "0"
        assert refused.headers["x-ratelimit-resource"] == "graphql"
        assert refused.json()["errors"][0]["type"] == "RATE_LIMITED" and "data" not in refused.json()
        assert http.get(f"{s.url}/repos/acme/tool", headers=AUTH).status_code == 200  # core is another window
        clock.advance(int(refused.headers["x-ratelimit-reset"]) - clock.now())
        assert post(http, s.url, q).json()["data"]["r"] is not None
        st = s.stats
        assert st["graphql_requests"] == 5 and st["core_requests"] == 1 and st["rate_limited"] == 1
        assert "ETag" not in refused.headers


def test_graphql_gets_secondary_limits_and_server_errors_of_the_profile(http):
    prof = replace(QUIET, core_limit=None, secondary_rate=0.2, secondary_block=0.0, error_rate=0.2)
    with EmulatorServer(RECS, profile=prof, clock=VirtualClock(), seed=6) as s:
        q = {"query": '{ r: repository(owner: "acme", name: "tool") { nameWithOwner } }'}
        statuses = [post(http, s.url, q).status_code for _ in range(60)]
        assert 200 in statuses and 403 in statuses and ({502, 503} & set(statuses))
        assert s.stats["secondary_limited"] == statuses.count(403)
