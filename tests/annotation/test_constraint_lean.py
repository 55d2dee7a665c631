"""The constraint lean (`aac annotate lean-c`): a disagreement with a C vote is settled as C by the adjudicator,
agreements and adjudications stand, and a later adjudication supersedes the lean."""

from __future__ import annotations

from typer.testing import CliRunner

from aac.annotation.store import adjudicate, save, settle_constraint_lean
from aac.cli import app
from aac.core.gold_view import gold_rows

VOTES = {  # item -> labels of annotators A, B (and C)
    "split-c": ["C", "F"],
    "agreed-f": ["F", "F"],
    "majority-f": ["C", "F", "F"],
    "split-pb": ["P", "B"],
    "agreed-c": ["C", "C"],
    "adjudicated-p": ["C", "P"],
}


def _corpus_with_votes(corpus):
    save(corpus, [{"item_id": item, "annotator": who, "label": label, "round": 1, "text": f"text of {item}",
                   "repo": "o/r", "path": "AGENTS.md"}
                  for item, labels in VOTES.items() for who, label in zip("ABC", labels)])
    adjudicate(corpus, "adjudicated-p", "P")
    return corpus


def _gold(corpus) -> dict[str, tuple[str, str]]:
    return {g["item_id"]: (g["label"], g["provenance"]) for g in gold_rows(corpus)}


def test_the_lean_settles_every_disagreement_with_a_c_vote_and_nothing_else(corpus):
    _corpus_with_votes(corpus)
    assert settle_constraint_lean(corpus) == ["majority-f", "split-c"]
    assert _gold(corpus) == {"split-c": ("C", "adjudicated"), "majority-f": ("C", "adjudicated"),
                             "agreed-f": ("F", "agreed"), "agreed-c": ("C", "agreed"),
                             "adjudicated-p": ("P", "adjudicated")}  # split-pb still waits in the queue
    lean = corpus.sql("SELECT text, repo, path FROM annotations WHERE item_id = 'split-c' "
                      "AND annotator = 'adjudicator'").to_pylist()
    assert lean == [{"text": "text of split-c", "repo": "o/r", "path": "AGENTS.md"}]  # the item keeps its place
    assert settle_constraint_lean(corpus) == []  # a second run finds nothing left to settle


def test_queued_only_leaves_majorities_alone_and_an_adjudication_supersedes_the_lean(corpus):
    _corpus_with_votes(corpus)
    assert settle_constraint_lean(corpus, queued_only=True) == ["split-c"]
    assert _gold(corpus)["majority-f"] == ("F", "majority")
    adjudicate(corpus, "split-c", "F")  # a second thought, in the round after the lean's
    assert _gold(corpus)["split-c"] == ("F", "adjudicated")


def test_the_cli_reports_what_it_settled(tmp_path):
    from aac.core.store import Corpus

    root = tmp_path / "c"
    _corpus_with_votes(Corpus(root))
    res = CliRunner().invoke(app, ["annotate", "lean-c", "--corpus", str(root), "--queued-only"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == "split-c" and "1 items settled as C" in res.output
    empty = CliRunner().invoke(app, ["annotate", "lean-c", "--corpus", str(tmp_path / "none")])
    assert empty.exit_code == 0 and "0 items settled" in empty.output


def test_a_hesitation_towards_c_counts_as_a_c_vote_even_when_the_labels_agree(corpus):
    save(corpus, [{"item_id": item, "annotator": who, "label": label, "round": 1, "text": f"text of {item}",
                   "leans_c": leans}
                  for item, votes in {"agreed-f-leaning": [("F", True), ("F", False)],
                                      "agreed-f": [("F", False), ("F", None)],
                                      "split-pb-leaning": [("P", False), ("B", True)]}.items()
                  for who, (label, leans) in zip("AB", votes)])
    assert settle_constraint_lean(corpus, queued_only=True) == ["split-pb-leaning"]  # agreed items stay
    assert settle_constraint_lean(corpus) == ["agreed-f-leaning"]
    assert _gold(corpus) == {"agreed-f-leaning": ("C", "adjudicated"), "split-pb-leaning": ("C", "adjudicated"),
                             "agreed-f": ("F", "agreed")}
