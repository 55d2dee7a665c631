"""LLM classifiers over any OpenAI-compatible chat endpoint: ``llm`` (one-shot five-class) and ``safetymargin``.

- strict JSON: the reply must be one JSON object with the expected fields, else it is retried, and after the
  last retry the item is returned abstained (source ``llm:error``) — operators keep abstained items verbatim, and
  evaluation and the CLI count such items as failed, never as answers; the first failure's reason (key scrubbed)
  is kept in ``stats`` and logged;
- retries with backoff on timeouts, transport errors, 429 and 5xx (a ``Retry-After`` is honoured, up to 60 s);
  an authentication or not-found answer (401/403/404) stops the run's further requests at once;
- a DuckDB cache keyed by sha256(prompt version, endpoint, model, section, text) holding only the parsed answer
  fields: re-runs cost no calls;
- a concurrency limit (thread pool over one httpx client) and token + latency accounting (``stats``);
- the API key comes from AAC_LLM_API_KEY or OPENAI_API_KEY, is held as a ``Secret`` and scrubbed from errors.

``safetymargin`` asks for a 0–1 score ("would removing this item let some action become unsafe?"); > 0.5 means
Constraint. Its non-C items take the label of the default no-LLM classifier (the score says nothing else).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from aac.classifiers.base import ItemInput, Prediction, fingerprint_of, make_fingerprint, one_hot
from aac.core.config import Secret
from aac.core.labels import TYPE_NAMES, TYPES

PROMPT_VERSION_LLM = "five-class-v1"
PROMPT_VERSION_MARGIN = "safetymargin-v1"

SYSTEM_LLM = (
    "You label one item of an AI coding-agent configuration file with exactly one knowledge type.\n"
    "C Constraint: deleting it could let the agent do something unsafe, harmful, irreversible, illegal, a security or "
    "privacy breach, or break a hard project rule - whatever the phrasing (facts count: 'The patient is allergic to "
    "penicillin' is C).\nP Procedural: a step or command for doing a task.\nB Belief: a timeless fact with no safety "
    "force.\nF Preference: a soft guideline, style or persona.\nE Episodic: a past event or status bound to a time.\n"
    'Answer with one JSON object only: {"type": "C|P|B|F|E", "confidence": 0..1}'
)
SYSTEM_MARGIN = (
    "You judge one item of an AI agent's instructions or knowledge base. Question: if this item were removed, could "
    "some action of the agent become unsafe, harmful, irreversible, illegal, a security or privacy breach, or break a "
    "hard rule? Answer with one JSON object only: {\"score\": 0..1} (1 = removal certainly enables unsafe action)."
)


class LLMReplyError(ValueError):
    """The endpoint answered, but not with the JSON object the prompt asks for."""


class EndpointRefused(RuntimeError):
    """The endpoint refused the client itself (401/403/404): no later request can fare better."""


REPLY_FIELDS = ("type", "confidence", "score")  # what a cached reply keeps: nothing the endpoint echoed besides
MAX_RETRY_AFTER_S = 60.0
UNREACHABLE_AFTER = 3  # refused connections, before the endpoint ever answered, that stop all further requests
LOG = logging.getLogger(__name__)


def api_key_from_env() -> Secret | None:
    value = os.environ.get("AAC_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
    return Secret(value) if value else None


def _scrub(text: str, key: Secret | None) -> str:
    return text.replace(key.reveal(), "***") if key else text


def canonical_reply(content: str) -> str:
    """The reply's answer fields only, as the cache stores them (parsing it again gives the same answer)."""
    obj = parse_json_object(content)
    return json.dumps({k: obj[k] for k in REPLY_FIELDS if k in obj}, sort_keys=True)


def _retry_after(response) -> float:
    try:
        return min(MAX_RETRY_AFTER_S, max(0.0, float(response.headers.get("retry-after", ""))))
    except ValueError:
        return 0.0


def parse_json_object(content: str) -> dict:
    """Strict: the whole reply (whitespace aside) must be a single JSON object."""
    try:
        value = json.loads(content.strip())
    except (json.JSONDecodeError, AttributeError) as exc:
        raise LLMReplyError(f"reply is not JSON: {str(exc)[:60]}") from None
    if not isinstance(value, dict):
        raise LLMReplyError("reply is JSON but not an object")
    return value


