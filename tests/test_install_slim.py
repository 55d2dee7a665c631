"""`pip install aac` without extras: the operators and `aac compact|decompose|retrieve` run with none of the
pipeline's imports, and a command needing an extra says the exact install line (exit 2, one line).

Runs in the full venv too: a subprocess hides every extra's modules behind an import blocker, so an accidental
top-level `import pyarrow` on the operator path fails here, not first on a user's slim install.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aac.core.extras import EXTRA_OF_MODULE, missing_extra_message

REPO_ROOT = Path(__file__).resolve().parent.parent
BLOCKER = f"""
import sys
BLOCKED = {sorted(EXTRA_OF_MODULE)!r}
class _Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, _Blocker())
"""
RUN_CLI = BLOCKER + """
from aac.cli import main
sys.argv = ["aac", *sys.argv[1:]]
try:
    main()
finally:
    loaded = sorted({m.split(".")[0] for m in sys.modules} & set(BLOCKED))
    print("LOADED=" + ",".join(loaded), file=sys.stderr)
    print("SEGMENTER=" + ("pipeline" if "aac.processing.items" in sys.modules else "none"), file=sys.stderr)
"""

RULES = """# Rules

## Forbidden actions
- Force-push to main.
- Run migrations against production.

## Workflow
Run `make test` before every commit. We prefer small pull requests.
"""


def _aac(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUN_CLI, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "PYTHONPATH": str(REPO_ROOT)})


@pytest.fixture
def rules(tmp_path) -> Path:
    p = tmp_path / "CLAUDE.md"
    p.write_text(RULES, encoding="utf-8")
    return p


@pytest.mark.parametrize("args", [
    ["compact", "CLAUDE.md", "--budget", "1.0"],
    ["compact", "CLAUDE.md", "--budget", "1.0", "--json"],
    ["decompose", "CLAUDE.md", "--partition-budget", "400", "--out", "parts"],
    ["retrieve", "--file", "CLAUDE.md", "can I force push", "-k", "3"],
    ["--help"],
    ["compact", "--help"],
])
def test_operator_commands_run_without_any_extra(rules, args):
    res = _aac(*args, cwd=rules.parent)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "LOADED=\n" in res.stderr  # none of the extras' modules was imported
    if args[-1] != "--help":  # the pipeline's segmenter, not a fallback, made the items
        assert "SEGMENTER=pipeline" in res.stderr
    if args[0] == "retrieve":
        assert "Force-push to main." in res.stdout


def test_the_python_api_segments_classifies_and_compacts_without_any_extra(rules):
    code = BLOCKER + f"""
import json
from aac.processing.items import items_from_file
from aac.operators import KnowledgeBase, type_compact
rows = items_from_file({str(rules)!r})
res = type_compact(KnowledgeBase.from_rows(rows), 1.0)
print(json.dumps({{"types": sorted({{r["type"] for r in rows}}), "n": len(rows)}}))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "PYTHONPATH": str(REPO_ROOT)})
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["n"] >= 3 and "C" in out["types"]


@pytest.mark.parametrize("args,module", [
    (["sql", "--corpus", ".", "select 1"], "duckdb"),
    (["process", "--corpus", "."], None),
    (["crawl", "--local", ".", "--corpus", "c"], None),
    (["pull", "--from-folder", ".", "--corpus", "c"], None),
    (["publish", "--corpus", ".", "--out", "hub", "--dry-run"], None),
    (["demo", "--files", "5", "--corpus", "d"], None),
    (["annotate", "agreement", "--corpus", "."], None),
])
def test_a_command_needing_the_pipeline_extra_says_the_install_line(tmp_path, args, module):
    res = _aac(*args, cwd=tmp_path)
    lines = [ln for ln in res.stderr.splitlines() if not ln.startswith(("LOADED=", "SEGMENTER="))]
    assert res.returncode == 2, res.stderr[-2000:]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert lines[0].startswith("error: this command needs the pipeline extra (")
    assert lines[0].endswith('pip install "aac[pipeline]"')
    if module:
        assert f"({module} is not installed)" in lines[0]


def test_the_message_names_each_extra():
    assert missing_extra_message(ModuleNotFoundError("x", name="torch")).endswith('pip install "aac[minilm]"')
    assert missing_extra_message(ModuleNotFoundError("x", name="dask.distributed")).endswith('"aac[dask]"')
    assert missing_extra_message(ModuleNotFoundError("x", name="no_such_thing")) is None
    assert missing_extra_message(ValueError("pyarrow")) is None
