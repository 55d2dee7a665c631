"""LLM variants against a local OpenAI-compatible stub endpoint (127.0.0.1): JSON parsing, retries, cache, timeouts."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from aac.classifiers.base import ItemInput
from aac.classifiers.llm import LLMClassifier, SafetyMarginClassifier, parse_type_reply, LLMReplyError


class Stub:
    """Replies with scripted message contents in order (the last one repeats): a content string, a bare status
    code, or (status, body, headers); records requests."""

    def __init__(self):
        self.replies: list = ['{"type": "C", "confidence": 0.9}']
        self.requests: list[dict] = []
        self.delay = 0.0
        self.trickle = 0.0  # seconds between bytes of a 200 reply
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append({"body": body, "auth": self.headers.get("Authorization")})
                reply = stub.replies.pop(0) if len(stub.replies) > 1 else stub.replies[0]
                if stub.delay:
                    time.sleep(stub.delay)
                if isinstance(reply, int):
                    self.send_response(reply)
                    self.end_headers()
                    return
                if isinstance(reply, tuple):  # (status, body text, headers)
                    status, text, headers = reply
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(text.encode())))
                    self.end_headers()
                    self.wfile.write(text.encode())
                    return
                data = json.dumps({"choices": [{"message": {"content": reply}}],
                                   "usage": {"prompt_tokens": 50, "completion_tokens": 7}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not stub.trickle:
                    self.wfile.write(data)
                    return
                try:
                    for i in range(len(data)):
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(stub.trickle)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up, as it should

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def stub():
    s = Stub()
    yield s
    s.server.shutdown()
    s.server.server_close()


def _llm(stub, tmp_path, **kw):
    kw.setdefault("cache", tmp_path / "cache.duckdb")
    kw.setdefault("backoff", 0.0)
    return LLMClassifier(base_url=stub.url, model="stub-model", **kw)


def test_llm_labels_items_from_strict_json_and_counts_tokens(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("AAC_LLM_API_KEY", "sk-test-secret")
    clf = _llm(stub, tmp_path)
    [p] = clf.predict([ItemInput("Never push to main.")])
    assert (p.label, p.abstained, p.source) == ("C", False, "llm")
    assert clf.stats["prompt_tokens"] == 50 and clf.stats["completion_tokens"] == 7 and clf.stats["calls"] == 1
    assert stub.requests[0]["auth"] == "Bearer sk-test-secret"
    assert stub.requests[0]["body"]["model"] == "stub-model"


def test_llm_cache_answers_repeat_items_without_calls(stub, tmp_path):
    _llm(stub, tmp_path).predict([ItemInput("Run make test.")])
    again = _llm(stub, tmp_path)
    again.predict([ItemInput("Run make test.")])
    assert len(stub.requests) == 1 and again.stats["cache_hits"] == 1


def test_llm_retries_malformed_json_then_succeeds(stub, tmp_path):
    stub.replies = ["Sure! The type is C.", '{"type": "P", "confidence": 0.7}']
    clf = _llm(stub, tmp_path)
    [p] = clf.predict([ItemInput("Run make test.")])
    assert p.label == "P" and clf.stats["retries"] == 1


def test_llm_gives_up_on_persistent_malformed_json_as_abstained(stub, tmp_path):
    stub.replies = ['{"type": "X"}']
    clf = _llm(stub, tmp_path, retries=1)
    [p] = clf.predict([ItemInput("whatever")])
    assert p.abstained and p.source == "llm:error" and clf.stats["errors"] == 1


def test_llm_timeout_is_retried_and_reported_without_leaking_the_key(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.delenv("AAC_LLM_API_KEY", raising=False)
    stub.delay = 0.5
    clf = _llm(stub, tmp_path, timeout=0.1, retries=1)
    with pytest.raises(Exception) as err:
        clf.client.ask("v", "sys", ItemInput("slow"), parse_type_reply)
    assert "sk-very-secret" not in str(err.value) and "Timeout" in str(err.value)
    assert clf.stats["calls"] == 2 and clf.stats["errors"] == 1


def test_llm_retries_server_errors(stub, tmp_path):
    stub.replies = [500, '{"type": "B", "confidence": 0.6}']
    [p] = _llm(stub, tmp_path).predict([ItemInput("The API is REST.")])
    assert p.label == "B"


def test_safetymargin_score_above_half_is_constraint_else_default_label(stub, tmp_path):
    stub.replies = ['{"score": 0.8}', '{"score": 0.1}']
    clf = SafetyMarginClassifier(base_url=stub.url, model="m", cache=tmp_path / "c.duckdb", backoff=0.0, concurrency=1)
    high, low = clf.predict([ItemInput("The customers table holds the only copy of billing history."),
                             ItemInput("Run `npm install` to install dependencies.")])
    assert high.label == "C" and high.proba[0] == pytest.approx(0.8)
    assert low.label != "C" and low.proba[0] == pytest.approx(0.1)


def test_strict_parser_rejects_prose_around_json():
    with pytest.raises(LLMReplyError):
        parse_type_reply('Here you go: {"type": "C"}')
    assert parse_type_reply('{"type": "Constraint", "confidence": 1}') == ("C", 1.0)


def test_llm_without_endpoint_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("AAC_LLM_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="--llm-base-url"):
        LLMClassifier(cache=None)


def test_classify_command_fails_when_the_endpoint_types_nothing(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from aac.cli import app

    monkeypatch.setenv("AAC_LLM_API_KEY", "sk-test-unreachable")
    monkeypatch.setenv("AAC_LLM_CACHE", str(tmp_path / "cache.duckdb"))
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps({"id": "a", "text": "Never push to main."}) + "\n")
    res = CliRunner().invoke(app, ["classify", "--in", str(src), "--out", str(out), "--classifier", "llm",
                                   "--llm-base-url", "http://127.0.0.1:1", "--llm-model", "m"])
    assert res.exit_code == 1 and "1 of 1 items could not be typed" in " ".join(res.output.split())
    row = json.loads(out.read_text())
    assert row["abstained"] and row["classifier"] == "llm:error" and "sk-test" not in res.output


def test_llm_timeout_bounds_the_whole_reply_not_each_read(stub, tmp_path):
    """An endpoint trickling its reply a byte at a time never trips a per-read timeout; the deadline is total."""
    stub.trickle = 0.2  # seconds between bytes: the ~150-byte reply would take ~30 s
    clf = _llm(stub, tmp_path, timeout=0.5, retries=0)
    t0 = time.perf_counter()
    with pytest.raises(Exception) as err:
        clf.client.ask("v", "sys", ItemInput("slow"), parse_type_reply)
    assert "Timeout" in str(err.value) and time.perf_counter() - t0 < 15  # far below the reply's 30 s


def test_llm_reply_read_in_chunks_is_parsed_with_its_headers(stub, tmp_path):
    stub.replies = [(429, "slow down", {"Retry-After": "0"}), '{"type": "P", "confidence": 0.8}']
    clf = _llm(stub, tmp_path, retries=1)
    [p] = clf.predict([ItemInput("Run `make test`.")])
    assert p.label == "P" and clf.stats["retries"] == 1


@pytest.fixture
def slept(monkeypatch):
    import aac.classifiers.llm as llm

    waits: list[float] = []
    monkeypatch.setattr(llm.time, "sleep", waits.append)
    return waits


def test_server_errors_back_off_exponentially(stub, tmp_path, slept):
    stub.replies = [500, 503, '{"type": "B", "confidence": 0.6}']
    [p] = _llm(stub, tmp_path, retries=2, backoff=0.05).predict([ItemInput("The API is REST.")])
    assert p.label == "B" and slept == [0.05, 0.1]


def test_a_client_error_is_not_asked_again(stub, tmp_path, slept):
    stub.replies = [(400, '{"error": "bad request"}', {}), '{"type": "B", "confidence": 0.6}']
    clf = _llm(stub, tmp_path, retries=2)
    [p] = clf.predict([ItemInput("x")])
    assert p.abstained and p.source == "llm:error" and len(stub.requests) == 1 and slept == []


def test_retry_after_is_honoured_up_to_a_minute(stub, tmp_path, slept):
    stub.replies = [(429, "slow down", {"Retry-After": "86400"}), (429, "slow down", {"Retry-After": "2"}),
                    '{"type": "P", "confidence": 0.8}']
    [p] = _llm(stub, tmp_path, retries=2, backoff=0.01).predict([ItemInput("Run `make`.")])
    assert p.label == "P" and slept == [60.0, 2.0]


def test_a_gzip_compressed_reply_is_decoded_once():
    """Proxies compress JSON replies: the streamed body is decoded by its headers exactly once."""
    import gzip

    import httpx

    from aac.classifiers.llm import _post_within

    reply = json.dumps({"choices": [{"message": {"content": '{"type": "C", "confidence": 0.9}'}}]}).encode()

    def handler(request):
        return httpx.Response(200, headers={"content-encoding": "gzip", "content-type": "application/json"},
                              content=gzip.compress(reply))

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        r = _post_within(client, "http://llm.test/v1/chat/completions", {"model": "m"}, 5.0)
    assert r.json()["choices"][0]["message"]["content"] == '{"type": "C", "confidence": 0.9}'


def test_an_endpoint_that_never_answers_stops_further_requests_after_three_refused_connections(tmp_path, slept):
    clf = LLMClassifier(base_url="http://127.0.0.1:1/v1", model="m", cache=tmp_path / "c.duckdb", retries=2,
                        concurrency=1)
    preds = clf.predict([ItemInput(f"rule {n}") for n in range(50)])
    assert all(p.abstained and p.source == "llm:error" for p in preds)
    assert clf.stats["calls"] == 3 and len(slept) == 2  # not 150 connections and 100 backoffs
    assert "cannot connect to http://127.0.0.1:1/v1" in clf.stats["first_error"]


def test_a_command_asked_for_the_llm_classifier_without_an_endpoint_says_so_in_one_line(tmp_path, monkeypatch):
    import subprocess
    import sys

    monkeypatch.delenv("AAC_LLM_BASE_URL", raising=False)
    doc = tmp_path / "CLAUDE.md"
    doc.write_text("- Never push to main.\n", encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "aac", "compact", str(doc), "--budget", "0.5", "--classifier", "llm"],
                         capture_output=True, text=True, env={k: v for k, v in __import__("os").environ.items()
                                                              if k != "AAC_LLM_BASE_URL"})
    assert res.returncode == 2 and "AAC_LLM_BASE_URL" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
