"""Print one hash per table of a corpus folder: the sha256 of its sorted row hashes.

Used to show that a refactor leaves behaviour unchanged: run ``aac demo`` on a fixed seed before and after, and
compare the two outputs line by line. Rows are hashed as canonical JSON (sorted keys), so part-file names and row
order do not matter. Columns that hold wall-clock time differ between any two runs of the same code; name them
with ``--ignore``, or pass ``--volatile`` to drop every timestamp-typed and ``*_at`` column plus those derived from
them or from the code's text: the emulator's ``etag`` hashes a body holding a time, and the processing reuse keys
(``_input_key``, ``_items_key``) hash ``collected_at`` and the digests of the processing modules' source, so they
change by design whenever a module's text does (a stored row is then re-run, giving the same values).

    python bench/table_hashes.py /tmp/demo-a --volatile

``--demo`` runs ``aac demo --files N --seed S`` into a temporary folder first and hashes that; with ``--baseline REV``
it runs the demo of that commit too (bench/_baseline.py) and prints both sides per table, so one command shows
whether a change kept the tables:

    python bench/table_hashes.py --demo --files 300 --seed 1 --volatile --baseline ce0402c
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench._report
from bench import _baseline  # noqa: E402
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402


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


def corpus_hashes(corpus: Path, ignore: set[str], volatile: bool) -> dict[str, tuple[int, str]]:
    """{table: (rows, hash)} for every table folder of a corpus (empty when it holds none)."""
    root = corpus / "corpus" if (corpus / "corpus").is_dir() else corpus
    tables = sorted(p for p in root.iterdir() if p.is_dir() and any(p.glob("*.parquet"))) if root.is_dir() else []
    return {folder.name: table_hash(folder, ignore, volatile) for folder in tables}


def demo_hashes(tree: Path, files: int, seed: int, ignore: set[str], volatile: bool) -> dict[str, tuple[int, str]]:
    """Run the ``aac demo`` of the code in ``tree`` into a temporary folder and hash its tables."""
    out = Path(tempfile.mkdtemp(prefix="aac-bench-demo-"))
    try:
        _baseline.run(tree, ["-m", "aac", "demo", "--files", str(files), "--seed", str(seed), "--corpus", str(out)])
        return corpus_hashes(out, ignore, volatile)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="?",
                        help="corpus folder (the one holding corpus/ or the tables directly); not with --demo")
    parser.add_argument("--ignore", action="append", default=[], help="column to leave out (repeatable)")
    parser.add_argument("--volatile", action="store_true", help="leave out time columns, the etag and the reuse keys")
    parser.add_argument("--demo", action="store_true", help="hash the tables of a fresh `aac demo` run instead")
    parser.add_argument("--files", type=int, default=300, help="with --demo: the demo's --files")
    parser.add_argument("--seed", type=int, default=1, help="with --demo: the demo's --seed")
    parser.add_argument("--baseline", metavar="REV", help="with --demo: also run the demo of this commit, side by side")
    add_write_docs_flag(parser)
    args = parser.parse_args(argv)
    if (args.corpus is None) == (not args.demo):
        parser.error("give a corpus folder or --demo (not both)")
    if args.baseline and not args.demo:
        parser.error("--baseline needs --demo")
    ignore = set(args.ignore)
    if not args.demo:
        hashes = corpus_hashes(args.corpus, ignore, args.volatile)
        if not hashes:
            print(f"no Parquet tables under {args.corpus}", file=sys.stderr)
            return 1
        for name, (n, digest) in hashes.items():
            print(f"{name:<20} {n:>8} rows  {digest[:16]}")
        return 0
    left = (" ".join(f"--ignore {c}" for c in sorted(ignore)) + (" --volatile" if args.volatile else "")).strip()
    print(f"aac demo --files {args.files} --seed {args.seed}; row hashes leave out: {left or 'nothing'}")
    after = demo_hashes(_baseline.REPO, args.files, args.seed, ignore, args.volatile)
    if not args.baseline:
        for name, (n, digest) in after.items():
            print(f"{name:<20} {n:>8} rows  {digest[:16]}")
        return 0
    commit = _baseline.resolve(args.baseline)
    tree = _baseline.export(commit)
    try:
        before = demo_hashes(tree, args.files, args.seed, ignore, args.volatile)
    finally:
        _baseline.remove(tree)
    print(f"{'table':<20} {'rows before':>11} {'rows after':>10}  {'before ' + commit[:10]:<18} {'after':<18} same")
    for name in sorted(before.keys() | after.keys()):
        (nb, hb), (na, ha) = before.get(name, (0, "-")), after.get(name, (0, "-"))
        print(f"{name:<20} {nb:>11} {na:>10}  {hb[:16]:<18} {ha[:16]:<18} {'yes' if hb == ha else 'NO'}")
    return 0


if __name__ == "__main__":
    run_with_docs(main)
