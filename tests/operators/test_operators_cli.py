import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from aac.cli import app
from aac.operators.verify import norm_ws
from aac.core.tokens import count_tokens
from tests.conftest import needs_extra

DOC = """# Project rules

- Never commit secrets or `.env` files to the repository.
- You must not push directly to main; open a pull request.

## Stack

The backend is a Kotlin service that talks to Postgres through jOOQ. Schema changes live in db/changes.

The frontend is a React app bundled with Vite. It is served from a CDN and talks to the API over REST.

Feature flags guard risky changes; they are kept in LaunchDarkly.

## Style

Prefer small pull requests. Keep functions short and give them descriptive names where possible.
Ideally each module has one concern, and tests sit next to the code they cover.

## History

Yesterday we migrated the cache from Redis to Valkey. Last week we switched CI to GitHub Actions.
"""

runner = CliRunner()


def _write(tmp_path, text=DOC):
    p = tmp_path / "CLAUDE.md"
    p.write_text(text, encoding="utf-8")
    return p


def test_compact_json_report_and_output_within_budget_with_constraints_verbatim(tmp_path):
    src, out = _write(tmp_path), tmp_path / "out.md"
    r = runner.invoke(app, ["compact", str(src), "--budget", "0.5", "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["unsafe"] is False and rep["budget"] == count_tokens(DOC) // 2
    text = out.read_text(encoding="utf-8")
    assert count_tokens(text) <= rep["budget"] and rep["tokens_out"] <= rep["budget"]
    cs = [h for h in rep["hard_lane"] if h["type"] == "C"]
    assert len(cs) >= 2 and all(h["survived"] and norm_ws(h["text"]) in norm_ws(text) for h in cs)


def test_compact_below_b_min_is_unsafe_nonzero_unless_allowed_and_still_reports(tmp_path):
    src, out = _write(tmp_path), tmp_path / "out.md"
    out.write_text("an earlier run's output")
    r = runner.invoke(app, ["compact", str(src), "--budget", "5", "--out", str(out), "--json"])
    assert r.exit_code != 0 and json.loads(r.stdout)["unsafe"] is True and not out.exists()
    r = runner.invoke(app, ["compact", str(src), "--budget", "5", "--json"])
    assert r.exit_code == 3 and "text" not in json.loads(r.stdout)  # "no output written" holds for the report
    r = runner.invoke(app, ["compact", str(src), "--budget", "5", "--out", str(src)])  # in place, and unsafe
    assert r.exit_code == 3 and src.read_text(encoding="utf-8") == DOC  # the input is never deleted
    r = runner.invoke(app, ["compact", str(src), "--budget", "5", "--out", str(out), "--json", "--allow-unsafe"])
    assert r.exit_code == 0 and json.loads(r.stdout)["unsafe"] is True
    assert count_tokens(out.read_text()) <= 5


def test_compact_rejects_a_nonsense_budget(tmp_path):
    r = runner.invoke(app, ["compact", str(_write(tmp_path)), "--budget", "1.7"])
    assert r.exit_code != 0


@pytest.mark.parametrize("classifier", ["default", "regex"])
def test_decompose_writes_partitions_without_locality_violations(tmp_path, classifier):
    r = runner.invoke(app, ["decompose", str(_write(tmp_path)), "--partition-budget", "120", "--out",
                            str(tmp_path / "parts"), "--classifier", classifier])
    rep = json.loads((tmp_path / "parts" / "report.json").read_text())
    assert rep["locality_violations"] == 0 and len(list((tmp_path / "parts").glob("partition-*.md"))) >= 2
    assert r.exit_code == (3 if rep["infeasible"] else 0), r.output


def test_decompose_reports_infeasible_when_constraints_outgrow_the_partition(tmp_path):
    r = runner.invoke(app, ["decompose", str(_write(tmp_path)), "--partition-budget", "12", "--out",
                            str(tmp_path / "parts"), "--classifier", "regex"])
    assert r.exit_code == 3 and "INFEASIBLE" in r.output


def test_retrieve_pins_constraints_first(tmp_path):
    r = runner.invoke(app, ["retrieve", "--file", str(_write(tmp_path)), "how is the backend deployed", "-k", "4", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)["items"]
    # pinned: the hard lane (the classifier's operating point that keeps >= 95 % of real constraints, so it may
    # hold a likely-B item too); the constraints come among the pinned ones, before any unpinned item
    assert got[0]["pinned"] and any(g["type"] == "C" for g in got if g["pinned"])
    first_unpinned = next((n for n, g in enumerate(got) if not g["pinned"]), len(got))
    assert all(g["pinned"] for g in got[:first_unpinned]) and not any(g["pinned"] for g in got[first_unpinned:])


def test_compact_start_up_does_not_import_heavy_dependencies(tmp_path):
    src = _write(tmp_path)
    code = ("import sys; sys.argv=['aac','compact',%r,'--budget','0.5','--json']\n"
            "from aac.cli import app\n"
            "try: app()\nexcept SystemExit: pass\n"
            "print([m for m in ('prefect','torch','sklearn','github','matplotlib','bm25s') if m in sys.modules])" % str(src))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout + r.stderr


@pytest.mark.slow
def test_eval_operators_on_real_sample_shows_the_headline_claims(sample_path, gold_path, tmp_path):
    from aac.operators.evaluate import format_tables, run

    rep = run(sample_path, limit=12, gold=gold_path)
    kept = [row["strategies"]["TypeCompact"]["C"] for row in rep["compaction"].values() if row["feasible"]]
    # None: at that budget only files without a constraint were feasible (nothing to keep)
    assert all(c in (1.0, None) for c in kept) and kept.count(1.0) >= 4
    assert rep["locality"]["TypeDecompose"]["violations"] == 0
    assert rep["retrieval"]["systems"]["TypeRetrieve (BM25)"]["recall@50"] == 1.0
    assert rep["gold_c"]["n_gold_in_configs"] >= 1  # the real constraints of these files, not the classifier's C
    assert "Constraint recall against the adjudicated constraints of gold_dev.jsonl" in format_tables(rep)
    needs_extra("matplotlib")
    from aac.operators.plots import draw

    assert all(p.stat().st_size > 10_000 for p in draw(rep, tmp_path / "plots"))


@pytest.mark.slow
def test_real_gold_constraints_reach_the_hard_lane_and_survive_compaction(sample_path, gold_path):
    from aac.operators.evaluate import load_configs
    from aac.operators.gold_recall import gold_constraint_table, load_gold_constraints

    g = gold_constraint_table(load_configs(sample_path, limit=40), load_gold_constraints(gold_path))
    assert g["matched"] >= 3 and g["in_hard_lane"] == g["matched"]
    assert all(row["kept"] == row["in_feasible"] for row in g["budgets"].values())
    assert sum(row["in_feasible"] for row in g["budgets"].values()) >= 1


def test_retrieve_over_a_corpus_items_table_keeps_each_artifacts_global_rules_to_itself(corpus):
    needs_extra("pyarrow")
    needs_extra("duckdb")
    import pyarrow as pa

    from aac.core.schema import ITEMS, conform

    def row(art, n, text, typ, topic, scope):
        return {"item_id": f"{art}-{n}", "artifact_id": art, "ordinal": n, "text": text, "kind": "bullet",
                "section_path": [], "topic": topic, "type": typ, "type_proba": None, "classifier": "t",
                "confidence": 1.0, "abstained": False, "scope": scope, "authority": "user", "n_tokens": None}
    rows = [row("A", 0, "Never run migrations by hand.", "C", "a-root", ["*"]),
            row("A", 1, "Database tests use a throwaway Postgres.", "B", "a-root/db", ["a-root/db"]),
            row("B", 0, "Never print customer emails.", "C", "b-root", ["*"]),
            row("B", 1, "The mailer sends a digest every morning.", "B", "b-root/mail", ["b-root/mail"])]
    corpus.write_part("items", "t", conform(pa.Table.from_pylist(rows), ITEMS))
    r = runner.invoke(app, ["retrieve", "--corpus", str(corpus.root), "database tests", "-k", "2", "--topics", "db", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)["items"]
    assert got[0]["text"] == "Never run migrations by hand." and got[0]["pinned"]
    assert all("customer emails" not in g["text"] for g in got)


def test_retrieve_keeps_a_files_global_rules_for_a_topic_it_has_no_section_for(tmp_path):
    f = tmp_path / "r.md"
    f.write_text("# Project\n\n## Rules\n\n- Never commit secrets or API keys to the repository.\n"
                 "- Never push directly to the main branch.\n\n## Testing\n\n- Run pytest -q before opening a pull request.\n")
    for topics in ("testing", "returns"):
        r = runner.invoke(app, ["retrieve", "--file", str(f), "how do I run the tests", "-k", "3", "--topics", topics,
                                "--json"])
        assert r.exit_code == 0, r.output
        pinned = [g["text"] for g in json.loads(r.stdout)["items"] if g["pinned"]]
        assert any("secrets" in t for t in pinned), (topics, pinned)


def test_retrieve_pins_glob_scoped_rules_for_a_matching_path(tmp_path):
    f = tmp_path / "ts.mdc"
    f.write_text("---\ndescription: TS rules\nglobs: src/**/*.ts\nalwaysApply: false\n---\n"
                 "- Never disable strict null checks.\n")

    def pinned(*extra):
        r = runner.invoke(app, ["retrieve", "--file", str(f), "components layout", "-k", "2", "--topics", "other",
                                "--json", *extra])
        assert r.exit_code == 0, r.output
        return [g["text"] for g in json.loads(r.stdout)["items"] if g["pinned"]]

    assert pinned() == []
    assert pinned("--path", "src/app/x.ts") == ["Never disable strict null checks."]
    assert pinned("--path", "docs/readme.md") == []


def test_retrieve_over_several_files_keeps_every_files_global_rules_for_a_matched_topic(tmp_path):
    policy = tmp_path / "policy.md"
    policy.write_text("# Policy\n\n## Returns\n\n- Refunds go back to the original payment method only.\n"
                      "- Never refund a gift card.\n", encoding="utf-8")
    proj = _write(tmp_path)
    r = runner.invoke(app, ["retrieve", "--file", str(policy), "--file", str(proj), "customer wants a refund",
                            "-k", "6", "--topics", "returns", "--json"])
    assert r.exit_code == 0, r.output
    pinned = " ".join(g["text"] for g in json.loads(r.stdout)["items"] if g["pinned"])
    assert "Never refund a gift card" in pinned  # the matched section's rule
    assert "Never commit secrets" in pinned and "push directly to main" in pinned  # the other file's globals


def test_retrieve_pins_the_preamble_rules_of_a_file_for_any_of_its_topics(tmp_path):
    f = tmp_path / "AGENTS.md"
    f.write_text("NEVER commit secrets or credentials to the repository.\n\n# Guide\n\n## Database\n\n"
                 "We use Postgres 16 with row-level security.\n", encoding="utf-8")
    r = runner.invoke(app, ["retrieve", "--file", str(f), "database setup", "-k", "2", "--topics", "database",
                            "--json"])
    assert r.exit_code == 0, r.output
    assert any("NEVER commit secrets" in g["text"] and g["pinned"] for g in json.loads(r.stdout)["items"])


def test_retrieve_with_k_below_the_constraints_in_scope_says_unsafe_and_exits_3(tmp_path):
    src = _write(tmp_path)
    args = ["retrieve", "--file", str(src), "what may I push", "-k", "1", "--topics", "stack"]
    r = runner.invoke(app, args)
    assert r.exit_code == 3 and "constraints are in scope but -k 1 returns 1" in " ".join(r.output.split())
    assert runner.invoke(app, args + ["--allow-unsafe"]).exit_code == 0
    assert runner.invoke(app, args[:-4] + ["-k", "10", "--topics", "stack"]).exit_code == 0


def test_retrieve_over_two_files_of_the_same_name_keeps_both(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "CLAUDE.md").write_text("- Never push directly to main.\n", encoding="utf-8")
    (tmp_path / "b" / "CLAUDE.md").write_text("- Never commit the .env file.\n", encoding="utf-8")
    r = runner.invoke(app, ["retrieve", "--file", str(tmp_path / "a" / "CLAUDE.md"), "--file",
                            str(tmp_path / "b" / "CLAUDE.md"), "git rules", "-k", "4", "--json"])
    assert r.exit_code == 0, r.output
    assert sum(g["pinned"] for g in json.loads(r.stdout)["items"]) == 2
