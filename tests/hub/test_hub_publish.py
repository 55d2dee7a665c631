"""`aac publish`: the Hub layout, the card's YAML and body, the publish policy, and the offline datasets check."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
import yaml

from aac.hub.layout import CONFIGS
from aac.hub.policy import OptOut
from aac.hub.publish import build_hub_folder
from aac.core.ids import artifact_id

import hub_corpus_factory as fx


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    from aac.core.store import Corpus

    root = tmp_path_factory.mktemp("pub")
    corpus = fx.build(Corpus(root / "corpus"))
    optout = OptOut.parse(fx.OPTOUT_TEXT.splitlines())
    return build_hub_folder(corpus, root / "hub", repo_id="aac-test/AAC", optout=optout)


def _front_matter(folder):
    return yaml.safe_load((folder / "README.md").read_text().split("---\n", 2)[1])


def test_every_config_loads_offline_with_datasets_and_row_counts_match(published):
    assert set(published.validated_rows) == set(CONFIGS)
    assert published.validated_rows == published.report.rows
    assert published.validated_rows["artifacts"] == len(fx.PUBLISHABLE)


def test_card_yaml_has_hub_configs_license_and_categories(published):
    meta = _front_matter(published.folder)
    assert meta["license"] == "other" and meta["license_name"]
    assert meta["pretty_name"] and meta["tags"] and meta["task_categories"]
    assert meta["size_categories"] == ["n<1K"]
    by_name = {c["config_name"]: c for c in meta["configs"]}
    assert set(by_name) == set(CONFIGS)
    for name, conf in by_name.items():
        assert conf["data_files"] == [{"split": "train", "path": f"data/{name}/train-*.parquet"}]


def test_shards_are_named_i_of_n_zstd_with_page_index(published):
    for config in CONFIGS:
        files = sorted((published.folder / "data" / config).iterdir())
        n = len(files)
        assert [f.name for f in files] == [f"train-{i:05d}-of-{n:05d}.parquet" for i in range(n)]
        meta = pq.ParquetFile(files[0]).metadata
        if meta.num_row_groups:
            assert meta.row_group(0).column(0).compression == "ZSTD"


def test_only_kept_permissive_clean_not_opted_out_artifacts_are_published(published):
    table = pq.read_table(published.folder / "data" / "artifacts")
    got = {(r["repo"], r["path"]) for r in table.select(["repo", "path"]).to_pylist()}
    assert got == fx.PUBLISHABLE
    assert published.report.held_back == {
        "license_not_permissive": 1, "opted_out": 2, "secret_in_content": 1, "exact_duplicate": 1}


def test_planted_secret_and_gpl_text_never_reach_the_hub_folder(published):
    blob = b"".join(p.read_bytes() for p in published.folder.rglob("*") if p.is_file())
    # parquet pages are zstd-compressed, so check the decoded rows too
    text = "".join(str(pq.read_table(published.folder / "data" / c).to_pylist()) for c in CONFIGS)
    assert fx.PLANTED_AWS_KEY not in text and fx.PLANTED_AWS_KEY.encode() not in blob
    assert "GPL project rule" not in text
    assert "copyleft/app" not in text and "leaky/app" not in text


def test_items_repos_and_annotations_follow_their_artifacts(published):
    allowed = {artifact_id(r, p) for r, p in fx.PUBLISHABLE}
    items = pq.read_table(published.folder / "data" / "items").to_pylist()
    assert items and {i["artifact_id"] for i in items} == allowed
    repos = {r["full_name"] for r in pq.read_table(published.folder / "data" / "repos").to_pylist()}
    assert repos == {"acme/web", "zed/tool"}
    anns = pq.read_table(published.folder / "data" / "annotations").to_pylist()
    assert {a["item_id"] for a in anns} == {i["item_id"] for i in items}


def test_card_body_reports_counts_from_the_published_data(published):
    body = (published.folder / "README.md").read_text()
    assert "| claude | 1 |" in body and "| agents | 1 |" in body and "| cursor | 1 |" in body
    assert "**Snapshot date:** 2026-11-30" in body
    assert "| opted_out | 2 |" in body
    for heading in ("## License policy", "## Secret scrubbing", "## Opt-out", "## Type distribution"):
        assert heading in body
    assert "hf://datasets/aac-test/AAC/" in body


def test_optout_lines_accept_owner_star_and_reject_garbage():
    o = OptOut.parse(["a/*", "B/c  # comment", "", "https://github.com/d/e/"])
    assert o.excludes("a/anything") and o.excludes("b/C") and o.excludes("d/e") and not o.excludes("b/d")
    with pytest.raises(ValueError, match="line 1"):
        OptOut.parse(["not-a-repo"])
