"""Print one hash per table of a corpus folder: the sha256 of its sorted row hashes.

Used to show that a refactor leaves behaviour unchanged: run ``aac demo`` on a fixed seed before and after, and
compare the two outputs line by line. Rows are hashed as canonical JSON (sorted keys), so part-file names and row
order do not matter. Columns that hold wall-clock time differ between any two runs of the same code; name them
with ``--ignore``, or pass ``--volatile`` to drop every timestamp-typed and ``*_at`` column plus those derived from
them or from the code's text: the emulator's ``etag`` hashes a body holding a time, and the processing reuse keys
(``_input_key``, ``_items_key``) hash ``collected_at`` and the digests of the processing modules' source, so they
change by design whenever a module's text does (a stored row is then re-run, giving the same values).

    python bench/table_hashes.py /tmp/demo-a --volatile
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def _default(value):
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


DERIVED = {"etag", "_input_key", "_items_key"}


def _is_volatile(field: pa.Field) -> bool:
    return (pa.types.is_timestamp(field.type) or pa.types.is_date(field.type) or field.name.endswith("_at")
            or field.name in DERIVED)


def table_hash(folder: Path, ignore: set[str], volatile: bool) -> tuple[int, str]:
    """(rows, hash) of one table folder of Parquet part files."""
    files = sorted(folder.glob("*.parquet"))
    if not files:
        return 0, hashlib.sha256(b"").hexdigest()
    table = pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")
    drop = [f.name for f in table.schema if f.name in ignore or (volatile and _is_volatile(f))]
    table = table.drop_columns(drop)
    rows = sorted(
        hashlib.sha256(json.dumps(row, sort_keys=True, default=_default).encode()).hexdigest()
        for row in table.to_pylist()
    )
    return len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="corpus folder (the one holding corpus/ or the tables directly)")
    parser.add_argument("--ignore", action="append", default=[], help="column to leave out (repeatable)")
    parser.add_argument("--volatile", action="store_true", help="leave out time columns, the etag and the reuse keys")
    args = parser.parse_args(argv)
    root = args.corpus / "corpus" if (args.corpus / "corpus").is_dir() else args.corpus
    tables = sorted(p for p in root.iterdir() if p.is_dir() and any(p.glob("*.parquet")))
    if not tables:
        print(f"no Parquet tables under {root}", file=sys.stderr)
        return 1
    for folder in tables:
        n, digest = table_hash(folder, set(args.ignore), args.volatile)
        print(f"{folder.name:<20} {n:>8} rows  {digest[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
