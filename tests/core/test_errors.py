"""One error hierarchy: each error class AAC raises on purpose is an AacError whose class fixes the exit status."""

from __future__ import annotations

import pytest

from aac.core.errors import AacError, InputError, Refused, RunError


def _classes():
    from aac.classifiers.llm import EndpointRefused, LLMReplyError
    from aac.collectors.emulator.graphql import GraphQLError
    from aac.collectors.emulator.query import QueryError
    from aac.collectors.emulator.snapshot import SnapshotError
    from aac.collectors.github import GitHubError, GraphQLUnusable
    from aac.hub.pull import WorkingCorpusError
    from aac.hub.upload import UploadError
    from aac.hub.validate import HubFolderInvalid
    from aac.jobs.publish import MissingHubToken
    from aac.jobs.refresh import RefreshCrawlFailed
    from aac.core.corpus_lock import CorpusLocked
    from aac.hub.publish import NotAPublishFolder

    return {SnapshotError: 2, QueryError: 2, GraphQLError: 2, GitHubError: 1, GraphQLUnusable: 1, LLMReplyError: 1,
            EndpointRefused: 1, HubFolderInvalid: 1, UploadError: 1, WorkingCorpusError: 2, MissingHubToken: 1,
            RefreshCrawlFailed: 1, CorpusLocked: 2, NotAPublishFolder: 2}


def test_every_error_class_is_an_aac_error_with_its_kinds_exit_status():
    for cls, status in _classes().items():
        assert issubclass(cls, AacError) and cls.exit_code == status, cls
    assert (InputError.exit_code, RunError.exit_code, Refused.exit_code) == (2, 1, 3)


def test_the_old_builtin_bases_still_catch_them():
    from aac.collectors.emulator.snapshot import SnapshotError
    from aac.core.corpus_lock import CorpusLocked

    assert issubclass(SnapshotError, ValueError) and issubclass(CorpusLocked, OSError)


@pytest.mark.parametrize("error, status", [(InputError("bad"), 2), (RunError("failed"), 1), (Refused("unsafe"), 3),
                                           (FileNotFoundError("no such file"), 2)])
def test_the_cli_ends_an_uncaught_error_with_its_status_in_one_line(monkeypatch, capsys, error, status):
    import aac.cli as cli

    def boom(*args, **kwargs):
        raise error

    monkeypatch.delenv("AAC_DEBUG", raising=False)
    monkeypatch.setattr(cli, "app", boom)
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == status
    out = capsys.readouterr()
    assert "error:" in out.out + out.err and "Traceback" not in out.out + out.err
