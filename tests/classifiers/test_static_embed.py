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
