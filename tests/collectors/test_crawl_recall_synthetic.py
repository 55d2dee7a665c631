"""Recall beyond the real sample: a synthetic snapshot (made-up repos and contents) with what the sample lacks —
nested and oddly spelled paths, rules folders with sub-folders, a repo with 150 rules, files at the 384 KiB
index limit, empty and binary-looking files, identical files across repos, and more than 1,000 files of one
filename (so the crawl must cut the query into size ranges). The crawl under profile github must store every
indexable file the evaluation's path rule names, and nothing of the files too large to be indexed."""

from __future__ import annotations

import random
import re

import pytest

from aac.collectors.collect import run_github_crawl
from aac.collectors.emulator import EmulatorServer
from aac.core.config import Secret
from aac.core.store import Corpus

TOKEN = "ghp_collectorTestToken0123456789abcdef"
LIMIT = 384 * 1024  # files this size or larger are not in the code-search index
# the path rule of the project's recall yardstick (../shared/tools/devcheck.py)
WELL_KNOWN = re.compile(
    r"(^|/)(CLAUDE\.md|AGENTS\.md|GEMINI\.md|\.cursorrules|\.windsurfrules|\.continuerules|\.aider\.conf\.yml)$"
    r"|^\.github/copilot-instructions\.md$|^\.cursor/rules/.+\.mdc$|^\.windsurf/rules/.+\.md$|^\.continue/rules/.+\.md$")
ROOT_NAMES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".cursorrules", ".windsurfrules", ".continuerules",
              ".aider.conf.yml", ".github/copilot-instructions.md")
ODD_DIRS = ("packages/api", "a/b/c/d/e", "docs/日本語", "café", "my docs", "weird#dir", "100%", "q?x", "c++",
            "emoji_🚀", ".hidden/dir")
RULE_FOLDERS = (".cursor/rules", ".windsurf/rules", ".continue/rules")


def _text(rng: random.Random, n: int) -> str:
    words = "keep tests green prefer small typed functions never commit secrets run the linter".split()
    return ("- " + " ".join(rng.choice(words) for _ in range(n // 6 + 1)))[:n]


def synthetic_snapshot() -> list[dict]:
    rng = random.Random(7)
    rows: list[dict] = []

    def add(repo: str, path: str, content: str) -> None:
        rows.append({"repo": repo, "path": path, "content": content, "commit": "%040x" % rng.getrandbits(160)})

    template = _text(rng, 900)  # one file copied into many repositories
    for i in range(1100):  # more files of one filename than a query can list
        add(f"owner{i % 97}/proj-{i}", "CLAUDE.md", template if i % 10 == 0 else _text(rng, rng.randint(10, 6000)))
    for k, name in enumerate(ROOT_NAMES):
        for i in range(12):
            add(f"kind{k}/repo.{i}", name, _text(rng, rng.randint(30, 3000)))
        for j, d in enumerate(ODD_DIRS if "/" not in name else ()):
            add(f"nest{k}/r_{j}", f"{d}/{name}", _text(rng, 200))
    for i in range(150):  # one repository with very many rules, in sub-folders
        add("mega/rules", f".cursor/rules/{('', 'backend/', 'sub/dir/deeper/')[i % 3]}rule-{i}.mdc", _text(rng, 300))
    for folder in RULE_FOLDERS:
        ext = ".mdc" if folder == ".cursor/rules" else ".md"
        for j, name in enumerate(("règles", "a b", "#1", "100%", "x.y.z", "日本")):
            add(f"rules{j}/{folder.split('/')[0].lstrip('.')}", f"{folder}/{('', 'sub/', 'ñ/deep/')[j % 3]}{name}{ext}",
                _text(rng, 400))
    for k, size in enumerate((LIMIT - 1, LIMIT - 100, LIMIT, LIMIT + 1)):  # at the index limit, in bytes
        add(f"big/b{k}", "AGENTS.md", "x" * size)
    add("big/multibyte", "GEMINI.md", "é" * (LIMIT // 2 - 1))  # 2 bytes short of the limit: indexed
    add("big/multibyte", "CLAUDE.md", "é" * (LIMIT // 2))  # fewer characters than the limit, but as many bytes
    for k, name in enumerate(ROOT_NAMES):
        add(f"empty/e{k}", name, "")
        add(f"binary/b{k}", name, "\x00\x01PNG\x00" + "".join(chr(rng.randint(1, 255)) for _ in range(200)))
    for i in range(30):  # forks: the same file under other owners
        add(f"forker{i}/proj-{i}", "CLAUDE.md", rows[i]["content"])
    return rows


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    rows = synthetic_snapshot()
    corpus = Corpus(tmp_path_factory.mktemp("recall-synthetic"))
    with EmulatorServer(rows, profile="github", seed=3) as srv:
        summary = run_github_crawl(corpus, srv.url, [Secret(TOKEN)], clock=srv.clock)
    return rows, corpus, summary


def test_every_indexable_well_known_file_is_found_whatever_its_path_or_size(crawled):
    rows, corpus, summary = crawled
    want = {(r["repo"], r["path"]) for r in rows
            if WELL_KNOWN.search(r["path"]) and len(r["content"].encode()) < LIMIT}
    found = {(r["repo"], r["path"]) for r in corpus.sql("select repo, path from artifacts").to_pylist()}
    assert want - found == set()
    too_big = {(r["repo"], r["path"]) for r in rows if len(r["content"].encode()) >= LIMIT}
    assert len(too_big) == 3 and not too_big & found
    assert summary.splits > 0  # the 1,100 CLAUDE.md were reached through size ranges


def test_found_files_keep_their_exact_bytes_even_for_odd_paths_and_binary_content(crawled):
    rows, corpus, _ = crawled
    source = {(r["repo"], r["path"]): r["content"] for r in rows}
    stored = corpus.sql("select repo, path, status, content from artifacts").to_pylist()
    assert stored and all(r["status"] == "collected" for r in stored)
    assert all(r["content"] == source[(r["repo"], r["path"])] for r in stored)
