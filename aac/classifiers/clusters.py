"""Optional ``trained`` feature: HDBSCAN cluster ids over PCA-reduced static sentence embeddings.

Fit at train time (label-free, on the training texts); at prediction time an item joins the cluster whose
centroid is nearest in PCA space if it lies within that cluster's radius, else it is noise (-1). The cluster id
becomes one more hashed token ("cluster:<k>"). Off by default: it costs the static model's ~1 s load and, on
the dev data (136 own + 400 gold + 110 phrasing items), it did not help: HDBSCAN found 2 clusters with 95 % of
items as noise, and grouped-CV gold C-F1 went 0.36 -> 0.35, macro-F1 0.56 -> 0.56.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from aac.classifiers.base import ItemInput


def _texts(items: Sequence[ItemInput]) -> list[str]:
    return [i.text + (" | " + " / ".join(i.section[-2:]) if i.section else "") for i in items]


@dataclass
class ClusterModel:
    mean: np.ndarray
    components: np.ndarray  # (k, d)
    centroids: np.ndarray  # (c, k)
    radii: np.ndarray  # (c,)

    @classmethod
    def fit(cls, items: Sequence[ItemInput], dims: int = 50, min_cluster_size: int = 5, seed: int = 0) -> "ClusterModel":
        import hdbscan
        from sklearn.decomposition import PCA

        from aac.classifiers.embeddings import StaticBackend

        E = StaticBackend().encode(_texts(items))
        pca = PCA(n_components=min(dims, E.shape[1], len(items) - 1), random_state=seed).fit(E)
        Z = pca.transform(E)
        labels = hdbscan.HDBSCAN(min_cluster_size=min_cluster_size).fit_predict(Z)
        ids = sorted(k for k in set(labels) if k >= 0)
        cents = np.stack([Z[labels == k].mean(axis=0) for k in ids]) if ids else np.zeros((0, Z.shape[1]))
        radii = np.array([np.linalg.norm(Z[labels == k] - c, axis=1).max() for k, c in zip(ids, cents)])
        return cls(pca.mean_.astype(np.float32), pca.components_.astype(np.float32), cents.astype(np.float32),
                   radii.astype(np.float32))

    def assign(self, items: Sequence[ItemInput]) -> np.ndarray:
        from aac.classifiers.embeddings import StaticBackend

        if len(self.centroids) == 0 or not items:
            return np.full(len(items), -1)
        Z = (StaticBackend().encode(_texts(items)) - self.mean) @ self.components.T
        d = np.linalg.norm(Z[:, None, :] - self.centroids[None, :, :], axis=2)
        k = d.argmin(axis=1)
        return np.where(d[np.arange(len(k)), k] <= self.radii[k], k, -1)

    def tokens(self, items: Sequence[ItemInput]) -> list[list[str]]:
        return [[f"cluster:{k}"] for k in self.assign(items)]

    def arrays(self) -> dict[str, np.ndarray]:
        return {"cl_mean": self.mean, "cl_components": self.components, "cl_centroids": self.centroids,
                "cl_radii": self.radii}

    @classmethod
    def from_arrays(cls, z) -> "ClusterModel | None":
        if "cl_mean" not in getattr(z, "files", z):
            return None
        return cls(z["cl_mean"], z["cl_components"], z["cl_centroids"], z["cl_radii"])
