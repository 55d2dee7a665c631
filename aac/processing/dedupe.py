"""Exact and near-duplicate detection whose decisions do not depend on the order rows arrive in.

Exact: SHA-256 of the content after whitespace normalisation (runs of whitespace -> one space). Of each group
one canonical copy is kept; the others are dropped with ``exact_duplicate``.

Near: MinHash (datasketch) over word 5-shingles, banded LSH with datasketch's optimal (bands, rows) for the
threshold (default Jaccard 0.85, recall-weighted); a candidate pair from a shared band is verified by the signatures' estimated
Jaccard; clusters are the connected components. Near duplicates are *kept* (they are different files, and their
cluster is the authorship signal): every member records ``near_dup_of`` = the cluster's canonical artifact,
``dup_cluster_size`` (members, exact copies included) and ``dup_cluster_repos`` (distinct repositories). A cluster
spread over many repositories is a copied template.

Canonical rule (a total order, so any batch order gives the same answer): publishable licence first, then most
stars, then oldest ``pushed_at``, then earliest ``collected_at``, then repo, then path.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import duckdb
import numpy as np
import pyarrow as pa

_PRIME = np.uint64(1_000_003)
_MASK32 = np.uint64(0xFFFFFFFF)


def content_sha256(text: str) -> str:
    """Hash of the text with whitespace runs collapsed, so re-indented or re-wrapped copies are exact duplicates."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


_WORD_BYTE = np.zeros(256, dtype=bool)
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_":
    _WORD_BYTE[_c] = True
_WORD_BYTE[0x80:] = True  # any non-ASCII byte: letters of other scripts (and some punctuation) count as word bytes
_P = np.uint64(0x100000001B3)  # odd, so invertible modulo 2**64
_P_INV = np.uint64(pow(0x100000001B3, -1, 2**64))
_POW: list[np.ndarray] = [np.ones(1, np.uint64), np.ones(1, np.uint64)]


def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """P**i and P**-i (mod 2**64) for i < n, grown on demand."""
    if len(_POW[0]) < n:
        m = max(n, 2 * len(_POW[0]))
        with np.errstate(over="ignore"):
            _POW[0] = np.cumprod(np.concatenate([[np.uint64(1)], np.full(m - 1, _P, np.uint64)]), dtype=np.uint64)
            _POW[1] = np.cumprod(np.concatenate([[np.uint64(1)], np.full(m - 1, _P_INV, np.uint64)]), dtype=np.uint64)
    return _POW[0][:n], _POW[1][:n]


def word_hashes(text: str) -> np.ndarray:
    """A stable 64-bit polynomial hash per lowercase token, vectorised over the UTF-8 bytes (no Python loop per word).

    Tokens: runs of ASCII letters/digits/underscore, and every non-ASCII character on its own (scripts without
    spaces, such as Chinese or Japanese, get character shingles instead of one giant "word" per sentence).
    """
    data = np.frombuffer(text.lower().encode("utf-8", errors="replace"), dtype=np.uint8)
    if data.size == 0:
        return np.zeros(0, np.uint64)
    is_word = _WORD_BYTE[data]
    prev_word = np.concatenate([[False], is_word[:-1]])
    prev_ascii = np.concatenate([[True], data[:-1] < 0x80])
    lead = data >= 0xC0  # first byte of a multi-byte character
    starts_mask = is_word & (~prev_word | lead | ((data < 0x80) & ~prev_ascii))
    next_start = np.concatenate([starts_mask[1:], [True]])
    next_word = np.concatenate([is_word[1:], [False]])
    ends_mask = is_word & (~next_word | next_start)
    starts = np.nonzero(starts_mask)[0]
    ends = np.nonzero(ends_mask)[0] + 1
    if starts.size == 0:
        return np.zeros(0, np.uint64)
    pw, inv = _powers(data.size + 1)
    with np.errstate(over="ignore"):
        prefix = np.concatenate([[np.uint64(0)], np.cumsum((data.astype(np.uint64) + np.uint64(1)) * pw[:data.size], dtype=np.uint64)])
        return (prefix[ends] - prefix[starts]) * inv[starts]


