import pytest

from aac.core.config import Settings, scrub


def test_tokens_never_show_in_repr_or_format():
    s = Settings.from_env({"GITHUB_TOKENS": "tok-aaa,tok-bbb", "GITHUB_TOKEN": "tok-ccc", "HF_TOKEN": "hf-ddd"})
    shown = repr(s) + str(s.github_tokens) + f"{s.hf_token}"
    for secret in ("tok-aaa", "tok-bbb", "tok-ccc", "hf-ddd"):
        assert secret not in shown
    assert [t.reveal() for t in s.github_tokens] == ["tok-aaa", "tok-bbb", "tok-ccc"]


def test_scrub_masks_every_secret_in_force():
    s = Settings.from_env({"GITHUB_TOKEN": "tok-secret-1", "HF_TOKEN": "hf-secret-2"})
    assert scrub("auth failed for tok-secret-1 and hf-secret-2", s) == "auth failed for *** and ***"


def test_settings_is_the_one_reader_of_the_environment():
    """Every setting is declared once in aac.core.config; the Hub validator only sets the datasets library's
    offline variables for its own load (and restores them)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "aac"
    readers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if re.search(r"os\.environ|getenv", p.read_text(encoding="utf-8")))
    assert readers == ["core/config.py", "hub/validate.py"]


def test_settings_read_the_classifier_and_llm_variables():
    from aac.core.config import Settings

    s = Settings.from_env({"AAC_CLASSIFY_WORKERS": "3", "AAC_LLM_BASE_URL": "http://127.0.0.1:9/v1",
                           "AAC_LLM_API_KEY": "sk-test-key-value", "AAC_DEBUG": "1", "AAC_SHARED_DATA": "/tmp/x"})
    assert (s.classify_workers, s.llm_base_url, s.debug, str(s.shared_data)) == (3, "http://127.0.0.1:9/v1", True, "/tmp/x")
    assert s.llm_api_key.reveal() == "sk-test-key-value" and "sk-test-key-value" not in repr(s)
    assert "sk-test-key-value" in s.secret_values()
    with pytest.raises(ValueError, match="AAC_CLASSIFY_WORKERS"):
        Settings.from_env({"AAC_CLASSIFY_WORKERS": "many"})
