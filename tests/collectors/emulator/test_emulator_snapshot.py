"""Snapshot loading: the real sample loads; every kind of bad line fails with the file, line and reason."""

import json

import pytest

from aac.collectors.emulator import EmulatorServer, SnapshotError, load_snapshot

GOOD = {"repo": "o/r", "path": "CLAUDE.md", "content": "x"}


def write(tmp_path, *lines):
    p = tmp_path / "snap.jsonl"
    p.write_text("".join((l if isinstance(l, str) else json.dumps(l)) + "\n" for l in lines), encoding="utf-8")
    return p


def test_real_sample_loads_with_optional_fields(sample_path):
    recs = load_snapshot(sample_path)
    assert len(recs) == 293 and all({"repo", "path", "content"} <= r.keys() for r in recs)


@pytest.mark.parametrize("bad, reason", [
    ("{not json", "invalid JSON"),
    ('["a list"]', "expected a JSON object"),
    ({"repo": "o/r", "path": "A.md"}, "missing required field 'content'"),
    ({"path": "A.md", "content": ""}, "missing required field 'repo'"),
    ({"repo": "o/r", "path": "A.md", "content": 5}, "field 'content' must be a string"),
    ({"repo": "noslash", "path": "A.md", "content": ""}, "is not of the form 'owner/name'"),
    ({"repo": "o/r", "path": "/abs.md", "content": ""}, "not a relative file path"),
    ({**GOOD, "stars": "many"}, "field 'stars' must be int or null"),
    ({**GOOD, "license_spdx": 3}, "field 'license_spdx' must be str or null"),
    (GOOD, "duplicate file o/r/CLAUDE.md"),
])
def test_bad_line_error_names_file_line_and_reason(tmp_path, bad, reason):
    p = write(tmp_path, GOOD, "", bad)  # the bad record is on line 3 (line 2 is blank)
    with pytest.raises(SnapshotError) as err:
        load_snapshot(p)
    assert f"{p}:3" in str(err.value) and reason in str(err.value)


def test_unknown_keys_are_ignored_and_nulls_allowed(tmp_path):
    p = write(tmp_path, {**GOOD, "_planted": [{"kind": "email", "value": "a@b.example"}], "stars": None})
    assert load_snapshot(p)[0]["stars"] is None


def test_missing_file_is_a_snapshot_error(tmp_path):
    with pytest.raises(SnapshotError, match="missing.jsonl"):
        load_snapshot(tmp_path / "missing.jsonl")


def test_in_memory_records_are_validated_too():
    with pytest.raises(SnapshotError, match="record 2: missing required field 'path'"):
        EmulatorServer([GOOD, {"repo": "o/r", "content": ""}])


@pytest.mark.parametrize("bad, reason", [
    ('{"repo": "o/r", "path": "A.md", "content": "unterminated', "Unterminated string starting at column 44"),
    ("{not json", "Expecting property name enclosed in double quotes at column 2"),
])
def test_invalid_json_names_the_column_once(tmp_path, bad, reason):
    """Issue 27 item 13: the emulator said `Unterminated string starting at at column 43`."""
    p = tmp_path / "snap.jsonl"
    p.write_text(bad, encoding="utf-8")  # a last line without its newline (a truncated file)
    with pytest.raises(SnapshotError) as err:
        load_snapshot(p)
    assert reason in str(err.value) and "at at" not in str(err.value)
