import numpy as np

from aac.classifiers.static_embed import StaticEmbedding


def test_distilled_embedding_puts_synonyms_nearer_than_unrelated_words():
    se = StaticEmbedding()
    v = se.encode(["delete the customer records", "erase the client data", "prefer tabs for indentation"])
    assert v[0] @ v[1] > v[0] @ v[2]


def test_distilled_embedding_is_unit_length_and_zero_for_empty_text():
    v = StaticEmbedding().encode(["Never commit .env files", ""])
    assert v.shape == (2, 64)
    assert abs(float(np.linalg.norm(v[0])) - 1.0) < 1e-4
    assert not v[1].any()


def test_encoder_on_the_distilled_backend_never_imports_torch():
    import subprocess
    import sys

    code = ("import sys; from aac.classifiers.base import get_classifier, ItemInput; "
            "p = get_classifier('encoder', backend='distilled').predict([ItemInput('Run npm test before pushing.')]); "
            "print(p[0].label, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] in "CPBFE" and out[1] == "False"


def test_segment_sums_and_linear_scores_equal_plain_sums_across_chunks():
    """Both sum a few hundred groups per step (cache-sized gathers); chunk edges and empty groups change nothing."""
    import numpy as np

    from aac.classifiers.features import linear_scores
    from aac.classifiers.static_embed import SUM_CHUNK, segment_sums

    rng = np.random.default_rng(0)
    table = rng.normal(size=(50, 8)).astype(np.float32)
    lens = rng.integers(0, 4, size=2 * SUM_CHUNK + 37)
    lens[SUM_CHUNK - 1: SUM_CHUNK + 2] = 0  # empty groups astride a chunk edge
    lens[-1] = 0
    flat = rng.integers(0, 50, size=int(lens.sum()))
    got = segment_sums(table, flat.tolist(), lens.tolist())
    ends = np.cumsum(lens)
    want = np.stack([table[flat[e - n:e]].sum(axis=0) if n else np.zeros(8, np.float32) for n, e in zip(lens, ends)])
    assert np.allclose(got, want, atol=1e-5)
    indptr = np.concatenate([[0], ends]).astype(np.int64)
    bias = rng.normal(size=8).astype(np.float32)
    scores = linear_scores(table, bias, flat.astype(np.int64), indptr)
    assert np.allclose(scores, want + bias, atol=1e-5)
    assert np.array_equal(segment_sums(table, flat.tolist(), lens.tolist())[:40],
                          segment_sums(table, flat[:int(ends[39])].tolist(), lens[:40].tolist()))  # batch-independent
