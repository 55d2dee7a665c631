"""The other languages' heading and cue words reach the type stage's features as the English ones do."""

import pytest

from aac.classifiers import features, risk
from aac.classifiers.base import ItemInput
from aac.classifiers.cues import SECTION_CUES


def _section_cues(heading: str) -> set[str]:
    return {name for name, pattern in SECTION_CUES if pattern.search(heading)}


@pytest.mark.parametrize("heading, family", [
    ("更新日志", "episodic"), ("Sesión anterior — migración", "episodic"), ("미해결 과제", "episodic"),
    ("HISTORIAL DE CAMBIOS", "episodic"), ("2025-10-13", "episodic"), ("Stage 1 — complete (2026-04-09)", "episodic"),
    ("進捗", "episodic"), ("История изменений", "episodic"),
    ("命名规范", "style"), ("Convenções de código", "style"), ("コーディング規約", "style"), ("네이밍", "style"),
    ("開発手順", "proc"), ("Instalación", "proc"), ("Установка", "proc"), ("설치", "proc"),
    ("Architektur", "belief"), ("项目结构", "belief"), ("Visão geral", "belief"), ("개요", "belief"),
])
def test_headings_in_other_languages_fire_the_type_families(heading, family):
    assert family in _section_cues(heading)
    assert family in risk.section_families((heading,))  # the constraint stage reads the same heading words


def test_english_headings_keep_their_families():
    assert _section_cues("Code style") == {"style"}
    assert _section_cues("Changelog") == {"episodic"}


@pytest.mark.parametrize("text, cue", [
    ("[x] 搭建基础项目结构 已完成", "temporal"), ("ログイン機能は実装済み", "temporal"), ("로그인 기능 완료", "temporal"),
    ("Migración completada", "temporal"),
    ("尽量使用函数式组件", "pref"), ("なるべく短い関数にする", "pref"), ("가급적 짧게 작성", "pref"),
    ("Evite funções longas", "pref"), ("Vermeide lange Funktionen", "pref"),
])
def test_done_and_preference_words_fire_their_cues(text, cue):
    features.clear_caches()
    assert f"cue:{cue}" in features.item_tokens(ItemInput(text))


def test_preference_words_stay_out_of_the_constraint_stage():
    """Measured neutral there (grouped CV): the constraint stage keeps its own families."""
    assert "pref" not in risk.text_families("尽量使用函数式组件")
