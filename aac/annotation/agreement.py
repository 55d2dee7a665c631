"""Inter-annotator agreement: Cohen's kappa (five-class and binary constraint-vs-other) and confusion matrices."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from aac.core.schema import TYPES


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """(p_o - p_e) / (1 - p_e) over paired labels; 1.0 when both annotators use one identical label."""
    if len(a) != len(b):
        raise ValueError(f"label lists differ in length: {len(a)} vs {len(b)}")
    n = len(a)
    if n == 0:
        raise ValueError("no paired labels")
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return 1.0 if pe == 1.0 else (po - pe) / (1 - pe)


def binary(labels: Sequence[str], positive: str = "C") -> list[str]:
    return [positive if x == positive else "other" for x in labels]


def confusion(a: Sequence[str], b: Sequence[str], labels: Sequence[str] = TYPES) -> list[list[int]]:
    """Rows: annotator a's label; columns: annotator b's label (in ``labels`` order)."""
    pos = {k: i for i, k in enumerate(labels)}
    m = [[0] * len(labels) for _ in labels]
    for x, y in zip(a, b):
        if x in pos and y in pos:
            m[pos[x]][pos[y]] += 1
    return m


def agreement_report(a: Sequence[str], b: Sequence[str]) -> dict:
    return {"n": len(a), "kappa_5": cohen_kappa(a, b), "kappa_c": cohen_kappa(binary(a), binary(b)),
            "observed": sum(x == y for x, y in zip(a, b)) / max(1, len(a)), "confusion": confusion(a, b)}
