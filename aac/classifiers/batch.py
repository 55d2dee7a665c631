"""Classify JSONL files and corpus item tables in batches (pure functions; the CLI and flows call these)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterator

import pyarrow as pa

from aac.classifiers.base import Classifier, ItemInput, Prediction, failed, in_hard_lane
from aac.classifiers.context import with_lead_ins
from aac.core.jsonsafe import finite
from aac.core.labels import TYPES

BATCH = 4096


def set_classify_workers(n: int | None) -> None:
    """The processes this process scores big batches with; a worker of the processing pool passes 1 (the pool
    already shares out the cores), as its initializer's argument rather than through the environment."""
    from aac.classifiers.parallel import set_worker_count

    set_worker_count(n)


def _item(row: dict) -> ItemInput:
    section = row.get("section") or row.get("section_path") or ()
    if isinstance(section, str):
        section = (section,)
    return ItemInput(str(row["text"]), tuple(str(s) for s in section), str(row.get("kind") or "paragraph"),
                     str(row.get("authority") or "user"), str(row.get("lead_in") or ""))


def prediction_fields(p: Prediction) -> dict:
    return {"type": p.label, "proba": dict(zip(TYPES, rounded_distribution(p.proba))),
            "confidence": round(p.confidence, 4), "abstained": p.abstained, "hard_lane": in_hard_lane(p),
            "classifier": p.source}


def rounded_distribution(proba, places: int = 4) -> list[float]:
    """Probabilities rounded to ``places`` that still sum to 1: the rounding remainder goes to the largest."""
    vals = [round(float(v), places) for v in proba]
    if vals and sum(proba) > 0:
        top = max(range(len(vals)), key=vals.__getitem__)
        vals[top] = round(vals[top] + round(1.0 - sum(vals), places), places)
    return vals


def _json_line(row: dict) -> str:
    """One output line; a text holding a lone surrogate (valid JSON, not encodable as UTF-8) is \\u-escaped."""
    row = finite(row)  # an input line's "id": NaN
    line = json.dumps(row, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(row, ensure_ascii=True)
    return line + "\n"


def _decoded(raw: bytes, n: int) -> str:
    """A line of the input as text: UTF-8, a BOM on the first line dropped; else a ValueError naming the byte."""
    try:
        return raw.decode("utf-8-sig" if n == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})") from None


def classify_jsonl(clf: Classifier, src: str | Path, dst: str | Path) -> dict[str, int]:
    """Each input line (id, text, optional section list) -> the same object plus type/proba/confidence/abstained.

    Lines that are not UTF-8 JSON objects with a string ``text`` are written with ``type: null`` and an ``error``
    (never dropped), and counted in the returned summary, as are items whose prediction is an error (``failed``:
    an LLM endpoint that did not answer; they are written abstained). The output is written beside ``dst`` and
    renamed onto it at the end, so a failed run leaves no half file and ``dst`` may be ``src`` itself.
    """
    counts = {"items": 0, "errors": 0, "failed": 0}  # failed: items the classifier could not type (an LLM error)
    dst = Path(dst)
    tmp = dst.with_name(f".{dst.name}.partial")
    try:
        with open(src, "rb") as fin, open(tmp, "w", encoding="utf-8") as fout:
            pending: list[tuple[dict, ItemInput | None]] = []

            def flush() -> None:
                good = [(row, it) for row, it in pending if it is not None]
                preds = iter(clf.predict([it for _, it in good]))
                for row, it in pending:
                    if it is None:
                        fout.write(_json_line(row))
                        continue
                    pred = next(preds)
                    counts["failed"] += failed(pred)
                    fout.write(_json_line(dict(row, **prediction_fields(pred))))
                pending.clear()

            for n, raw in enumerate(fin, 1):
                row = None
                try:
                    line = _decoded(raw, n)
                    if not line.strip():
                        continue
                    row = json.loads(line)
                    if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                        raise ValueError("expected an object with a string 'text'")
                    pending.append((row, _item(row)))
                    counts["items"] += 1
                except (ValueError, TypeError) as exc:
                    counts["errors"] += 1
                    bad = row if isinstance(row, dict) else {"line": n}
                    pending.append(({**bad, "type": None, "error": f"line {n}: {exc}"}, None))
                if len(pending) >= BATCH:
                    flush()
            flush()
        tmp.replace(dst)
    finally:
        tmp.unlink(missing_ok=True)
    return counts


def retype_batch(clf: Classifier, batch: pa.RecordBatch | pa.Table) -> pa.Table:
    """Items rows with ``type``, ``type_proba``, ``classifier``, ``confidence``, ``abstained``, ``hard_lane``
    (re)computed."""
    table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
    cols = table.to_pydict()
    n = table.num_rows
    get = lambda name: cols.get(name) or [None] * n  # noqa: E731
    items = [ItemInput(t or "", tuple(s or ()), k or "paragraph", a or "user")
             for t, s, k, a in zip(get("text"), get("section_path"), get("kind"), get("authority"))]
    # rows come in file order (artifact, ordinal), as itemize wrote them: the same lead-ins as at processing time
    # (a file split across two batches loses the lead-in of its first list items in the second)
    preds = clf.predict(with_lead_ins(items, get("artifact_id")))
    updates = {
        "type": pa.array([p.label for p in preds], pa.string()),
        "type_proba": pa.array([list(p.proba) for p in preds], pa.list_(pa.float32(), 5)),
        "classifier": pa.array([p.source or clf.name for p in preds], pa.string()),  # as itemize writes it
        "confidence": pa.array([p.confidence for p in preds], pa.float32()),
        "abstained": pa.array([p.abstained for p in preds], pa.bool_()),
        "hard_lane": pa.array([in_hard_lane(p) for p in preds], pa.bool_()),
    }
    for name, arr in updates.items():
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), name, arr)
        else:
            table = table.append_column(name, arr)
    return table


def retype_corpus(corpus, clf: Classifier, on_progress: Callable[[int], None] | None = None,
                  batch_size: int = 16384) -> int:
    """Rewrite the corpus ``items`` table with fresh types (atomic whole-table swap)."""

    def batches() -> Iterator[pa.Table]:
        for b in corpus.iter_batches("items", batch_size=batch_size):
            out = retype_batch(clf, b)
            if on_progress:
                on_progress(out.num_rows)
            yield out

    return corpus.replace("items", batches())


def count_failed(corpus) -> int:
    """Rows of the corpus's items table that their classifier could not type (source ``...:error``)."""
    if not corpus.exists("items"):
        return 0
    rows = corpus.sql("SELECT count(*) AS n FROM items WHERE list_contains(string_split(classifier, ':'), 'error')")
    return int(rows.to_pylist()[0]["n"])

