"""Prefect flow ``build``: the build job (:func:`aac.jobs.build.build`) with the ``crawl`` and ``process`` flows as
its stages (a retried task per platform, then a retried processing task; items are typed by the default classifier
inside ``process``). Its parameters are the fields of :class:`~aac.jobs.build.BuildOptions`."""

from __future__ import annotations

from prefect import flow

from aac.flows.crawl import crawl
from aac.flows.process import process
from aac.jobs.build import BuildOptions, BuildStages
from aac.jobs.build import build as build_job
from aac.jobs.crawl import CrawlOptions
from aac.jobs.options import as_parameters, takes_fields_of
from aac.jobs.process import ProcessOptions


def crawl_subflow(options: CrawlOptions) -> list[dict]:
    return crawl(**as_parameters(options))


def process_subflow(options: ProcessOptions) -> dict:
    return process(**as_parameters(options))


@flow(name="build", log_prints=True)
@takes_fields_of(BuildOptions, document=True)
def build(options: BuildOptions) -> dict:
    """The whole corpus build: the ``crawl`` and ``process`` flows as subflows."""
    return build_job(options, BuildStages(crawl=crawl_subflow, process=process_subflow)).to_dict()
