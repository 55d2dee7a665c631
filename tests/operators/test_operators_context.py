"""The governing-context model: what governs an item, how it is printed, how the verifier checks it."""

from __future__ import annotations

import pytest

from aac.operators import Item, render_with_context
from aac.operators.context import governed_presence, governing_context, render_items
from aac.operators.model import item_from_row
from aac.operators.verify import verify


@pytest.mark.parametrize("section, lead_in, expected", [
    (("Guide", "Forbidden actions"), "", ("Forbidden actions:",)),
    (("Guide", "Setup"), "**Don't:**", ("**Don't:**",)),
    (("Guide",), "Não faça:", ("Não faça:",)),
    (("Guide",), "禁止事项", ("禁止事项",)),
    (("Guide",), "Никогда не:", ("Никогда не:",)),
    (("Verboten",), "For the database:", ("Verboten:", "For the database:")),
    (("Guide", "Setup"), "Steps:", ()),
    (("Notes",), "", ()),
    (("DRY Principle (Don't Repeat Yourself)",), "", ()),  # an aside says nothing of the items under it
    (('Rule #2: "I Don\'t Know" Honesty',), "", ()),
    (("Tools",), "Capabilities (that CDP cannot do):", ()),
])
def test_what_governs_an_item(section, lead_in, expected):
    assert governing_context(section, lead_in) == expected


def test_one_item_is_rendered_with_its_context_as_a_prefix():
    it = Item("a", "Edit files under vendor/.", "C", section=("Project",), lead_in="**Don't:**")
    assert it.governing_context == ("**Don't:**",)
    assert render_with_context(it) == "**Don't:** Edit files under vendor/."
    assert render_with_context(Item("b", "Run the tests.", section=("Setup",))) == "Run the tests."


def test_items_share_one_context_block_and_a_lead_in_item_is_not_printed_twice():
    lead = Item("l", "Never:", "F", order=0, section=("X",))
    a = Item("a", "Push to main.", "C", order=1, section=("X",), lead_in="Never:")
    b = Item("b", "Delete tags.", "C", order=2, section=("X",), lead_in="Never:")
    fact = Item("f", "The API is in Go.", "B", order=3, section=("X",))
    assert render_items([lead, a, b, fact]) == "Never:\n- Push to main.\n- Delete tags.\nThe API is in Go."


def test_the_verifier_fails_a_governed_constraint_printed_without_its_context():
    items = [Item("a", "Force-push to main.", "C", section=("Forbidden actions",)),
             Item("b", "Log card numbers.", "C", section=("Forbidden actions",))]
    bare = "Force-push to main.\nLog card numbers."
    assert [c.ok for c in verify(bare, items)] == [False, False]
    assert all(c.verbatim for c in verify(bare, items))
    good = render_items(items)
    assert good == "Forbidden actions:\n- Force-push to main.\n- Log card numbers."
    assert all(c.ok for c in verify(good, items))
    # a fact between the context line and the bullet breaks the block
    assert not governed_presence("Forbidden actions:\nThe API is in Go.\n- Log card numbers.", items[1:])["b"]
    assert governed_presence("PIN C [x] Forbidden actions: Log card numbers.", items[1:])["b"]


def test_rows_with_and_without_a_lead_in():
    assert item_from_row({"text": "x", "section_path": ["A"]}).lead_in == ""
    assert item_from_row({"text": "x", "lead_in": None}).lead_in == ""
    row = item_from_row({"text": "Edit vendor/.", "section_path": ["A"], "lead_in": "Never:"})
    assert row.governing_context == ("Never:",)


def test_the_segmenter_records_lead_ins():
    from aac.core.segment import segment

    doc = ("# T\n\n**Do not**\n\n- Hardcode colours.\n- Add a theme.\n\nNever commit secrets.\n- Run tests.\n\n"
           "Rules:\n- Outer:\n  - Inner.\n\nA paragraph.\n")
    got = {s.text: s.lead_in for s in segment(doc, "CLAUDE.md")}
    assert got["Hardcode colours."] == got["Add a theme."] == "**Do not**"
    assert got["Run tests."] == ""  # a sentence above a list is no lead-in
    assert got["Outer:"] == "Rules:" and got["Inner."] == "Outer:"
    assert got["A paragraph."] == "" and got["**Do not**"] == ""
