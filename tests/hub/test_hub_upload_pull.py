"""Upload to a local Hub endpoint over HTTP (LFS protocol) and pull it back into a queryable corpus."""

from __future__ import annotations

import pytest

from aac.core.config import Secret
from aac.hub.policy import OptOut
from aac.hub.publish import PUBLISH_MARKER, build_hub_folder
from aac.hub.pull import install_snapshot, pull
from aac.hub.upload import UploadError, upload_hub_folder
from aac.core.store import Corpus

import hub_corpus_factory as fx
from local_hub import LocalHub

TOKEN = "hf_" + "LocalTestTokenNeverPrinted" * 2


@pytest.fixture
def online_hub(monkeypatch):
    """Network allowed to 127.0.0.1 only, Xet off so huggingface_hub speaks the LFS protocol our server implements."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    with LocalHub(TOKEN) as hub:
        yield hub


@pytest.fixture
def hub_folder(tmp_path):
    corpus = fx.build(Corpus(tmp_path / "corpus"))
    return build_hub_folder(corpus, tmp_path / "hub", "aac-test/AAC", OptOut.parse(fx.OPTOUT_TEXT.splitlines()))


def test_upload_sends_card_and_every_shard_with_the_token(online_hub, hub_folder, capfd):
    result = upload_hub_folder(hub_folder.folder, "aac-test/AAC", Secret(TOKEN), endpoint=online_hub.url)
    local = {p.relative_to(hub_folder.folder).as_posix(): p.read_bytes()
             for p in hub_folder.folder.rglob("*") if p.is_file() and p.name != PUBLISH_MARKER}  # AAC's, not uploaded
    remote = online_hub.repos["aac-test/AAC"].files
    assert set(remote) == set(local) == set(result.files)
    assert all(remote[k] == v for k, v in local.items())
    assert {p for p in remote if p.endswith(".parquet")} == online_hub.repos["aac-test/AAC"].lfs_paths
    writes = [(m, p, ok) for m, p, ok in online_hub.log if m == "POST"]  # PUTs go to the pre-signed storage URL
    assert writes and all(ok for _, _, ok in writes)
    assert any(p.endswith("/commit/main") for _, p, _ in writes)
    out = capfd.readouterr()
    assert TOKEN not in out.out + out.err
    assert not any(TOKEN.encode() in b for b in online_hub.bodies)


def test_reupload_replaces_stale_shards_of_the_previous_release(online_hub, hub_folder):
    upload_hub_folder(hub_folder.folder, "aac-test/AAC", Secret(TOKEN), endpoint=online_hub.url)
    online_hub.repos["aac-test/AAC"].files["data/items/train-00000-of-00002.parquet"] = b"old release shard"
    upload_hub_folder(hub_folder.folder, "aac-test/AAC", Secret(TOKEN), endpoint=online_hub.url)
    assert "data/items/train-00000-of-00002.parquet" not in online_hub.repos["aac-test/AAC"].files


def test_wrong_token_fails_with_a_clear_error_that_hides_the_token(online_hub, hub_folder):
    wrong = "hf_" + "WrongTokenAlsoSecret" * 2
    with pytest.raises(UploadError) as err:
        upload_hub_folder(hub_folder.folder, "aac-test/AAC", Secret(wrong), endpoint=online_hub.url)
    assert wrong not in str(err.value) and "aac-test/AAC" in str(err.value)


def test_upload_refuses_in_offline_mode_instead_of_hanging(hub_folder, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(UploadError, match="HF_HUB_OFFLINE"):
        upload_hub_folder(hub_folder.folder, "aac-test/AAC", Secret(TOKEN), endpoint="http://127.0.0.1:9")


def test_pull_downloads_the_release_and_sql_works_at_once(online_hub, hub_folder, tmp_path):
    upload_hub_folder(hub_folder.folder, "aac-test/AAC", Secret(TOKEN), endpoint=online_hub.url)
    target = Corpus(tmp_path / "analyst")
    result = pull("aac-test/AAC", target, endpoint=online_hub.url)
    assert result.rows == hub_folder.report.rows
    got = target.sql("SELECT platform, count(*) AS n FROM artifacts GROUP BY 1 ORDER BY 1").to_pylist()
    assert got == [{"platform": "agents", "n": 1}, {"platform": "claude", "n": 1}, {"platform": "cursor", "n": 1}]
    import duckdb

    con = duckdb.connect(str(result.catalog), read_only=True)
    con.execute(f"SET file_search_path = '{target.root}'")  # the catalog's views are relative to the corpus folder
    assert con.sql("SELECT count(*) FROM items").fetchall()[0][0] == hub_folder.report.rows["items"]
    con.close()


def test_install_snapshot_rejects_a_folder_that_is_not_a_release(tmp_path):
    (tmp_path / "data" / "artifacts").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="artifacts"):
        install_snapshot(tmp_path, Corpus(tmp_path / "c"))
