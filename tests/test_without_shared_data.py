"""A clean clone has no ../shared folder: every test needing the shared real data skips with a reason naming that
folder, and none fails or errors (a newcomer's first `python -m pytest` is green)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# modules that read the shared data (directly, through the fixtures, or through helpers reading it by default);
# fast ones: the whole suite is run this way once per change of this list (see .ci/run)
MODULES = ["tests/classifiers/test_features_cache.py", "tests/classifiers/test_prefilters.py",
           "tests/annotation/test_agreement.py", "tests/annotation/test_annotate_cli.py"]


def test_tests_needing_the_shared_data_skip_naming_the_missing_folder(tmp_path):
    missing = tmp_path / "no-shared" / "data"
    env = {**os.environ, "AAC_SHARED_DATA": str(missing)}
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *MODULES],
                         cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-3000:]
    assert " failed" not in out and " error" not in out, out[-3000:]
    skips = [ln for ln in out.splitlines() if ln.startswith("SKIPPED")]
    assert skips and all(str(missing) in ln for ln in skips), "\n".join(skips)