def shingle_hashes(text: str, k: int = 5) -> np.ndarray:
    """Distinct 32-bit hashes of the lowercase word k-shingles (a text of at most k words is one shingle)."""
    wh = word_hashes(text)
    if wh.size == 0:  # no words: one shingle of the text itself, so wordless files match only their own copies
        digest = hashlib.blake2b(text.strip().encode("utf-8", "surrogatepass"), digest_size=4).digest()
        return np.array([int.from_bytes(digest, "little")], dtype=np.uint64)
    n = max(1, wh.size - k + 1)
    acc = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(min(k, wh.size)):  # polynomial combination of k consecutive words, vectorised over positions
            acc = acc * _PRIME + wh[j:j + n]
    return np.unique((acc ^ (acc >> np.uint64(32))) & _MASK32)


RECALL_WEIGHTS = (0.1, 0.9)


@dataclass(frozen=True)
class NearDupConfig:
    threshold: float = 0.85
    num_perm: int = 64  # cost is shingles x num_perm; 64 estimates Jaccard within ~0.05 at 0.85
    shingle: int = 5
    seed: int = 1

    @cached_property
    def _template(self):
        from datasketch import MinHash

        return MinHash(num_perm=self.num_perm, seed=self.seed, hashfunc=int)

    @cached_property
    def bands(self) -> tuple[int, int]:
        """datasketch's optimal (bands, rows) for the threshold, weighted towards recall (false negatives 0.9,
        false positives 0.1): every candidate pair is verified by its estimated Jaccard anyway."""
        from datasketch import MinHashLSH

        lsh = MinHashLSH(threshold=self.threshold, num_perm=self.num_perm, weights=RECALL_WEIGHTS)
        return lsh.b, lsh.r

    def signature(self, text: str) -> np.ndarray:
        """The MinHash signature (uint32[num_perm]) of the text's shingles."""
        from datasketch import MinHash

        t = self._template
        m = MinHash(num_perm=self.num_perm, seed=self.seed, hashfunc=int, permutations=t.permutations, scheme=t.scheme)
        m.update_batch(shingle_hashes(text, self.shingle).tolist())
        return np.asarray(m.hashvalues, dtype=np.uint32)


def _similar_to(sig: np.ndarray, target: np.ndarray, threshold: float, chunk: int) -> np.ndarray:
    """Whether each row's estimated Jaccard with row ``target[i]`` reaches the threshold (chunked: bounded memory)."""
    ok = np.empty(sig.shape[0], dtype=bool)
    for s in range(0, sig.shape[0], chunk):
        ok[s:s + chunk] = (sig[s:s + chunk] == sig[target[s:s + chunk]]).mean(axis=1) >= threshold
    return ok


