import pytest

from aac.processing.secrets import find_secrets, scrub

# Fabricated, well-formed credentials (none is real); built by concatenation so scanners of this repo stay quiet.
AWS_ID = "AKIA" + "Q3EXAMPLE7ABCDEF"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GH_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
OPENAI = "sk-proj-" + "Abcdefghijklmnopqrstuvwx1234"
ANTHROPIC = "sk-ant-api03-" + "abcdefghijklmnopqrstuvwxyz0123"
SLACK = "xoxb-" + "123456789012-abcdefghijKLMN"
GOOGLE = "AIza" + "SyA1234567890abcdefghijklmnopqrstuv"
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcdEFGH5678\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize("line, secret, kind", [
    (f"export AWS_ACCESS_KEY_ID={AWS_ID}", AWS_ID, "aws_access_key"),
    (f'aws_secret_access_key = "{AWS_SECRET}"', AWS_SECRET, "aws_secret_key"),
    (f"token: {GH}", GH, "github_token"),
    (f"GH_TOKEN={GH_PAT}", GH_PAT, "github_token"),
    (f"OPENAI_API_KEY={OPENAI}", OPENAI, "openai_key"),
    (f"key {ANTHROPIC} here", ANTHROPIC, "anthropic_key"),
    (f"slack {SLACK}", SLACK, "slack_token"),
    (f"maps key {GOOGLE}", GOOGLE, "google_api_key"),
    (f"Authorization: Bearer {JWT}", JWT, "jwt"),
    ("DATABASE_URL=postgres://admin:s3cretPassw0rd@db.internal:5432/app", "s3cretPassw0rd", "password_in_url"),
    ('db_password: "Tr0ub4dor&3xyz"', "Tr0ub4dor&3xyz", "password"),
    ("Contact jane.doe@gmail.com for access", "jane.doe@gmail.com", "email"),
    (PEM, "MIIEowIBAAKCAQEA1234", "private_key"),
])
def test_each_secret_kind_is_redacted_with_a_typed_placeholder(line, secret, kind):
    s = scrub(f"# Setup\n\n{line}\n\nMore text.\n")
    assert secret not in s.text
    assert f"[REDACTED:{kind}]" in s.text
    assert s.found >= 1 and kind in s.kinds


def test_text_around_a_secret_is_preserved():
    s = scrub(f"Use `{GH}` only in CI.")
    assert s.text == "Use `[REDACTED:github_token]` only in CI."


def test_placeholders_role_addresses_and_ssh_urls_are_not_secrets():
    text = ("API_KEY=your_api_key_here\npassword: ${DB_PASSWORD}\nCo-Authored-By: Claude <noreply@anthropic.com>\n"
            "git clone git@github.com:org/repo.git\nuse the risk-assessment-framework-docs-folder\n"
            "write to support@example.com\n"
            "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app\nREDIS_URL=redis://:<password>@h:6379/0\n"
            "cache: redis://:{password}@h\n")
    assert find_secrets(text) == []
    assert scrub(text).text == text


@pytest.mark.parametrize("url, password", [
    ("DATABASE_URL=postgres://app:Kx7pq2Rw9zT@db:5432/app", "Kx7pq2Rw9zT"),
    ("REDIS_URL=redis://:Kx7pq2Rw9zT@h:6379/0", "Kx7pq2Rw9zT"),
])
def test_a_real_password_in_the_placeholder_url_shapes_is_redacted(url, password):
    s = scrub(f"{url}\n")
    assert password not in s.text and set(s.kinds) == {"password_in_url"} and s.found == 1
    assert s.text == url.replace(password, "[REDACTED:password_in_url]") + "\n"


def test_count_matches_number_of_redactions():
    s = scrub(f"{GH}\n{OPENAI}\n{AWS_ID}\n")
    assert s.found == 3 and s.text.count("[REDACTED:") == 3


def test_sample_files_keep_their_instructions(sample_path):
    import json

    rows = [json.loads(line) for line in sample_path.open()]
    redacted = sum(scrub(r["content"]).found for r in rows)
    # the real sample has a handful of personal e-mail addresses and no credentials; redaction stays rare
    assert 0 < redacted < 40


def test_every_secret_planted_by_the_snapshot_generator_is_caught():
    from aac.collectors.emulator import generate_snapshot

    planted = missed = 0
    for rec in generate_snapshot(30_000, 13):
        if not rec.get("_planted"):
            continue
        text = scrub(rec["content"]).text
        for p in rec["_planted"]:
            planted += 1
            missed += p["value"] in text
    assert planted > 100 and missed == 0


def test_a_url_password_without_a_user_and_a_whole_putty_key_are_redacted():
    password = "Sup3rS3cret" + "RedisPw"
    text = (f"cache: redis://:{password}@cache.local:6379\n"
            "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPublic-Lines: 1\nAAAAB3NzaC1yc2E\n"
            "Private-Lines: 2\nAAAAprivateLINEone\nAAAAprivateLINEtwo\nPrivate-MAC: 0123abcd\nafter the key")
    out = scrub(text)
    assert password not in out.text and "privateLINE" not in out.text and "Private-MAC" not in out.text
    assert out.text.endswith("[REDACTED:private_key]\nafter the key")
    assert set(out.kinds) == {"password_in_url", "private_key"}
