"""Publishing leaks nothing through a repository relicensed after its files were stored, the
publish flow's opt-out default, annotation rows carrying their own text, and a validator that only proved loading."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from aac.hub.publish import build_hub_folder
from aac.hub.validate import HubFolderInvalid, check_policy
from aac.core.store import Corpus

import hub_corpus_factory as fx


def _published_paths(folder) -> set[tuple[str, str]]:
    t = pq.read_table(next((folder / "data" / "artifacts").glob("*.parquet")), columns=["repo", "path"])
    return set(zip(t.column("repo").to_pylist(), t.column("path").to_pylist()))


def test_a_repository_relicensed_since_its_files_were_stored_holds_them_back(tmp_path):
    corpus = fx.build(Corpus(tmp_path / "c"))
    repos = corpus.read("repos").to_pylist()
    for r in repos:
        if r["full_name"] == "zed/tool":
            r["license_spdx"] = "GPL-3.0-only"  # the artifact row still says Apache-2.0
    corpus.replace("repos", pa.Table.from_pylist(repos, schema=corpus.schema("repos")))
    result = build_hub_folder(corpus, tmp_path / "hub")
    assert ("zed", ".cursorrules") not in {(r.split("/")[0], p) for r, p in _published_paths(tmp_path / "hub")}
    assert result.report.held_back.get("repo_license_not_permissive") == 1


def test_the_publish_flow_reads_the_corpus_opt_out_list_like_the_cli(tmp_path):
    from aac.flows.publish import build_task

    corpus = fx.build(Corpus(tmp_path / "c"))
    (tmp_path / "c" / "optout.txt").write_text(fx.OPTOUT_TEXT, encoding="utf-8")
    figures = build_task.fn(str(corpus.root), str(tmp_path / "hub"), None, None)
    assert figures["held_back"].get("opted_out") == 2
    assert _published_paths(tmp_path / "hub") == fx.PUBLISHABLE


def test_annotations_are_published_with_their_checked_items_text_and_place(tmp_path):
    corpus = fx.build(Corpus(tmp_path / "c"))
    anns = corpus.read("annotations").to_pylist()
    anns[0].update(text="pasted with " + fx.PLANTED_AWS_KEY, repo="copyleft/app")
    corpus.replace("annotations", pa.Table.from_pylist(anns, schema=corpus.schema("annotations")))
    build_hub_folder(corpus, tmp_path / "hub")
    published = pq.read_table(next((tmp_path / "hub" / "data" / "annotations").glob("*.parquet"))).to_pylist()
    items = {r["item_id"]: r["text"] for r in corpus.read("items").to_pylist()}
    assert published and all(r["text"] == items[r["item_id"]] for r in published)
    assert not any(fx.PLANTED_AWS_KEY in (r["text"] or "") or r["repo"] == "copyleft/app" for r in published)


def test_a_label_whose_item_now_holds_other_text_is_held_back(tmp_path):
    """Item ids are places in a file: after an upstream edit a label can name an item with other text."""
    corpus = fx.build(Corpus(tmp_path / "c"))
    anns = corpus.read("annotations").to_pylist()
    moved, spaced = anns[0]["item_id"], anns[2]["item_id"]
    for a in anns:
        if a["item_id"] == moved:
            a["text"] = "Never push directly to main."  # what was at this place when it was labelled
        elif a["item_id"] == spaced:
            a["text"] = "  " + a["text"].replace(" ", "\n ", 1) + " "  # the same text, other spacing
    corpus.replace("annotations", pa.Table.from_pylist(anns, schema=corpus.schema("annotations")))
    result = build_hub_folder(corpus, tmp_path / "hub")
    published = {r["item_id"] for r in pq.read_table(tmp_path / "hub" / "data" / "annotations").to_pylist()}
    assert moved not in published and spaced in published
    assert result.report.labels_of_changed_text == 2  # both annotators' labels of the moved item


@pytest.mark.parametrize("damage, message", [
    ("gpl_row", "without an allowlisted licence"),
    ("secret", "with a secret in their text"),
    ("column", "schema differs"),
    ("orphan", "items of no published artifact"),
])
def test_the_validator_checks_the_rows_not_only_that_they_load(tmp_path, damage, message):
    corpus = fx.build(Corpus(tmp_path / "c"))
    build_hub_folder(corpus, tmp_path / "hub")
    check_policy(tmp_path / "hub")  # the folder as written passes
    config = "artifacts" if damage == "gpl_row" else "items"
    shard = next((tmp_path / "hub" / "data" / config).glob("*.parquet"))
    t = pq.read_table(shard)
    if damage == "gpl_row":
        t = t.set_column(t.schema.get_field_index("license_spdx"), "license_spdx",
                         pa.array(["GPL-3.0-only"] * t.num_rows, pa.string()))
    elif damage == "secret":
        texts = t.column("text").to_pylist()
        texts[0] = "key " + fx.PLANTED_AWS_KEY
        t = t.set_column(t.schema.get_field_index("text"), "text", pa.array(texts, pa.string()))
    elif damage == "column":
        t = t.drop_columns(["topic"])
    else:
        ids = t.column("artifact_id").to_pylist()
        ids[0] = "no-such-artifact"
        t = t.set_column(t.schema.get_field_index("artifact_id"), "artifact_id", pa.array(ids, pa.string()))
    pq.write_table(t, shard)
    with pytest.raises(HubFolderInvalid, match=message):
        check_policy(tmp_path / "hub")
