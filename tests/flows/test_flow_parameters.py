"""Deployments read what the CLI reads from the worker's environment when a parameter is left unset."""

from __future__ import annotations

from aac.flows.worker import worker_defaults


def test_unset_deployment_parameters_come_from_the_workers_environment(monkeypatch):
    monkeypatch.delenv("AAC_GITHUB_API_URL", raising=False)
    monkeypatch.delenv("AAC_HF_REPO_ID", raising=False)
    assert worker_defaults(None, None) == ("https://api.github.com", None)  # nothing is uploaded by default
    monkeypatch.setenv("AAC_GITHUB_API_URL", "https://ghe.example.org/api/v3")
    monkeypatch.setenv("AAC_HF_REPO_ID", "org/name")
    assert worker_defaults(None, None) == ("https://ghe.example.org/api/v3", "org/name")
    assert worker_defaults("http://127.0.0.1:8765", "other/repo") == ("http://127.0.0.1:8765", "other/repo")
