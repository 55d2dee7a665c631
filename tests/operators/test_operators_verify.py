from aac.operators.verify import extract_guard, verify
from aac.operators.model import Item


def test_guard_is_negation_plus_object_phrase():
    g = extract_guard("Never commit secrets or .env files to the repository.")
    assert g.marker == ("never",) and g.obj[:2] == ("commit", "secrets")
    assert extract_guard("You must not push directly to main").marker == ("must", "not")


def test_guard_of_trailing_negation_takes_the_words_before_it():
    g = extract_guard("Force pushes to main are not allowed")
    assert g.marker == ("not",) and "force" in g.obj


def test_verifier_flags_a_constraint_whose_negation_was_lost():
    c = Item("c", "Never commit secrets to the repo", "C")
    (check,) = verify("Commit secrets to the repo", [c])
    assert not check.ok and not check.guard_ok
    (check,) = verify("intro\nNever commit   secrets to the repo\nmore", [c])
    assert check.ok
