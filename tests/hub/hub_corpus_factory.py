"""A small processed-looking corpus written with aac.core.store, covering every publish rule (test data, not a mock)."""

from __future__ import annotations

import datetime as dt
import hashlib

import pyarrow as pa

from aac.core.ids import artifact_id, item_id
from aac.core.schema import ANNOTATIONS, ARTIFACTS, ITEMS, REPOS
from aac.core.store import Corpus

# Assembled so the literal never sits in the repository as a real-looking key.
PLANTED_AWS_KEY = "AKIA" + "Q7PLANTEDTESTKEY"
T0 = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)

# (repo, path, platform, license, status, content)
ROWS = [
    ("acme/web", "CLAUDE.md", "claude", "MIT", "kept",
     "# Rules\n\n- Never commit to main.\n- Run `make test` before pushing.\n\nWe use React 19."),
    ("acme/web", "AGENTS.md", "agents", "MIT", "kept",
     "# Setup\n\n1. Install deps with pnpm.\n2. Start the dev server.\n\nKey: [REDACTED:aws_access_key]"),
    ("zed/tool", ".cursorrules", "cursor", "Apache-2.0", "kept", "- Prefer small functions.\n- Last week we moved to uv."),
    ("copyleft/app", "CLAUDE.md", "claude", "GPL-3.0-only", "kept", "- GPL project rule that must not be published."),
    ("leaky/app", "AGENTS.md", "agents", "MIT", "kept", f"- Deploy with key {PLANTED_AWS_KEY} from prod."),
    # GitHub names keep their owners' case; opt-out lines match them in any case
    ("Private-Owner/One", "CLAUDE.md", "claude", "MIT", "kept", "- Opted-out owner rule."),
    ("Acme/SECRET-repo", ".windsurfrules", "windsurf", "MIT", "kept", "- Opted-out single repo rule."),
    ("acme/web", "docs/old/CLAUDE.md", "claude", "MIT", "dropped", "- exact duplicate"),
]

PUBLISHABLE = {("acme/web", "CLAUDE.md"), ("acme/web", "AGENTS.md"), ("zed/tool", ".cursorrules")}
OPTOUT_TEXT = "# owners who asked to be left out\nprivate-owner/*\nACME/Secret-Repo\n"


def _items_of(aid: str, content: str, platform: str) -> list[dict]:
    out = []
    for n, line in enumerate(l for l in content.splitlines() if l.strip() and not l.startswith("#")):
        typ = "C" if "Never" in line or "must" in line else ("P" if line[0].isdigit() or "Run" in line else "B")
        out.append(dict(item_id=item_id(aid, n), artifact_id=aid, ordinal=n, text=line.lstrip("-0123456789. "),
                        kind="bullet", section_path=["Rules"], topic="rules", type=typ,
                        type_proba=[0.2] * 5, classifier="regex", confidence=0.6, abstained=False, scope=["*"],
                        authority="project", n_tokens=len(line.split())))
    return out


def build(corpus: Corpus) -> Corpus:
    arts, items = [], []
    for repo, path, platform, lic, status, content in ROWS:
        aid = artifact_id(repo, path)
        arts.append(dict(artifact_id=aid, repo=repo, path=path, platform=platform, function="rules",
                         authorship="human", specificity="project", size_bytes=len(content.encode()),
                         html_url=f"https://github.com/{repo}/blob/main/{path}", license_spdx=lic,
                         content_sha256=hashlib.sha256(content.encode()).hexdigest(), secrets_found=1 if "REDACTED" in content else 0,
                         status=status, drop_reason=None if status == "kept" else "exact_duplicate",
                         content=content, collected_at=T0))
        items += _items_of(aid, content, platform)
    corpus.replace("artifacts", pa.Table.from_pylist(arts, schema=ARTIFACTS))
    corpus.replace("items", pa.Table.from_pylist(items, schema=ITEMS))
    repos = sorted({(r[0], r[3]) for r in ROWS})
    corpus.replace("repos", pa.Table.from_pylist(
        [dict(full_name=r, stars=10, forks=1, language="Python", license_spdx=lic, license_source="api",
              default_branch="main", is_fork=False, archived=False, fetched_at=T0) for r, lic in repos], schema=REPOS))
    anns = [dict(item_id=i["item_id"], annotator=a, label=i["type"], round=1, meta=False, text=i["text"],
                 section_path=i["section_path"]) for i in items for a in ("A", "B")]
    corpus.replace("annotations", pa.Table.from_pylist(anns, schema=ANNOTATIONS))
    return corpus
