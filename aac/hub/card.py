"""The dataset card (README.md): YAML the Hub reads (configs, license, categories) and a body whose figures come
from DuckDB over the shards being published, so the card can never disagree with the data."""

from __future__ import annotations

import datetime as dt

from huggingface_hub import DatasetCard, DatasetCardData

from aac.hub.layout import CONFIGS, LayoutReport
from aac.core.licenses import PERMISSIVE
from aac.core.secret_shapes import SECRET_PATTERNS
from aac.core.schema import TYPE_NAMES, TYPES

TAGS = ["ai-coding-agents", "agent-configuration", "claude-md", "agents-md", "cursorrules", "copilot-instructions",
        "knowledge-typing", "duckdb", "parquet"]

CONFIG_DOCS = {
    "artifacts": "one row per agent configuration file (path, platform, tags, license, redacted content)",
    "items": "one row per item (bullet, paragraph, code block, table row, front-matter key) with its type and scope",
    "repos": "one row per source repository (license, stars, language) that has at least one published artifact",
    "annotations": "human labels of items (annotator, round, label), only for published items",
}


def size_category(n: int) -> str:
    """The Hub's size bucket for ``n`` rows."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
              (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B")]
    for bound, label in bounds:
        if n < bound:
            return label
    return "n>1T" if n >= 10**12 else "1B<n<10B"


def card_data(rows: dict[str, int]) -> DatasetCardData:
    configs = [
        {"config_name": c, "data_files": [{"split": "train", "path": f"data/{c}/train-*.parquet"}],
         **({"default": True} if c == "artifacts" else {})}
        for c in CONFIGS if rows.get(c, 0) > 0  # an empty table has no shard, so no config
    ]
    return DatasetCardData(
        pretty_name="AgentArtifactCorpus (AAC)",
        license="other",
        license_name="per-file-permissive",
        license_details="Each artifact keeps its source repository's license in the license_spdx column; only "
        "files under a permissive allowlisted SPDX license are included.",
        language=["en"],
        task_categories=["text-classification", "text-generation"],
        size_categories=[size_category(max(rows.get("items", 0), rows.get("artifacts", 0)))],
        tags=TAGS,
        configs=configs,
    )


def empty_configs_note(empty: list[str]) -> str:
    """Why a table without rows is listed but not loadable: ``datasets`` cannot load a zero-row split."""
    if not empty:
        return ""
    names = ", ".join(f"`{c}`" for c in empty)
    return (f"{names} {'has' if len(empty) == 1 else 'have'} no rows in this release and so no config: the `datasets` "
            "library cannot load a split of zero rows (`load_dataset(..., split=\"train\")` fails with "
            "'Instruction \"train\" corresponds to no data', whatever features are declared). The columns are "
            "those of the AAC schema; `aac pull` registers the table empty.")


def _table(header: list[str], rows: list[tuple]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join("" if v is None else str(v) for v in r) + " |" for r in rows]
    return "\n".join(out)


def _snapshot_date(value) -> str:
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    return "unknown (no collection time recorded)"


def render_body(summary: dict, report: LayoutReport, repo_id: str | None) -> str:
    rows = summary["rows"]
    total_items = rows.get("items", 0) or 0
    type_counts = dict(summary["per_type"])
    type_rows = [
        (t, TYPE_NAMES[t], type_counts.get(t, 0), f"{100 * type_counts.get(t, 0) / total_items:.1f}%" if total_items else "—")
        for t in TYPES
    ]
    if type_counts.get("untyped"):
        type_rows.append(("—", "untyped", type_counts["untyped"], f"{100 * type_counts['untyped'] / total_items:.1f}%"))
    grid: dict[str, dict[str, int]] = {}
    for platform, typ, n in summary["per_platform_type"]:
        grid.setdefault(platform, {})[typ] = n
    held = sorted(report.held_back.items(), key=lambda kv: (-kv[1], kv[0]))
    rid = repo_id or "ORG/NAME"
    parts = [
        "# AgentArtifactCorpus (AAC)",
        "Configuration files written for AI coding agents (CLAUDE.md, AGENTS.md, .cursorrules, .cursor/rules/*.mdc, "
        ".github/copilot-instructions.md, .windsurfrules, ...) collected from public GitHub repositories, split into "
        "items, and each item typed as Constraint, Procedural, Belief, Preference or Episodic.",
        f"**Snapshot date:** {_snapshot_date(summary['snapshot'])} (latest collection time among published artifacts).",
        "## Configs",
        _table(["config", "rows", "what a row is"], [(c, rows.get(c, 0), CONFIG_DOCS[c]) for c in CONFIGS]),
        empty_configs_note([c for c in CONFIGS if rows.get(c, 0) == 0]),
        "```python\nfrom datasets import load_dataset\n"
        f"items = load_dataset(\"{rid}\", \"items\", split=\"train\")\n```",
        "## Counts per platform",
        _table(["platform", "artifacts", "items", "repos"], summary["per_platform"]),
        "## Type distribution",
        "Item types in this release. (The paper's Table 4 distribution is not reproduced here; compare against it "
        "from the paper itself.)",
        _table(["type", "name", "items", "share"], type_rows),
        "### Types per platform",
        _table(["platform", *TYPES], [(p, *(grid[p].get(t, 0) for t in TYPES)) for p in sorted(grid)]),
        "## How it was built",
        "1. **Crawl**: GitHub code search (REST API via PyGithub) per platform path pattern, with size-range splitting "
        "to get past the 1,000-results-per-query cap; repository metadata (license, stars) per repo.\n"
        "2. **Process**: decoding and normalisation, exact and MinHash near-duplicate detection (`near_dup_of`, "
        "`dup_cluster_size`), license filtering, secret redaction, platform/function/authorship/specificity tags, "
        "Markdown parsed into items with their section path and scope.\n"
        "3. **Type**: every item classified into the five types (`type`, `type_proba`, `classifier`, `confidence`). "
        "`type_proba` lists the probabilities in the fixed order C, P, B, F, E (Constraint, Procedural, Belief, "
        "Preference, Episodic). `type` is not always its argmax: an item whose constraint risk passes the "
        "classifier's threshold is typed C even when another type is likelier, because losing a constraint costs more "
        "than keeping an extra one. An item with `abstained` true was too uncertain to type: it keeps its likeliest "
        "type, and the AAC operators treat it as a constraint. `hard_lane` is true for every item whose constraint "
        "risk reaches the classifier's hard-lane threshold (chosen so that cross-validation over unseen repositories "
        "keeps at least 95 % of real constraints): what the AAC operators keep verbatim.\n"
        "4. **Publish**: only publishable rows (below) are sharded into zstd Parquet with small row groups.",
        "## License policy",
        "The dataset is a collection of files under their own licenses (`license: other`). Each artifact row carries "
        "`license_spdx`, the SPDX id of its source repository's license, and only files whose license is on this "
        "permissive allowlist are included: " + ", ".join(f"`{s}`" for s in sorted(PERMISSIVE)) + ". Unknown, "
        "copyleft and proprietary licenses are excluded. Reuse each file under its own license and keep its "
        "attribution (`repo`, `path`, `html_url`, `commit_sha`).",
        "## Secret scrubbing",
        "Processing detects API keys, tokens, private keys, passwords in URLs and similar, and replaces them with "
        "typed placeholders such as `[REDACTED:aws_access_key]`; `secrets_found` counts them per artifact. Before "
        "publishing, every artifact and item is checked again against well-known token shapes ("
        + ", ".join(f"`{k}`" for k in SECRET_PATTERNS) + "); an artifact where any still matches is left out whole.",
        "## Held back in this release",
        _table(["reason", "artifacts"], held) if held else "Nothing was held back.",
        "## Opt-out",
        "If you own a repository in this dataset and want it removed, open a discussion on this dataset's page (or an "
        "issue in the AAC project) naming `owner/name` (or `owner/*` for all your repositories). It is added to the "
        "maintainers' `optout.txt`; the next release and every later one exclude it, together with its items and "
        "annotations.",
        "## Querying in place",
        "```sql\n-- DuckDB, no download needed\n"
        f"SELECT platform, count(*) FROM 'hf://datasets/{rid}/data/artifacts/*.parquet' GROUP BY 1 ORDER BY 2 DESC;\n```",
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def render_card(summary: dict, report: LayoutReport, repo_id: str | None) -> str:
    """The full README.md (YAML front matter + body)."""
    data = card_data(summary["rows"])
    card = DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{render_body(summary, report, repo_id)}")
    return str(card)
