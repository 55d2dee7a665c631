"""What one processing run did: per stage (rows, time, peak memory) and per step (rows, drops, errors), the totals.

Each stage of :mod:`aac.processing.stages` takes the report so far and returns a new one with its own figures
added, so a stage retried alone (a Prefect retry) never counts twice."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from aac.processing.executor import StepCount


@dataclass
class StepStat:
    name: str
    rows: int = 0
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


@dataclass
class ProcessReport:
    processed: int = 0  # raw rows run through the row steps this run
    reused: int = 0  # raw rows whose stored pass-1 row and signature were reused
    items_reused: int = 0  # artifacts whose items were kept from the previous run
    items_retyped: int = 0  # artifacts whose stored items were re-typed: the classifier's fingerprint changed
    item_rows_retyped: int = 0  # the item rows of those artifacts
    items_itemised: int = 0  # artifacts segmented and classified this run
    classifier: str | None = None  # fingerprint of the classifier that typed the items (None: it has none)
    artifacts: int = 0
    kept: int = 0
    private: int = 0
    dropped: int = 0
    items: int = 0
    drop_reasons: dict[str, int] = field(default_factory=dict)
    steps: list[StepStat] = field(default_factory=list)  # the stages: rows, time and peak memory
    step_counts: list[StepCount] = field(default_factory=list)  # each row and corpus step: rows, drops, errors, time

    def to_dict(self) -> dict:
        """Plain JSON-able dict (steps as dicts): what the ``process`` flow returns and the refresh report holds."""
        return asdict(self)
