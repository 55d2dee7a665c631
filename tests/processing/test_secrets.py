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


def _fake(n: int, alphabet: str = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", seed: int = 7) -> str:
    """A value of a token's shape, made here (never a real secret)."""
    import random

    rnd = random.Random(seed + n)
    return "".join(rnd.choice(alphabet) for _ in range(n))


HEX = "0123456789abcdef"
SHAPES = [  # secrets an audit found leaking into a release, in the contexts it found them
    (f"export DATABRICKS_TOKEN=dapi{_fake(32, HEX)}", "databricks_token"),
    (f"the store token shpat_{_fake(32, HEX)} here", "shopify_token"),
    (f"doctl auth init -t dop_v1_{_fake(64, HEX)}", "digitalocean_token"),
    (f"use sbp_{_fake(40, HEX)} for the supabase CLI", "supabase_token"),
    (f"groq: gsk_{_fake(52)}", "groq_key"),
    (f"linear lin_api_{_fake(40)}", "linear_key"),
    (f"replicate r8_{_fake(37)}", "replicate_token"),
    (f"mailgun key-{_fake(32, HEX)}", "mailgun_key"),
    (f"https://discord.com/api/webhooks/123456789012345678/{_fake(68)}", "discord_webhook"),
    (f"AZURE_CLIENT_SECRET=abc8Q~{_fake(34)}", "azure_client_secret"),
    (f"Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={_fake(43)}=",
     "azure_shared_key"),
    (f"https://acct.blob.core.windows.net/c?sv=2022-11-02&sig={_fake(40)}%3D", "azure_sas_signature"),
    (f'"SecretAccessKey": "{_fake(40)}"', "aws_secret_key"),
    (f"AWS_SESSION_TOKEN={_fake(200)}", "aws_session_token"),
    ('{"auths": {"ghcr.io": {"auth": "' + _fake(40) + '"}}}', "auth_header"),
    (f"Authorization: Bearer {_fake(40)}", "auth_header"),
    (f"VERCEL_TOKEN={_fake(23)}7", "env_secret"),
    (f"AZURE_STORAGE_KEY={_fake(86)}==", "env_secret"),
    ("ADMIN_PASSWORD=MyS3cureAdminPw!", "env_secret"),
    ("BACKUP_PASSPHRASE=CorrectHorseBatteryStaple", "env_secret"),
    (f"postgres://app:$ecret{_fake(8)}@db:5432/app", "password_in_url"),
    (f"token: {_fake(24)}9", "password"),  # a YAML `token:` with an opaque value
    (f"SECRET_KEY_BASE={_fake(64, HEX)}", "env_secret"),
    (f'"private_key_id": "{_fake(40, HEX)}"', "password"),
]


@pytest.mark.parametrize("line, kind", SHAPES, ids=[k for _, k in SHAPES])
def test_more_vendor_token_shapes_and_secret_named_settings_are_redacted(line, kind):
    from aac.core.secret_shapes import find_secret_kinds

    out = scrub(line)
    assert kind in out.kinds and f"[REDACTED:{kind}]" in out.text
    assert not find_secret_kinds(out.text)  # nothing the publish check would still hold back


@pytest.mark.parametrize("text", [
    "PWD=/workspace/app1", "private_key: ./keys/id_ed25519", '"secret": "projects/acme-42/secrets/db/versions/3"',
    "GITHUB_TOKEN=$GITHUB_TOKEN", "API_KEY=${API_KEY}", "MY_API_KEY=<your-key>", "SORT_KEY=created_at",
    "docker://alpine:3.19@sha256:4bcff63911fcb4448bd4fdacec207030997caf25e9bea4045fa6c8c44de311d1",
    "final apiKey = AppConfig.sonarrApiKey;", "max_token: 4096", "token: ${{ secrets.GH_TOKEN }}",
])
def test_paths_names_placeholders_and_versions_beside_secret_words_are_kept(text):
    assert scrub(text).text == text


@pytest.mark.parametrize("text, redacted", [
    ("mysql -u root -pS3cretRootPw db", "mysql -u root -p[REDACTED:cli_password] db"),
    ("pg_dump --password Hunter2Pass db", "pg_dump --password [REDACTED:cli_password] db"),
    ("curl -u admin:S3cretPw9 https://x", "curl -u admin:[REDACTED:cli_password] https://x"),
    ("mysql -u root -p db", "mysql -u root -p db"),  # asks for it: no password written
    ("curl -u $USER:$PASS https://x", "curl -u $USER:$PASS https://x"),
    ("> -----BEGIN RSA PRIVATE KEY-----\n> MIIEowIBAAKCAQEAxyz1234567890abcdef\n> abcdefABCDEF0123456789+/==\n\nok",
     "> [REDACTED:private_key]\n\nok"),  # a key pasted in a blockquote, with no END line
    ("Mail [me](mailto:jane.doe@outlook.com)", "Mail [me](mailto:[REDACTED:email])"),
    ("postgres://user:pw9x@db.internal/x", "postgres://user:[REDACTED:password_in_url]@db.internal/x"),
])
def test_command_line_passwords_quoted_keys_mailto_addresses_and_url_passwords(text, redacted):
    assert scrub(text).text == redacted


@pytest.mark.parametrize("text", [
    "Authorization: Bearer YOUR_OPENAI_API_KEY", '"auth": "your_auth_token_here"',
    "use --password flag to supply the password", "token: StreamingResponse", "GOOGLE_API_KEY: GoogleMapsApiKey",
    "SESSION_SECRET: useAStrongRandomValue",
])
def test_placeholders_names_and_prose_beside_auth_and_password_words_are_kept(text):
    assert scrub(text).text == text


@pytest.mark.parametrize("line", ["HF_PAT=Abc123def456xyz789", "NPM_KEY=Abc123def456xyz", "NPM_PASS=Abc123def456xyz"])
def test_overlapping_trigger_words_do_not_hide_a_detector(line):
    assert scrub(line).text == line.split("=")[0] + "=[REDACTED:env_secret]"


def _discord_bot_token(bot_id: str = "1098765432109876543", hmac_len: int = 38) -> str:
    """A token of Discord's shape: base64url of a snowflake id, a timestamp, an HMAC (all made up here)."""
    import base64

    return (base64.urlsafe_b64encode(bot_id.encode()).decode().rstrip("=") + "." + _fake(6) + "." + _fake(hmac_len))


TWILIO_SID, TWILIO_TOKEN = "AC" + _fake(32, HEX, seed=3), _fake(32, HEX, seed=5)
WRAPPED_B64 = (_fake(44, seed=11), _fake(40, seed=12) + "==")
AWS_SECRET_40 = _fake(18, seed=21) + "/" + _fake(14, seed=22) + "+" + _fake(6, seed=23)
LEAKS = [  # (text, the secret values that must all go, the kinds expected) — a second audit's findings, in context
    (f"The Twilio auth token is {TWILIO_TOKEN} and the account SID is {TWILIO_SID}.", [TWILIO_TOKEN, TWILIO_SID],
     {"twilio_auth_token"}),
    (f'twilio_client = Client("{TWILIO_SID}", "{TWILIO_TOKEN}")', [TWILIO_TOKEN], {"twilio_auth_token"}),
    (f"```\nAPI_KEY={WRAPPED_B64[0]}\n{WRAPPED_B64[1]}\n```", list(WRAPPED_B64), {"env_secret"}),
    (f'const apiKey = "{_fake(32, HEX, seed=31)}" +\n  "{_fake(20, HEX, seed=32)}";',
     [_fake(32, HEX, seed=31), _fake(20, HEX, seed=32)], {"password"}),
    (f'api_key: "{WRAPPED_B64[0]}\n  {WRAPPED_B64[1]}"', list(WRAPPED_B64), {"password"}),
    ('{\n  "type": "service_account",\n  "private_key_id": "' + _fake(40, HEX, seed=41) + '",\n'
     '  "client_email": "admin@acme-prod-42.iam.gserviceaccount.com",\n  "client_id": "1122334455667788990"\n}',
     [_fake(40, HEX, seed=41), "admin@acme-prod-42.iam.gserviceaccount.com"], {"gcp_service_account"}),
    (f"| env | key id | secret |\n|---|---|---|\n| prod | {AWS_ID} | {AWS_SECRET_40} |", [AWS_ID, AWS_SECRET_40],
     {"aws_access_key", "aws_secret_key"}),
    (f"| prod | {AWS_ID} |\n|      | {AWS_SECRET_40} |", [AWS_SECRET_40], {"aws_secret_key"}),
    (f"api-key:\n  - mistral={_fake(32, seed=51)}\n  - gemini=AIza{_fake(35, seed=52)}",
     [_fake(32, seed=51), _fake(35, seed=52)], {"aider_api_key", "google_api_key"}),
    (f"api-key: - openai={OPENAI}", [OPENAI], {"openai_key"}),
    (f"# .aider.conf.yml\nopenai-api-key: {OPENAI}\nanthropic-api-key: {ANTHROPIC}", [OPENAI, ANTHROPIC],
     {"openai_key", "anthropic_key"}),
    ("```\ndb.example.com:5432:app:admin:S3cr3tPassw0rd!\n```", ["S3cr3tPassw0rd!"], {"pgpass_password"}),
    ('echo "localhost:5432:*:app:Xk9!pwQ" >> ~/.pgpass', ["Xk9!pwQ"], {"pgpass_password"}),
    (f"BOT = {{'token': '{_discord_bot_token()}'}}", [_discord_bot_token()], {"discord_bot_token"}),
    (f"discord token {_discord_bot_token('81234567890123456', 27)}", [_discord_bot_token("81234567890123456", 27)],
     {"discord_bot_token"}),
]


@pytest.mark.parametrize("text, secrets, kinds", LEAKS, ids=[f"{sorted(k)[0]}-{i}" for i, (_, _, k) in enumerate(LEAKS)])
def test_secrets_in_prose_tables_wrapped_lines_and_config_lists_are_redacted(text, secrets, kinds):
    from aac.core.secret_shapes import find_secret_kinds

    out = scrub(text)
    assert not [s for s in secrets if s in out.text]
    assert kinds <= set(out.kinds)
    assert out.text.count("[REDACTED:") == out.found
    assert not find_secret_kinds(out.text)


@pytest.mark.parametrize("text", [
    f"| prod | {AWS_ID} | {_fake(40, HEX, seed=61)} |",  # a commit SHA beside a key id
    "localhost:5432:mydb:postgres:postgres", "*:*:*:postgres:hunter2hunter",  # a default password / no port number
    "at 10:30:45:12:ab1", "set-env:\n  - AZURE_API_VERSION=2024-02-15", "read:\n  - CONVENTIONS.md",
    "app.py:120:4:W0612:unused-variable", "pylint.py:12:0:C0301:line-too-long",  # a linter's report lines
    "Requests need the `x-api-key` header.\ndependencies:\n  - pytorch=2.1.0=py3.10_cuda11.8\n  - torch=2.1.0+cu118",
    "Pass --api-key on the command line.\nsteps:\n  - model=gpt-4o-mini-2024",  # a list under another key
    f"twilio setup: the md5 of the secret file is {_fake(32, HEX, seed=62)}",  # a hash, not the auth token
])
def test_lookalikes_of_the_new_shapes_are_kept(text):
    kept = scrub(text)
    assert kept.text.replace("[REDACTED:aws_access_key]", AWS_ID) == text


@pytest.mark.parametrize("lookalike", [
    _discord_bot_token("1234567890123456"),  # a 16-digit number is no Discord id
    "x" + _discord_bot_token(),  # part of a longer run
    "MTA5ODc2NTQzMjEwOTg3NjU0Mw" + ".GhTz9k." + _fake(26),  # an HMAC is 27-38 characters
])
def test_dotted_strings_that_are_not_a_discord_bot_token_are_kept(lookalike):
    assert scrub(f"value {lookalike}").text == f"value {lookalike}"


def test_role_and_placeholder_addresses_stay_but_a_service_account_always_goes():
    text = "noreply@github.com, support@example.com, deploy@proj-1.iam.gserviceaccount.com"
    assert scrub(text).text == "noreply@github.com, support@example.com, [REDACTED:gcp_service_account]"


@pytest.mark.parametrize("next_line", ["NEXT_SETTING=", "node_modules_folder", "npm run dev", "```", "node18compat"])
def test_a_line_after_a_key_that_is_not_more_of_it_is_kept(next_line):
    out = scrub(f"API_KEY={WRAPPED_B64[0]}\n{next_line}\n")
    assert out.text == f"API_KEY=[REDACTED:env_secret]\n{next_line}\n"