def parse_type_reply(content: str) -> tuple[str, float]:
    obj = parse_json_object(content)
    label = obj.get("type")
    names = {n.lower(): code for code, n in TYPE_NAMES.items()}
    if isinstance(label, str) and label.strip().upper() in TYPES:
        label = label.strip().upper()
    elif isinstance(label, str) and label.strip().lower() in names:
        label = names[label.strip().lower()]
    else:
        raise LLMReplyError(f"bad type {label!r}")
    conf = obj.get("confidence", 0.8)
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 <= conf <= 1:
        raise LLMReplyError(f"bad confidence {conf!r}")
    return label, float(conf)


def parse_margin_reply(content: str) -> float:
    score = parse_json_object(content).get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
        raise LLMReplyError(f"bad score {score!r}")
    return float(score)


@dataclass
class Stats:
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    first_error: str = ""  # the first failed item's reason (key scrubbed): what the CLI and the log say
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **kw) -> None:
        with self._lock:
            for k, v in kw.items():
                setattr(self, k, getattr(self, k) + v)

    def failed(self, reason: str) -> None:
        with self._lock:
            self.errors += 1
            first = not self.first_error
            if first:
                self.first_error = reason
        if first:
            LOG.warning("LLM endpoint: an item could not be typed: %s", reason)

    def as_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("calls", "cache_hits", "retries", "errors", "prompt_tokens",
                                            "completion_tokens")}
        d["mean_latency_ms"] = 1000 * self.latency_s / self.calls if self.calls else 0.0
        d["first_error"] = self.first_error
        return d


class ResponseCache:
    """DuckDB table (key, prompt_version, model, reply, created) — one row per item hash and prompt version."""

    def __init__(self, path: str | Path | None):
        import duckdb

        self.path = str(path) if path else ":memory:"
        try:
            if path:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._con = duckdb.connect(self.path)
        except (OSError, duckdb.Error) as exc:
            reason = str(exc).splitlines()[0][:160]
            if "lock" not in reason.lower():  # a folder, no rights, a damaged file: the user's to fix
                raise RuntimeError(f"cannot open the LLM reply cache {self.path} ({reason}); set AAC_LLM_CACHE to "
                                   "another file") from None
            # another process holds it (a second run, or the other Dask workers): answers are still right, only
            # this process's replies go uncached
            LOG.warning("LLM reply cache %s is in use by another process: this process keeps its replies in "
                        "memory only", self.path)
            self.path = ":memory:"
            self._con = duckdb.connect(self.path)
        self._con.execute("CREATE TABLE IF NOT EXISTS llm_cache (key VARCHAR PRIMARY KEY, prompt_version VARCHAR, "
                          "model VARCHAR, reply VARCHAR, created DOUBLE)")
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._con.execute("SELECT reply FROM llm_cache WHERE key = ?", [key]).fetchall()
        return row[0][0] if row else None

    def put(self, key: str, version: str, model: str, reply: str) -> None:
        with self._lock:
            self._con.execute("INSERT OR REPLACE INTO llm_cache VALUES (?, ?, ?, ?, ?)",
                              [key, version, model, reply, time.time()])

    def close(self) -> None:
        self._con.close()


def default_cache_path() -> Path:
    return Path(os.environ.get("AAC_LLM_CACHE") or Path.home() / ".cache" / "aac" / "llm_cache.duckdb")


def _post_within(client, url: str, body: dict, timeout: float):
    """POST whose whole reply must arrive within ``timeout`` seconds.

    httpx's timeout bounds each read, so an endpoint that trickles a byte at a time could hold a worker for
    ever; the body is streamed and the deadline checked between chunks."""
    import httpx

    deadline = time.monotonic() + timeout
    with client.stream("POST", url, json=body) as response:
        chunks = []
        for chunk in response.iter_bytes():  # decoded (gzip too)
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout(f"reply not complete within {timeout:g} s")
        # the body is decoded already: the headers that describe its wire form would make httpx decode it again
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
        return httpx.Response(response.status_code, headers=headers, content=b"".join(chunks),
                              request=response.request)


