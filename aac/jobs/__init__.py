"""Jobs: one plain function per job of the pipeline (crawl, process, classify, refresh, publish, build, demo), each
taking one typed options object and returning a report with ``to_dict()``.

The layer between the stage packages and their two front ends: the ``aac`` CLI (``aac.cli``) and the Prefect flows
(``aac.flows``) are thin adapters over these functions, so a job is written once.
"""
