"""Issue 24: the union of real labelled items, language groups, multilingual cues, the two operating points and the
hard-lane decision that every consumer reads."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import numpy as np
import pytest

from aac.classifiers.base import ItemInput, Prediction, in_hard_lane
from aac.classifiers.datasets import Labelled, load_multilingual_phrasing, load_union, prevalence_weights
from aac.classifiers.grouped_eval import choose_hard_threshold, choose_type_threshold, weighted_summary
from aac.classifiers.language import language_group
from aac.classifiers.linear import LinearModel, hard_lane
from aac.classifiers.operating_point import hard_lane_risk, rescaled
from aac.classifiers.risk import governing_families, risk_tokens, text_families


@pytest.mark.parametrize("text, group", [
    ("Never push to main.", "english"), ("Não faça deploy sem aprovação.", "other_latin"),
    ("Die Datei wird nicht gelöscht", "other_latin"), ("Никогда не удаляй базу", "cyrillic"),
    ("禁止删除数据库", "cjk"), ("本番に触らないでください", "cjk"), ("사용자 승인 없이 배포 금지", "cjk"),
    ("No uses la rama main para los cambios que no han sido revisados por el equipo", "other_latin"),
])
def test_language_group(text, group):
    assert language_group(text) == group


@pytest.mark.parametrize("text, expected", [
    ("Não faça deploy em produção sem aprovação", {"prohibit", "prod", "gate"}),
    ("Никогда не удаляй базу данных", {"prohibit", "destroy"}),
    ("本番データベースを削除しないでください", {"prohibit", "destroy", "prod"}),
    ("禁止提交密钥", {"prohibit", "secret", "vcs"}),
    ("사용자 승인 없이 배포 금지", {"prohibit", "gate", "prod"}),
    ("Niemals Zugangsdaten committen", {"prohibit", "secret"}),
    ("Nunca borres la tabla de clientes", {"prohibit", "destroy"}),
    ("Ne jamais supprimer les sauvegardes", {"prohibit", "destroy"}),
])
def test_multilingual_cues_fire_like_english_ones(text, expected):
    assert expected <= text_families(text)


def test_a_plain_foreign_sentence_fires_no_force():
    assert not {"prohibit", "must"} & text_families("O projeto usa React e TypeScript no frontend.")


def test_a_governing_heading_above_the_nearest_two_reaches_the_constraint_stage():
    assert governing_families(("Guia", "Não faça", "Banco", "Tabelas")) == ("safe",)
    assert governing_families(("禁止事项", "数据库", "表")) == ("safe",)
    assert governing_families(("Overview", "Stack", "Frontend")) == ()
    toks = risk_tokens(ItemInput("tabelas de clientes", ("Regras", "Não faça", "Banco", "Tabelas")))
    assert "rg:safe" in toks and "rg:rules" in toks
    assert "rg:safe" not in risk_tokens(ItemInput("tabelas de clientes", ("Banco", "Tabelas")))


def _gold_row(i, repo, label, sample="natural"):
    return {"id": f"g{i}", "repo": repo, "path": "AGENTS.md", "platform": "universal", "section": [], "kind": "bullet",
            "text": f"item {i}", "label": label, "label_a": label, "label_b": label, "sample": sample}


def test_load_union_leaves_holdout_repositories_out(tmp_path):
    rows = [_gold_row(0, "Owner/Kept", "C"), _gold_row(1, "Owner/Secret", "B")]
    (tmp_path / "gold_train.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path / "gold_dev.jsonl").write_text(json.dumps(_gold_row(2, "a/b", "P")) + "\n")
    digest = hashlib.sha256(b"owner/secret").hexdigest()  # lower-case owner/name
    (tmp_path / "holdout_repos.sha256").write_text(digest + "\n")
    got = load_union(tmp_path)
    assert sorted(d.group for d in got) == ["Owner/Kept", "a/b"]
    assert {d.extra["file"] for d in got} == {"gold_dev.jsonl", "gold_train.jsonl"}


def _labelled(label, sample):
    return Labelled(ItemInput("x"), label, "r", source="gold", extra={"sample": sample})


def test_prevalence_weights_bring_an_enriched_sample_to_the_natural_constraint_share():
    data = ([_labelled("C", "natural")] + [_labelled("B", "natural")] * 9
            + [_labelled("C", "enriched")] * 5 + [_labelled("B", "enriched")] * 5)
    w = np.asarray(prevalence_weights(data))
    enriched = np.arange(len(data)) >= 10
    is_c = np.asarray([d.label == "C" for d in data])
    assert w[~enriched].tolist() == [1.0] * 10
    share = w[enriched & is_c].sum() / w[enriched].sum()
    assert share == pytest.approx(0.1)  # the natural share, not 0.5
    assert w[enriched].sum() == pytest.approx(10)  # the sample keeps its size


def test_hard_threshold_catches_the_asked_share_of_constraints():
    risk = np.asarray([0.9, 0.8, 0.5, 0.3, 0.05, 0.6, 0.2, 0.1, 0.01, np.nan])
    is_c = np.asarray([True] * 5 + [False] * 5)
    t = choose_hard_threshold(risk, is_c, recall=0.8)
    assert (risk[:5] >= t).mean() >= 0.8 and t == pytest.approx(0.3)
    assert (risk[:5] >= choose_hard_threshold(risk, is_c, recall=1.0)).all()


def test_type_threshold_is_the_best_f1_one():
    risk = np.asarray([0.9, 0.8, 0.7, 0.2, 0.1, 0.65])
    is_c = np.asarray([True, True, True, False, False, False])
    t = choose_type_threshold(risk, is_c)
    assert 0.65 < t <= 0.7


def test_weighted_summary_reports_the_hard_lane_and_the_top_fifth():
    s = weighted_summary(["C", "B", "B", "B", "B"], ["C", "B", "B", "C", "B"], [1] * 5,
                         [True, False, False, True, False], risk=[0.9, 0.1, 0.2, 0.5, 0.0])
    assert s["hard_rec"] == 1.0 and s["hard_share"] == pytest.approx(0.4)
    assert s["c_prec"] == pytest.approx(0.5) and s["c_rec"] == 1.0 and s["top20_rec"] == 1.0


def test_multilingual_phrasing_set_has_every_rule_in_four_forms_and_five_languages():
    data = load_multilingual_phrasing()
    rules = [d for d in data if d.label == "C"]
    assert Counter(d.extra["lang"] for d in rules) == {lang: 80 for lang in ("es", "pt", "ru", "zh", "ja")}
    assert Counter(d.form for d in rules) == {f: 100 for f in ("imperative", "declarative", "conditional", "passive")}
    assert len({d.group for d in rules}) == 20  # rule ids shared with phrasing_dev: a fold holds a rule out everywhere
    distractors = [d for d in data if d.label != "C"]
    assert len(distractors) == 60 and {d.label for d in distractors} == {"P", "B", "F", "E"}
    assert {language_group(d.item.text) for d in data if d.extra["lang"] in ("zh", "ja")} == {"cjk"}
    assert {language_group(d.item.text) for d in data if d.extra["lang"] == "ru"} == {"cyrillic"}


def test_prediction_hard_lane_falls_back_to_the_c_label():
    p = (0.2, 0.2, 0.2, 0.2, 0.2)
    assert in_hard_lane(Prediction("C", p, 0.2)) and not in_hard_lane(Prediction("B", p, 0.2))
    assert in_hard_lane(Prediction("B", p, 0.2, hard_lane=True))


def test_hard_lane_thresholds_raw_risk_with_authority():
    p = np.asarray([[0.05, 0.95, 0, 0, 0], [0.05, 0.95, 0, 0, 0], [0.01, 0.99, 0, 0, 0]])
    assert hard_lane(p, ["user", "sys", "user"], 0.06).tolist() == [False, True, False]


def test_rescaled_hard_lane_threshold_sits_below_the_c_decision():
    assert rescaled(0.02, 0.4) == pytest.approx(0.025)
    assert rescaled(None, 0.4) == 0.5 and rescaled(0.5, 0.4) == 0.5


def test_a_saved_model_keeps_its_hard_lane_threshold_and_operators_read_it(tmp_path):
    n = 1 << 10
    m = LinearModel(np.zeros((n, 5), np.float32), np.zeros(5, np.float32), 0.4, n, "{}", None,
                    np.zeros(n, np.float32), 0.0, None, 0.02)
    path = m.save(tmp_path / "trained.npz")
    back = LinearModel.load(path)
    assert back.hard_threshold == pytest.approx(0.02)
    assert hard_lane_risk(path) == pytest.approx(0.025)
    assert hard_lane_risk(tmp_path / "missing.npz") == 0.5


def test_the_trained_classifier_writes_a_hard_lane_decision_for_every_item():
    from aac.classifiers.trained import TrainedClassifier

    clf = TrainedClassifier()
    preds = clf.predict([ItemInput("Never force-push to main."), ItemInput("The app uses React.")])
    assert all(p.hard_lane is not None for p in preds)
    assert preds[0].hard_lane and all(p.hard_lane for p in preds if p.label == "C")


def test_a_lead_in_governs_the_list_that_follows_it_and_no_further():
    from aac.classifiers.context import with_lead_ins

    items = [ItemInput("**Hard Stops:**", ("Rules",)), ItemInput("git commit", ("Rules",), "bullet"),
             ItemInput("git push", ("Rules",), "bullet"), ItemInput("A paragraph.", ("Rules",)),
             ItemInput("npm test", ("Rules",), "bullet"), ItemInput("禁止事项：", ("B",)),
             ItemInput("删除数据库", ("C",), "bullet")]
    got = [it.lead_in for it in with_lead_ins(items)]
    assert got == ["", "**Hard Stops:**", "**Hard Stops:**", "", "", "", ""]  # another section: not governed
    # never across files
    two = with_lead_ins([ItemInput("Never:"), ItemInput("x", (), "bullet")], files=["a", "b"])
    assert two[1].lead_in == ""


def test_a_lead_in_reaches_the_constraint_stage_as_a_governing_heading():
    bare = risk_tokens(ItemInput("git commit", ("Workflow",), "bullet"))
    led = risk_tokens(ItemInput("git commit", ("Workflow",), "bullet", lead_in="The agent MUST NEVER do these:"))
    assert "rlf:prohibit" in led and "rlf:prohibit" not in bare
    assert "rg:safe" in risk_tokens(ItemInput("apagar tabelas", (), "bullet", lead_in="Não faça:"))


def test_fast_and_plain_featurisation_agree_with_lead_ins_and_deep_sections():
    from aac.classifiers.features import N_FEATURES, clear_caches, featurize_two_stage, hash_tokens, item_tokens

    items = [ItemInput("git commit", ("A", "禁止事项", "B", "C"), "bullet", lead_in="Never:"),
             ItemInput("Nunca borres la base", ("Reglas",))]
    clear_caches()
    idx, ptr, cidx, cptr = featurize_two_stage(items)
    for n, it in enumerate(items):
        risk: list[str] = []
        toks = item_tokens(it, risk)
        assert sorted(idx[ptr[n]:ptr[n + 1]].tolist()) == hash_tokens(toks, N_FEATURES)
        assert sorted(cidx[cptr[n]:cptr[n + 1]].tolist()) == hash_tokens(toks + risk, N_FEATURES)


def test_union_report_prints_every_table_with_the_issue_figures_beside():
    from rich.console import Console

    from aac.classifiers.datasets import own_examples
    from aac.classifiers.training import FitOptions
    from aac.classifiers.union_report import markdown_report, print_union_report, union_report

    texts = {"C": "Never push to main without approval.", "P": "Run `make test` before you open a pull request.",
             "B": "The backend is a FastAPI service.", "F": "Prefer short, descriptive names.",
             "E": "Last week we moved CI to GitHub Actions."}
    gold = [Labelled(ItemInput(f"{texts[t]} ({r})", ("Rules",)), t, f"o/r{r}", source="gold",
                     extra={"sample": "natural", "platform": "cursor" if r % 2 else "claude"})
            for r in range(4) for t in "CPBFE"]
    gold.append(Labelled(ItemInput("Никогда не удаляй базу данных."), "C", "o/r1", source="gold",
                         extra={"sample": "non_english", "platform": "cursor"}))
    rep, P = union_report([*own_examples(), *gold], FitOptions(folds=2))
    assert rep.overall["n"] == len(gold) and 0 < rep.hard_threshold <= rep.type_threshold
    assert set(rep.by_language) == {"english", "cyrillic"} and set(rep.by_platform) == {"cursor", "claude"}
    console = Console(record=True, width=200)
    print_union_report(rep, console, 4)
    out = console.export_text()
    for word in ("grouped CV", "issue 24: default before", "per language group", "per platform", "Targets"):
        assert word in out
    assert any(line.startswith("| english |") for line in markdown_report(rep))
