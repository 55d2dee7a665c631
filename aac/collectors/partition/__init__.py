"""Adaptive file-size partitioning for GitHub code search (pure logic, no I/O), one module per concern.

GitHub's legacy code search returns at most 1,000 results per query, so a query matching more files must be
cut into ``size:`` ranges. Two facts make the obvious approach (split until ``total_count`` < 1,000) lose files:

- ``total_count`` undercounts, so a range reported under the cap can still hold more than the cap;
- a range matching many files silently omits some of them, which a narrower range returns.

So this package never trusts one number. A query is swept left to right over ``[0, 393216)`` (files of
384 KB and more are never indexed) in ranges sized from *fetched* counts, not reported ones:

1. **Probe** = page 1 with ``per_page=100`` of the candidate range. It is never wasted: if the range turns out
   to be a leaf its first page is already in hand.
2. **Split** if the probe's ``total_count`` (a lower bound of the true count) or the count fetched while paging
   exceeds the abort limit; the next candidate is narrower, sized from what was seen.
3. **Verify**: a completed leaf larger than any leaf already shown to be loss-free is checked by fetching its
   two halves; if their union finds files the leaf missed, leaves of that size lose files and the target leaf
   size shrinks (:class:`LossModel`). Checks are recursive and stop once a size is shown to be clean, so after a
   few checks the crawl runs at a target just under a whole number of pages. Clean checks are the common case,
   so a check fetches its larger part first and stops there when it finds nothing (:func:`check_parts`).

Widths are chosen in ``u = ln(1 + size)`` space, where file sizes are roughly normal, from the density of the
adjacent completed leaf (its exact fetched count), shaped by the size distribution learned from queries already
finished (:class:`SizePrior`). Resume needs only the completed leaves: the sweep position is the end of the
covered prefix.

When the crawl knows the **exact size** of each fetched file (it downloads every hit's content from the raw
route, which costs no search quota), three things sharpen: the prior is learned from the sizes themselves, not
from leaf counts; the query's local scale is measured on its own last few hundred files below the sweep
(``SweepPlan.add_sizes``); and a check cuts its leaf where the two parts cost the fewest pages
(``SizeRange.halves_by_sizes``), not where the prior guesses the middle is.

A re-crawl can be **seeded** with the leaves of the previous crawl of the same query: each seed range is asked
as it is (no root probe, no narrowing from scratch), and the usual rules still apply to what comes back, so a
seed that has grown past the limit is split and one that grew past the proven-clean size is verified.

Modules: ``ranges`` (size ranges, pages), ``loss_model`` (where search loses files; how a leaf is checked),
``prior`` (the learned size distribution), ``sweep`` (one query's sweep). The names are re-exported here.
"""

from aac.collectors.partition.loss_model import (
    PARTIAL_MISS,
    PARTIAL_SAVING,
    TOLERATED_LOSS,
    LossModel,
    check_parts,
    snap_to_pages,
)
from aac.collectors.partition.prior import SizePrior
from aac.collectors.partition.ranges import (
    MAX_INDEXED,
    PER_PAGE,
    RESULT_CAP,
    TRUSTED_SMALL,
    SizeRange,
    priced_pages,
    saturated,
    size_of,
    u_of,
)
from aac.collectors.partition.sweep import Observation, SweepPlan

__all__ = [
    "MAX_INDEXED", "PARTIAL_MISS", "PARTIAL_SAVING", "PER_PAGE", "RESULT_CAP", "TOLERATED_LOSS", "TRUSTED_SMALL",
    "LossModel", "Observation", "SizePrior", "SizeRange", "SweepPlan", "check_parts", "priced_pages", "saturated",
    "size_of", "snap_to_pages", "u_of",
]
