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
