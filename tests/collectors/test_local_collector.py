import subprocess

from aac.collectors.local import collect_local, guess_license, repo_name

MIT = "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n"


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _checkout(root, name, files):
    repo = root / name
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "remote", "add", "origin", f"git@github.com:acme/{name}.git")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.email=t@e.st", "-c", "user.name=t", "commit", "-qm", "init")
    return repo


def test_local_checkouts_give_the_same_artifact_rows_with_commit_and_license_guess(tmp_path, corpus):
    root = tmp_path / "src"
    a = _checkout(root, "app", {"CLAUDE.md": "# Rules\n- run tests\n", ".cursor/rules/x.mdc": "be kind\n",
                                "README.md": "not an agent file\n", "LICENSE": MIT,
                                "node_modules/dep/AGENTS.md": "vendored, skipped\n"})
    _checkout(root, "lib", {"AGENTS.md": "bytes \xe9\n"})
    assert collect_local(corpus, root) == 3
    rows = {(r["repo"], r["path"]): r for r in corpus.read("artifacts").to_pylist()}
    assert set(rows) == {("acme/app", "CLAUDE.md"), ("acme/app", ".cursor/rules/x.mdc"), ("acme/lib", "AGENTS.md")}
    claude = rows[("acme/app", "CLAUDE.md")]
    head = subprocess.run(["git", "-C", str(a), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert claude["commit_sha"] == head and claude["license_spdx"] == "MIT" and claude["platform"] == "claude"
    assert rows[("acme/lib", "AGENTS.md")]["license_spdx"] is None
    # a rerun replaces its parts: no duplicates
    collect_local(corpus, root)
    assert corpus.count("artifacts") == 3


def test_license_guess_is_unknown_when_it_cannot_tell():
    assert guess_license("All rights reserved.") == "unknown"
    assert guess_license("SPDX-License-Identifier: Apache-2.0") == "Apache-2.0"


def test_plain_folder_without_git_is_named_under_local(tmp_path):
    (tmp_path / "proj").mkdir()
    assert repo_name(tmp_path / "proj") == "local/proj"


def test_an_unreadable_file_is_kept_with_its_reason_and_the_rest_is_collected(tmp_path, corpus, monkeypatch):
    from pathlib import Path

    root = tmp_path / "src"
    for name in ("r1", "r2"):
        (root / name).mkdir(parents=True)
        (root / name / "CLAUDE.md").write_text("# Rules\n- run tests\n")
    from aac.collectors import local

    real = local.read_inside

    def read_inside(path: Path) -> bytes:
        if path.parent.name == "r1" and path.name == "CLAUDE.md":
            raise OSError(5, "Input/output error")
        return real(path)

    monkeypatch.setattr(local, "read_inside", read_inside)
    assert collect_local(corpus, root) == 2
    rows = {r["repo"].split("/")[-1]: r for r in corpus.read("artifacts").to_pylist()}
    assert (rows["r1"]["status"], rows["r1"]["drop_reason"], rows["r1"]["content"]) == \
        ("dropped", "content_unavailable", None)
    assert rows["r2"]["status"] == "collected" and rows["r2"]["content"].startswith("# Rules")


def test_utf16_and_bom_files_reach_processing_decoded_with_the_fix_recorded(tmp_path, corpus):
    from aac.processing.normalize import normalize

    root = tmp_path / "src" / "r"
    root.mkdir(parents=True)
    (root / "AGENTS.md").write_bytes("# Regeln\n- Niemals pushen.\n".encode("utf-16"))
    (root / "CLAUDE.md").write_bytes(b"\xef\xbb\xbf# Rules\r\n- run tests\r\n")
    collect_local(corpus, tmp_path / "src")
    rows = {r["path"]: r for r in corpus.read("artifacts").to_pylist()}
    utf16, bom = normalize(rows["AGENTS.md"]["content"]), normalize(rows["CLAUDE.md"]["content"])
    assert utf16.kept and utf16.text.startswith("# Regeln")
    assert bom.kept and bom.text == "# Rules\n- run tests\n" and {"bom", "newlines"} <= set(bom.fixes)


def test_symlinked_agent_files_are_dropped_as_symlink_and_never_read(tmp_path, corpus):
    """Issue 27 item 5: `AGENTS.md -> /etc/passwd` became a kept row; links inside the tree are dropped too."""
    from aac.processing.pipeline import run

    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "passwd"
    secret.write_text("root:x:0:0:OUTSIDE-THE-CHECKOUT:/root:/bin/bash\n", encoding="utf-8")
    (outside / "rules").mkdir()
    (outside / "rules" / "x.mdc").write_text("OUTSIDE-THE-CHECKOUT rule\n", encoding="utf-8")
    root = tmp_path / "src"
    repo = _checkout(root, "app", {"CLAUDE.md": "# Rules\n- run tests before pushing\n", "LICENSE": MIT})
    (repo / "AGENTS.md").symlink_to(secret)  # out of the checkout
    (repo / "GEMINI.md").symlink_to(repo / "CLAUDE.md")  # inside the tree
    (repo / ".cursor").mkdir()
    (repo / ".cursor" / "rules").symlink_to(outside / "rules", target_is_directory=True)  # a linked folder
    (root / "elsewhere").symlink_to(outside, target_is_directory=True)  # a linked "checkout"
    assert collect_local(corpus, root) == 3
    rows = {r["path"]: r for r in corpus.read("artifacts").to_pylist()}
    assert set(rows) == {"CLAUDE.md", "AGENTS.md", "GEMINI.md"}
    for link in ("AGENTS.md", "GEMINI.md"):
        assert (rows[link]["status"], rows[link]["drop_reason"], rows[link]["content"]) == ("dropped", "symlink", None)
    run(corpus)
    arts = {r["path"]: r for r in corpus.read("artifacts").to_pylist()}
    assert arts["AGENTS.md"]["drop_reason"] == "symlink" and arts["CLAUDE.md"]["status"] == "kept"
    everything = " ".join(str(v) for t in ("artifacts", "raw_artifacts", "items") for r in corpus.read(t).to_pylist()
                          for v in r.values())
    assert "OUTSIDE-THE-CHECKOUT" not in everything


def test_a_license_linked_out_of_the_checkout_is_not_read(tmp_path, corpus):
    outside = tmp_path / "LICENSE-elsewhere"
    outside.write_text(MIT, encoding="utf-8")
    root = tmp_path / "src"
    repo = _checkout(root, "app", {"CLAUDE.md": "- run tests\n", "docs/LICENSE.txt": MIT})
    (repo / "LICENSE").symlink_to(outside)
    collect_local(corpus, root)
    assert corpus.read("repos").column("license_spdx").to_pylist() == [None]
    (repo / "LICENSE").unlink()
    (repo / "LICENSE").symlink_to(repo / "docs" / "LICENSE.txt")  # a link inside the checkout is fine
    collect_local(corpus, root)
    assert corpus.read("repos").column("license_spdx").to_pylist() == ["MIT"]