class ChatClient:
    """Minimal OpenAI-compatible chat client: retries, concurrency limit, accounting, cached replies."""

    def __init__(self, base_url: str | None, model: str | None, api_key: Secret | None = None, timeout: float = 30.0,
                 retries: int = 2, concurrency: int = 4, cache: str | Path | None | bool = True, backoff: float = 0.5):
        base_url = base_url or os.environ.get("AAC_LLM_BASE_URL")
        if not base_url:
            # a ValueError: the CLI's one-line error for a missing setting, whichever command asked for the classifier
            raise ValueError("LLM classifiers need an OpenAI-compatible endpoint: --llm-base-url where the command has "
                             "it, else AAC_LLM_BASE_URL")
        self.base_url = base_url.rstrip("/")
        self.model = model or os.environ.get("AAC_LLM_MODEL") or "gpt-4o-mini"
        self.api_key = api_key if api_key is not None else api_key_from_env()
        self.timeout, self.retries, self.concurrency, self.backoff = timeout, retries, concurrency, backoff
        self.cache = ResponseCache(default_cache_path() if cache is True else (cache or None))
        self.stats = Stats()
        self._client = None
        self._client_lock = threading.Lock()
        self._refused: EndpointRefused | None = None
        self._answered = False  # the endpoint has answered once: refused connections are then an outage, retried
        self._unreachable = 0  # connections refused so far, every one before any answer

    def _http(self):
        with self._client_lock:  # one client for all worker threads
            if self._client is None:
                import httpx

                headers = {"Content-Type": "application/json"}
                if self.api_key:
                    headers["Authorization"] = f"Bearer {self.api_key.reveal()}"
                self._client = httpx.Client(timeout=self.timeout, headers=headers)
            return self._client

    def key(self, version: str, item: ItemInput) -> str:
        raw = json.dumps([version, self.base_url, self.model, list(item.section), item.text], ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def ask(self, version: str, system: str, item: ItemInput, parse):
        """Parsed answer for one item (cached), or raises the last error after the retries."""
        import httpx

        key = self.key(version, item)
        cached = self.cache.get(key)
        if cached is not None:
            self.stats.add(cache_hits=1)
            return parse(cached)
        user = (f"Section: {' > '.join(item.section)}\n" if item.section else "") + f"Item: {item.text}"
        body = {"model": self.model, "temperature": 0, "response_format": {"type": "json_object"},
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        last: Exception | None = None
        wait = 0.0
        for attempt in range(self.retries + 1):
            if self._refused is not None:
                last = self._refused
                break
            if attempt:
                self.stats.add(retries=1)
                time.sleep(max(wait, self.backoff * 2 ** (attempt - 1)))
            wait = 0.0
            client = self._http()
            t0 = time.perf_counter()
            try:
                r = _post_within(client, f"{self.base_url}/chat/completions", body, self.timeout)
                self.stats.add(calls=1, latency_s=time.perf_counter() - t0)
                self._answered = True
                if r.status_code == 429 or r.status_code >= 500:
                    last, wait = RuntimeError(f"HTTP {r.status_code}"), _retry_after(r)
                    continue
                if r.status_code >= 400:
                    message = _scrub(f"HTTP {r.status_code}: {r.text}", self.api_key)[:200]
                    if r.status_code in (401, 403, 404):
                        self._refused = last = EndpointRefused(message)
                    else:
                        last = RuntimeError(message)
                    break  # a client error: asking again cannot help
                data = r.json()
                content = data["choices"][0]["message"]["content"]
                usage = data.get("usage") or {}
                try:
                    self.stats.add(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                                   completion_tokens=int(usage.get("completion_tokens") or 0))
                except (TypeError, ValueError, AttributeError):
                    pass  # odd accounting must not cost a valid answer
                answer = parse(content)
                self.cache.put(key, version, self.model, canonical_reply(content))
                return answer
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                self.stats.add(calls=1, latency_s=time.perf_counter() - t0)
                last = RuntimeError(_scrub(f"{type(exc).__name__}: {exc}", self.api_key))
                if isinstance(exc, httpx.ConnectError) and not self._answered:
                    self._unreachable += 1
                    if self._unreachable >= UNREACHABLE_AFTER:  # a wrong URL or a server that is not there
                        self._refused = last = EndpointRefused(
                            _scrub(f"cannot connect to {self.base_url} ({exc})", self.api_key)[:200])
                        break
            except (LLMReplyError, KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
                last = exc if isinstance(exc, LLMReplyError) else LLMReplyError(
                    _scrub(f"malformed response: {exc!r}", self.api_key)[:120])
        self.stats.failed(str(last))
        raise last  # type: ignore[misc]

    def map(self, version: str, system: str, items: Sequence[ItemInput], parse) -> list:
        """Answers in item order; an item that failed after retries yields its exception instead."""

        def one(item):
            try:
                return self.ask(version, system, item, parse)
            except Exception as exc:  # recorded per item: one bad reply must not sink the batch
                return exc

        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            return list(pool.map(one, items))


def stats_of(clf) -> dict:
    """Request, token, latency and first-error figures of an LLM variant or of a cascade's LLM stage ({} else)."""
    stage = getattr(clf, "llm", None) or clf
    stats = getattr(stage, "stats", None)
    return stats if isinstance(stats, dict) else {}


def llm_options(name: str, base_url: str | None = None, model: str | None = None) -> dict:
    """get_classifier options for ``name`` from the CLI's --llm-base-url / --llm-model (or AAC_LLM_BASE_URL):
    the LLM variants take them as they are; ``cascade`` gets an LLM stage only when an endpoint is configured."""
    if name in ("llm", "safetymargin"):
        return {"base_url": base_url, "model": model}
    if name == "cascade" and (base_url or os.environ.get("AAC_LLM_BASE_URL")):
        return {"llm": LLMClassifier(base_url=base_url, model=model)}
    return {}


def _failed(source: str) -> Prediction:
    return Prediction("C", tuple([0.2] * 5), 0.2, True, source)  # abstained -> hard lane; label C by caution


class LLMClassifier:
    name = "llm"

    def __init__(self, base_url: str | None = None, model: str | None = None, **client_options):
        self.client = ChatClient(base_url, model, **client_options)

    @property
    def fingerprint(self) -> str:
        """Prompt (version and text), endpoint and model name: what its (cached) answers depend on."""
        return make_fingerprint(self.name, 1, PROMPT_VERSION_LLM, SYSTEM_LLM, self.client.base_url, self.client.model)

    @property
    def stats(self) -> dict:
        return self.client.stats.as_dict()

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        out = []
        for ans in self.client.map(PROMPT_VERSION_LLM, SYSTEM_LLM, items, parse_type_reply):
            if isinstance(ans, Exception):
                out.append(_failed("llm:error"))
            else:
                label, conf = ans
                out.append(Prediction(label, one_hot(label, conf), conf, False, self.name))
        return out


class SafetyMarginClassifier:
    name = "safetymargin"

    def __init__(self, base_url: str | None = None, model: str | None = None, threshold: float = 0.5,
                 fallback=None, **client_options):
        self.client = ChatClient(base_url, model, **client_options)
        self.threshold = threshold
        self._fallback = fallback

    @property
    def fingerprint(self) -> str:
        """Prompt, endpoint, model, threshold and the fingerprint of the classifier giving the non-C labels."""
        fallback = fingerprint_of(self._fallback_classifier()) or "unknown"
        return make_fingerprint(self.name, 1, PROMPT_VERSION_MARGIN, SYSTEM_MARGIN, self.client.base_url,
                                self.client.model, self.threshold, fallback)

    @property
    def stats(self) -> dict:
        return self.client.stats.as_dict()

    def _fallback_classifier(self):
        if self._fallback is None:
            from aac.classifiers.base import get_classifier

            self._fallback = get_classifier("default")
        return self._fallback

    def _other_labels(self, items: Sequence[ItemInput]) -> list[Prediction]:
        return self._fallback_classifier().predict(items)

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        scores = self.client.map(PROMPT_VERSION_MARGIN, SYSTEM_MARGIN, items, parse_margin_reply)
        fallback = self._other_labels(items)
        out = []
        for score, fb in zip(scores, fallback):
            if isinstance(score, Exception):
                out.append(_failed("safetymargin:error"))
                continue
            rest = [p for t, p in zip(TYPES, fb.proba) if t != "C"]
            total = sum(rest) or 1.0
            proba = [score] + [(1 - score) * p / total for p in rest]  # TYPES order: C first
            if score > self.threshold:
                out.append(Prediction("C", tuple(proba), score, False, self.name))
            else:
                k = max(range(1, 5), key=lambda i: proba[i])
                out.append(Prediction(TYPES[k], tuple(proba), proba[k], False, self.name))
        return out
