"""The module-scoped ``first`` crawl shared by the refresh tests over HTTP.

A test module sets ``TOKEN``, ``PLATFORM``, ``SNAPSHOT = (files, seed)`` and ``EMULATOR_SEED``; ``first`` is one
emulator (profile github) serving that generated snapshot, crawled once into ``<root>/main``:
``(server, records, main corpus, crawl summary, emulator counts, root folder)``.
"""

from __future__ import annotations

import pytest

from aac.collectors.emulator import EmulatorServer, generate_snapshot
from aac.core.store import Corpus
from tests.refresh.emulator_http import counted_crawl


@pytest.fixture(scope="module")
def first(request, tmp_path_factory):
    mod = request.module
    files, seed = mod.SNAPSHOT
    records = list(generate_snapshot(files, seed))
    root = tmp_path_factory.mktemp(mod.__name__.rsplit(".", 1)[-1])
    srv = EmulatorServer(records, profile="github", seed=mod.EMULATOR_SEED).start()
    try:
        main = Corpus(root / "main")
        summary, stats = counted_crawl(srv, main, mod.TOKEN, mod.PLATFORM)
        yield srv, records, main, summary, stats, root
    finally:
        srv.stop()
