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
