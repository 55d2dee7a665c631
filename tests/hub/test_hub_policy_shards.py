"""Secret shapes refused at publish time, and shard/row-group sizing for the Hub viewer."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from aac.hub import layout
from aac.hub.policy import SECRET_PATTERNS, find_secret_kinds
from aac.hub.publish import build_hub_folder
from aac.core.store import Corpus

import hub_corpus_factory as fx

# Assembled at run time so no real-looking token sits in the repository.
EXAMPLES = {
    "aws_access_key": "AKIA" + "ABCDEFGHIJKLMNOP",
    "github_token": "ghp_" + "a1B2" * 9,
    "github_fine_grained_pat": "github_pat_" + "11ABCDEFG" * 3,
    "slack_token": "xoxb-" + "1234567890-abcdef",
    "private_key": "-----BEGIN " + "RSA PRIVATE KEY-----",
    "openai_key": "sk-" + "proj-" + "Ab3" * 12,
    "anthropic_key": "sk-ant-" + "api03-" + "x" * 30,
    "google_api_key": "AIza" + "S" * 35,
    "stripe_live_key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "huggingface_token": "hf_" + "abcdefghij" * 4,
    "gitlab_pat": "glpat-" + "x1y2z3" * 4,
    "npm_token": "npm_" + "A1b2C3" * 6,
    "url_password": "postgres://admin:" + "hunter22" + "@db.internal:5432/app",
    "putty_private_key": "PuTTY-User-Key-File-" + "2: ssh-rsa",
    "databricks_token": "dapi" + "0a1b2c3d" * 4,
    "shopify_token": "shpat_" + "0a1b2c3d" * 4,
    "digitalocean_token": "dop_v1_" + "0a1b2c3d" * 8,
    "slack_app_token": "xapp-1-" + "A1B2C3D4E5" * 3,
    "supabase_token": "sbp_" + "0a1b2c3d" * 5,
    "groq_key": "gsk_" + "aB3dE5" * 8,
    "age_secret_key": "AGE-SECRET-KEY-1" + "QZ3X" * 15,
    "discord_webhook": "https://discord.com/api/webhooks/1234567890/" + "aB3-dE5_" * 8,
    "azure_client_secret": "abc8Q~" + "aB3dE5fG" * 4,
    "discord_bot_token": "MTA5ODc2NTQzMjEwOTg3NjU0Mw" + ".GhTz9k." + "Xq7Lm2Pz9Rt4Vw8Ny3Kb6Hc1Jd5Fg0Sa_bcd",
    "gcp_private_key_id": '"private_key_id": "' + "4b1e6f0a9c" * 4 + '"',
}


def test_a_url_password_without_a_user_name_is_a_secret_too():
    assert find_secret_kinds("cache at redis://:" + "Sup3rS3cret" + "@cache.local:6379") == ["url_password"]


@pytest.mark.parametrize("kind", sorted(SECRET_PATTERNS))
def test_each_secret_shape_is_recognised_in_running_text(kind):
    assert kind in find_secret_kinds(f"config: use {EXAMPLES[kind]} here")


@pytest.mark.parametrize("text", ["[REDACTED:aws_access_key]", "Set `OPENAI_API_KEY` in .env", "see https://example.com/a:b",
                                  "- Never print sk-... keys", "ghp_ prefix marks a GitHub token"])
def test_redacted_placeholders_and_prose_about_keys_are_not_refused(text):
    assert find_secret_kinds(text) == []


@pytest.mark.parametrize("text", ["db.example.com:5432:app:admin:[REDACTED:pgpass_password]",
                                  "localhost:5432:mydb:postgres:postgres", '"private_key_id": "[REDACTED:password]"',
                                  "MTA5ODc2NTQzMjEwOTg3NjU0Mw.[REDACTED:discord_bot_token]"])
def test_redacted_or_default_values_in_the_new_shapes_are_not_refused(text):
    assert find_secret_kinds(text) == []


def _discord_like(bot_id: str, hmac: str = "Xq7Lm2Pz9Rt4Vw8Ny3Kb6Hc1Jd5Fg0Sa_bcd") -> str:
    import base64

    return base64.urlsafe_b64encode(bot_id.encode()).decode().rstrip("=") + ".GhTz9k." + hmac


@pytest.mark.parametrize("text", [
    "localhost:5432:mydb:postgres:12345", "db.internal:5432:app:app:pw1", "app.py:120:4:W0612:unused-variable",
    f"id {_discord_like('123456789012345')} here",  # a 15-digit number is no Discord id
    f"run-{_discord_like('1098765432109876543')}-x",  # inside a longer dashed run
    f"x {_discord_like('1098765432109876543', 'Xq7Lm2Pz9Rt4Vw8Ny3Kb6Hc1Jd5Fg0Sa_bcd' + 'A1b2C3d4')} y",  # tail too long
])
def test_what_processing_keeps_publishing_does_not_refuse(text):
    """A publish pattern wider than the redaction it backs up would hold back whole artifacts whose text is fine."""
    from aac.processing.secrets import scrub

    assert scrub(text).text == text
    assert find_secret_kinds(text) == []


@pytest.mark.parametrize("kind", sorted(SECRET_PATTERNS))
def test_what_publishing_refuses_processing_redacts(kind):
    from aac.processing.secrets import scrub

    scrubbed = scrub(f"config: use {EXAMPLES[kind]} here").text
    assert "[REDACTED:" in scrubbed and find_secret_kinds(scrubbed) == []


def test_the_secret_shapes_compile_in_duckdb_and_agree_with_python():
    """Publishing runs SECRETS_RE_SQL in DuckDB (RE2: no lookarounds, no backreferences)."""
    import duckdb

    from aac.hub.policy import SECRETS_RE_SQL

    texts = [f"config: use {v} here" for v in EXAMPLES.values()] + ["[REDACTED:aws_access_key]", "clean text"]
    got = duckdb.sql("SELECT t, regexp_matches(t, ?) FROM (SELECT unnest(?) AS t)",
                     params=[SECRETS_RE_SQL, texts]).fetchall()
    assert dict(got) == {t: bool(find_secret_kinds(t)) for t in texts}
    assert sum(matched for _, matched in got) == len(EXAMPLES)


def test_leftover_secret_in_an_item_holds_back_the_whole_artifact(tmp_path):
    corpus = fx.build(Corpus(tmp_path / "c"))
    items = corpus.read("items").to_pylist()
    target = items[0]  # an item of acme/web CLAUDE.md, otherwise publishable
    target["text"] = f"token {EXAMPLES['github_token']}"
    import pyarrow as pa

    corpus.replace("items", pa.Table.from_pylist(items, schema=corpus.read("items").schema))
    result = build_hub_folder(corpus, tmp_path / "hub")
    assert result.report.held_back.get("secret_in_items") == 1
    published = pq.read_table(tmp_path / "hub" / "data" / "items").column("artifact_id").to_pylist()
    assert target["artifact_id"] not in published


def test_small_budgets_split_into_i_of_n_shards_that_still_load(tmp_path, monkeypatch):
    monkeypatch.setattr(layout, "ROW_GROUP_BYTES", 300)
    monkeypatch.setattr(layout, "SHARD_BYTES", 600)
    corpus = fx.build(Corpus(tmp_path / "c"))
    result = build_hub_folder(corpus, tmp_path / "hub")
    files = sorted((tmp_path / "hub" / "data" / "annotations").iterdir())
    n = len(files)
    assert n > 1 and [f.name for f in files] == [f"train-{i:05d}-of-{n:05d}.parquet" for i in range(n)]
    assert all(pq.ParquetFile(f).metadata.num_row_groups >= 1 for f in files)
    assert result.validated_rows["annotations"] == result.report.rows["annotations"] > 0


def test_rerun_replaces_the_previous_layout_without_leftover_shards(tmp_path, monkeypatch):
    corpus = fx.build(Corpus(tmp_path / "c"))
    monkeypatch.setattr(layout, "ROW_GROUP_BYTES", 300)
    monkeypatch.setattr(layout, "SHARD_BYTES", 600)
    build_hub_folder(corpus, tmp_path / "hub")
    monkeypatch.undo()
    build_hub_folder(corpus, tmp_path / "hub")
    assert [f.name for f in (tmp_path / "hub" / "data" / "annotations").iterdir()] == ["train-00000-of-00001.parquet"]


def test_big_release_is_validated_by_streaming_and_a_broken_shard_is_caught(tmp_path):
    from aac.hub.validate import HubFolderInvalid, validate_folder

    corpus = fx.build(Corpus(tmp_path / "c"))
    result = build_hub_folder(corpus, tmp_path / "hub", validate=False)
    assert validate_folder(tmp_path / "hub", result.report.rows, full_load_max_bytes=0) == result.report.rows
    shard = next((tmp_path / "hub" / "data" / "items").glob("*.parquet"))
    shard.write_bytes(b"not parquet at all")
    with pytest.raises(HubFolderInvalid, match="items"):
        validate_folder(tmp_path / "hub", full_load_max_bytes=0)


def test_repeated_streaming_validations_leave_no_cache_behind(tmp_path, monkeypatch):
    """`datasets` picks its cache folder once per process: every validation must name its own."""
    import tempfile

    from aac.hub.validate import validate_folder

    corpus = fx.build(Corpus(tmp_path / "c"))
    result = build_hub_folder(corpus, tmp_path / "hub", validate=False)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    for _ in range(2):
        assert validate_folder(tmp_path / "hub", result.report.rows, full_load_max_bytes=0) == result.report.rows
    assert list((tmp_path / "tmp").iterdir()) == []


def test_empty_table_gets_no_config_and_the_release_still_loads_and_pulls(tmp_path):
    from aac.hub.pull import install_snapshot
    from aac.hub.validate import card_yaml

    corpus = fx.build(Corpus(tmp_path / "c"))
    corpus.replace("annotations", corpus.read("annotations").slice(0, 0), allow_empty=True)
    result = build_hub_folder(corpus, tmp_path / "hub")
    assert [c["config_name"] for c in card_yaml(tmp_path / "hub")["configs"]] == ["artifacts", "items", "repos"]
    assert result.report.rows["annotations"] == 0 and "annotations" not in result.validated_rows
    body = (tmp_path / "hub" / "README.md").read_text(encoding="utf-8")
    assert "`annotations` has no rows in this release and so no config" in body
    pulled = install_snapshot(tmp_path / "hub", Corpus(tmp_path / "analyst"))
    assert pulled.rows["annotations"] == 0 and pulled.rows["items"] == result.report.rows["items"]
    assert Corpus(tmp_path / "analyst").sql("SELECT count(*) AS n FROM annotations").column("n")[0].as_py() == 0


def test_datasets_still_cannot_load_a_zero_row_split_so_empty_tables_stay_without_a_config(tmp_path):
    """The reason empty tables get no config. If the installed ``datasets`` learns to load an empty split, this
    fails: then declare the config (a zero-row-group shard) instead of skipping it."""
    from aac.hub.validate import _offline_env
    from aac.core.schema import ANNOTATIONS

    (tmp_path / "data" / "annotations").mkdir(parents=True)
    pq.ParquetWriter(tmp_path / "data" / "annotations" / "train-00000-of-00001.parquet", ANNOTATIONS).close()
    (tmp_path / "README.md").write_text("---\nconfigs:\n- config_name: annotations\n  data_files:\n  - split: train\n"
                                        "    path: data/annotations/*.parquet\n---\n", encoding="utf-8")
    with _offline_env(str(tmp_path / "cache")):
        import datasets

        streamed = datasets.load_dataset(str(tmp_path), "annotations", split="train", streaming=True)
        assert list(streamed) == [] and list(streamed.features) == ANNOTATIONS.names  # streaming copes ...
        with pytest.raises(ValueError, match="corresponds to no data"):  # ... the usual load does not
            datasets.load_dataset(str(tmp_path), "annotations", split="train", cache_dir=str(tmp_path / "cache"))


@pytest.mark.parametrize("text", ["redis://:${REDIS_PASSWORD}@redis:6379/0", "redis://:<password>@localhost",
                                  "amqp://:{{ rabbit_pw }}@mq"])
def test_a_placeholder_in_a_url_is_not_a_secret(text):
    assert find_secret_kinds(text) == []
