"""bench/_report.py: a script's --write-docs run rewrites its own section of docs/benchmarks.md and nothing else."""

from __future__ import annotations

import argparse
import re

import pytest

from bench import _report
from bench._report import END_ANCHOR, add_write_docs_flag, command_line, replace_section, run_with_docs

PAGE = """# Benchmarks

intro text

<!-- bench:classify -->
### classify
old classify figures
<!-- /bench:classify -->

<!-- bench:segment -->
### segment
segment figures, 1,234 files/s
<!-- /bench:segment -->

## Not yet regenerated
hand-kept figures
"""


def test_an_existing_section_is_replaced_and_everything_else_kept_byte_for_byte():
    page = replace_section(PAGE, "classify", "### classify\nnew figures")
    assert "old classify figures" not in page
    assert "<!-- bench:classify -->\n### classify\nnew figures\n<!-- /bench:classify -->" in page
    before, after = PAGE.split("<!-- bench:classify -->")[0], PAGE.split("<!-- /bench:classify -->")[1]
    assert page.startswith(before) and page.endswith(after)


def test_a_new_section_is_appended_at_the_end_without_an_anchor():
    page = replace_section(PAGE, "hook", "hook figures")
    assert page.startswith(PAGE.rstrip("\n"))
    assert page.endswith("\n\n<!-- bench:hook -->\nhook figures\n<!-- /bench:hook -->\n")


def test_a_new_section_goes_before_the_end_anchor_so_hand_kept_parts_stay_last():
    page = PAGE.replace("## Not yet regenerated", f"{END_ANCHOR}\n## Not yet regenerated")
    out = replace_section(page, "hook", "hook figures")
    assert out.index("<!-- /bench:segment -->") < out.index("<!-- bench:hook -->") < out.index(END_ANCHOR)
    assert out.replace("<!-- bench:hook -->\nhook figures\n<!-- /bench:hook -->\n\n", "") == page


def test_writing_the_same_section_twice_gives_the_same_page():
    once = replace_section(PAGE, "classify", "figures")
    assert replace_section(once, "classify", "figures") == once
    new = replace_section(PAGE, "hook", "figures")
    assert replace_section(new, "hook", "figures") == new


def test_an_empty_page_gets_just_the_section():
    assert replace_section("", "x", "body\n\n") == "<!-- bench:x -->\nbody\n<!-- /bench:x -->\n"


def test_an_unclosed_section_or_a_bad_name_is_refused_not_guessed():
    with pytest.raises(ValueError, match="no closing"):
        replace_section("<!-- bench:x -->\nbody", "x", "new")
    with pytest.raises(ValueError, match="section name"):
        replace_section(PAGE, "a -->b", "new")


def test_the_command_shown_is_the_one_typed_without_the_flag_and_with_python_for_the_interpreter():
    argv = ["/venv/bin/python3.11", "bench/classify.py", "--n", "1000", "--write-docs", "--note", "a b"]
    assert command_line(argv) == "python bench/classify.py --n 1000 --note 'a b'"
    assert command_line(["/x/python", "-m", "bench.segment", "--write-d"]) == "python -m bench.segment"


def _toy_main(argv: list[str], status: int | None = None):
    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--n", type=int, default=1)
        add_write_docs_flag(ap)
        args = ap.parse_args(argv)
        print(f"toy: {args.n * 3} widgets/s")
        return status
    return main


def test_a_run_with_the_flag_writes_what_it_printed_with_the_machine_facts(tmp_path, capsys):
    docs = tmp_path / "benchmarks.md"
    docs.write_text(PAGE)
    with pytest.raises(SystemExit) as stop:
        run_with_docs(_toy_main(["--n", "7", "--write-docs"]), name="toy", docs=docs)
    assert stop.value.code is None
    assert "toy: 21 widgets/s" in capsys.readouterr().out  # still printed to the console
    page = docs.read_text()
    section = page.split("<!-- bench:toy -->")[1].split("<!-- /bench:toy -->")[0]
    assert "```text\ntoy: 21 widgets/s\n```" in section
    for fact in ("- run: ", "- cores: ", "- load average at start: ", "- python: ", "- revision: "):
        assert fact in section
    assert page.startswith(PAGE.rstrip("\n"))  # the other sections untouched


@pytest.mark.parametrize("argv, status", [(["--n", "7"], None), (["--write-docs"], 1)])
def test_no_flag_or_a_failed_run_leaves_the_page_alone(tmp_path, argv, status):
    docs = tmp_path / "benchmarks.md"
    docs.write_text(PAGE)
    with pytest.raises(SystemExit):
        run_with_docs(_toy_main(argv, status), name="toy", docs=docs)
    assert docs.read_text() == PAGE


def test_a_mode_can_name_its_own_section(tmp_path):
    docs = tmp_path / "benchmarks.md"

    def main():
        ap = argparse.ArgumentParser()
        add_write_docs_flag(ap)
        ap.parse_args(["--write-docs"])
        _report.name_section("toy-vs-baseline")
        print("ratio 1.00")

    with pytest.raises(SystemExit):
        run_with_docs(main, name="toy", docs=docs)
    assert "<!-- bench:toy-vs-baseline -->" in docs.read_text() and "bench:toy -->" not in docs.read_text()


def test_every_section_of_the_real_page_is_closed_and_names_a_bench_script():
    page = _report.DOCS.read_text(encoding="utf-8")
    names = [n for n in re.findall(r"<!-- bench:([^ ]+) -->", page) if f"<!-- bench:{n} -->" != END_ANCHOR]
    assert names, "docs/benchmarks.md holds no section written by a bench script"
    for name in names:
        assert page.count(f"<!-- bench:{name} -->") == 1 and page.count(f"<!-- /bench:{name} -->") == 1, name
        script = name.split("-")[0]
        assert (_report.REPO / "bench" / f"{script}.py").is_file(), f"section {name}: no bench/{script}.py"