def near_components(sig: np.ndarray, threshold: float, bands: int, rows: int, chunk: int = 200_000,
                    _depth: int = 0) -> np.ndarray:
    """For signatures in canonical order, the index of each row's cluster canonical (the smallest index of its cluster).

    Rows sharing an LSH band are compared with the band's first (most canonical) row; pairs whose estimated
    Jaccard reaches the threshold are edges. Linear in the number of rows, even for huge template clusters.
    A component can chain (A~B~C with A and C far apart): every member must itself reach the threshold with its
    canonical, and the members that do not are clustered again among themselves (a few rounds, then alone).
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = sig.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    src, dst = [], []
    for b in range(bands):
        band = np.ascontiguousarray(sig[:, b * rows:(b + 1) * rows])
        keys = band.view(np.dtype((np.void, band.dtype.itemsize * band.shape[1]))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        rep = first[inverse.ravel()]
        members = np.nonzero(rep != np.arange(n))[0]
        for s in range(0, len(members), chunk):
            m = members[s:s + chunk]
            sim = (sig[m] == sig[rep[m]]).mean(axis=1)
            ok = sim >= threshold
            src.append(m[ok])
            dst.append(rep[m][ok])
    src = np.concatenate(src) if src else np.zeros(0, dtype=np.int64)
    dst = np.concatenate(dst) if dst else np.zeros(0, dtype=np.int64)
    graph = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    canon = np.full(labels.max() + 1, n, dtype=np.int64)
    np.minimum.at(canon, labels, np.arange(n))
    canon_of = canon[labels]
    far = np.nonzero(~_similar_to(sig, canon_of, threshold, chunk))[0]
    if far.size:
        sub = near_components(sig[far], threshold, bands, rows, chunk, _depth + 1) if _depth < 3 else np.arange(far.size)
        canon_of[far] = far[sub]
    return canon_of


DEDUPE_SCHEMA = pa.schema([
    pa.field("artifact_id", pa.string()),
    pa.field("exact_duplicate", pa.bool_()),
    pa.field("near_dup_of", pa.string()),
    pa.field("dup_cluster_size", pa.int32()),
    pa.field("dup_cluster_repos", pa.int32()),
])


def dedupe(meta: pa.Table, signatures: dict[str, np.ndarray], config: NearDupConfig = NearDupConfig()) -> pa.Table:
    """Dedupe decisions for every row of ``meta``.

    ``meta`` columns: artifact_id, repo, path, stars, pushed_at, collected_at, publishable, content_sha256 (one row per
    artifact that survived normalisation). ``signatures``: content_sha256 -> MinHash signature.
    Returns DEDUPE_SCHEMA rows (same artifacts, any order).
    """
    if meta.num_rows == 0:
        return DEDUPE_SCHEMA.empty_table()
    con = duckdb.connect()
    try:
        con.register("meta", meta)
        ranked = con.sql(
            """
            SELECT artifact_id, repo, content_sha256 AS sha,
                   row_number() OVER (ORDER BY publishable DESC NULLS LAST, stars DESC NULLS LAST, pushed_at ASC NULLS LAST,
                                      collected_at ASC NULLS LAST, repo, path) - 1 AS rank
            FROM meta
            """
        ).to_arrow_table()
        con.register("ranked", ranked)
        # one row per distinct content, ordered by its canonical copy's rank
        shas = con.sql("SELECT sha, min(rank) AS rank FROM ranked GROUP BY sha ORDER BY rank").to_arrow_table()
        sha_list = shas.column("sha").to_pylist()
        sig = np.stack([signatures[s] for s in sha_list]) if sha_list else np.zeros((0, config.num_perm), np.uint32)
        bands, rows = config.bands
        comp = near_components(sig, config.threshold, bands, rows)
        shas = shas.append_column("cluster_rank", pa.array(shas.column("rank").to_numpy()[comp]))
        con.register("shas", shas)
        out = con.sql(
            """
            WITH r AS (
                SELECT ranked.artifact_id, ranked.repo, ranked.rank, ranked.sha, shas.rank AS sha_rank, shas.cluster_rank
                FROM ranked JOIN shas USING (sha)
            ),
            canon AS (SELECT rank, artifact_id FROM ranked),
            clusters AS (
                SELECT cluster_rank, count(*) AS size, count(DISTINCT repo) AS repos FROM r GROUP BY cluster_rank
            )
            SELECT r.artifact_id,
                   r.rank <> r.sha_rank AS exact_duplicate,
                   CASE WHEN r.rank = r.cluster_rank THEN NULL ELSE canon.artifact_id END AS near_dup_of,
                   CAST(clusters.size AS INTEGER) AS dup_cluster_size,
                   CAST(clusters.repos AS INTEGER) AS dup_cluster_repos
            FROM r JOIN clusters USING (cluster_rank) JOIN canon ON canon.rank = r.cluster_rank
            """
        ).to_arrow_table()
    finally:
        con.close()
    return out.cast(DEDUPE_SCHEMA)
