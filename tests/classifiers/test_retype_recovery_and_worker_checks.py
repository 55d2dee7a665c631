"""Corpus retyping guards against a record left distrusted for good after a failed run, workers typing with
another model than the record names, a scheduler address checked only by a 30 s timeout, and staging folders of
killed runs left behind."""

from __future__ import annotations

import os
import socket
import time

import pytest

from aac.flows.classify import check_scheduler, retype_part
from aac.jobs.classify import check_same_classifier
from aac.processing.item_record import _read_state, _write_state, rewriting_items
from aac.core.store import Corpus, remove_stale_dirs
from tests.classifiers.test_classify_cli import small_corpus


def test_a_failed_retype_leaves_types_outdated_and_the_next_one_trusted_again(tmp_path):
    corpus = Corpus(small_corpus(tmp_path))
    _write_state(corpus, {"pending": False, "typed_by": "fp-old"})
    with pytest.raises(RuntimeError):
        with rewriting_items(corpus, "fp-new", whole_table=True):
            raise RuntimeError("the endpoint went away")
    state = _read_state(corpus)
    assert state["pending"] is False and state["typed_by"] not in ("fp-old", "fp-new")
    with rewriting_items(corpus, "fp-new", whole_table=True):
        pass
    assert _read_state(corpus) == {"pending": False, "typed_by": "fp-new"}


def test_workers_that_built_another_classifier_are_refused():
    check_same_classifier("trained/v1/aaaa", ["trained/v1/aaaa", "trained/v1/aaaa"])
    with pytest.raises(RuntimeError, match="trained/v1/bbbb"):
        check_same_classifier("trained/v1/aaaa", ["trained/v1/aaaa", "trained/v1/bbbb"])


def test_a_retyped_part_names_the_classifier_that_typed_it(tmp_path):
    from aac.classifiers.base import fingerprint_of, get_classifier

    corpus = Corpus(small_corpus(tmp_path))
    (tmp_path / "stage").mkdir()
    out, fingerprint = retype_part.fn(str(corpus.part_files("items")[0]), "regex", str(tmp_path / "stage"))
    assert os.path.exists(out) and fingerprint == fingerprint_of(get_classifier("regex"))


def test_a_scheduler_address_is_checked_before_any_flow_starts():
    with pytest.raises(ValueError, match="tcp://host:port"):
        check_scheduler("not-an-address")
    with pytest.raises(ValueError):
        check_scheduler("tcp://127.0.0.1:99999")
    with pytest.raises(RuntimeError, match="no Dask scheduler answers"):  # host:port is Dask's tcp too
        check_scheduler("127.0.0.1:1", timeout=1.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RuntimeError, match="no Dask scheduler answers"):
        check_scheduler(f"tcp://127.0.0.1:{port}", timeout=1.0)


def test_stale_staging_folders_of_killed_runs_are_removed_and_fresh_ones_kept(tmp_path):
    old, fresh = tmp_path / "items.tmp-old", tmp_path / "items.tmp-fresh"
    old.mkdir()
    fresh.mkdir()
    past = time.time() - 7200
    os.utime(old, (past, past))
    assert remove_stale_dirs(tmp_path, "items.tmp-*") == 1
    assert not old.exists() and fresh.exists()
