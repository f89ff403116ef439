"""A logistic regression over named, standardised features: fitted by Newton's method, saved as
a small JSON file, read once per process. The watch model and the chat's "about the open paper
or a new search" model are both one of these."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LogisticModel:
    """P(y = 1) = sigmoid(standardised x[names] . weights + bias); `threshold` is the probability
    the fitting chose for a yes."""

    names: tuple[str, ...]
    mean: FloatArray
    scale: FloatArray
    weights: FloatArray
    bias: float
    threshold: float

    def probability(self, rows: Sequence[Sequence[float]], columns: Sequence[str]) -> FloatArray:
        """P(y = 1) per row; `columns` names the rows' values (a superset of `names`)."""
        if not rows:
            return np.zeros(0)
        where = [columns.index(name) for name in self.names]
        x = (np.asarray(rows, dtype=np.float64)[:, where] - self.mean) / self.scale
        return np.asarray(1.0 / (1.0 + np.exp(-(x @ self.weights + self.bias))))

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(self.names),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "weights": self.weights.tolist(),
            "bias": self.bias,
            "threshold": self.threshold,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], known: Sequence[str]) -> LogisticModel:
        """Read a saved model; ValueError when it names a feature not in `known`."""
        names = tuple(str(name) for name in data["features"])
        unknown = set(names) - set(known)
        if unknown:
            raise ValueError(f"the model names features this code lacks: {sorted(unknown)}; refit")

        def array(key: str) -> FloatArray:
            return np.asarray(data[key], dtype=np.float64)

        return cls(
            names,
            array("mean"),
            array("scale"),
            array("weights"),
            float(data["bias"]),
            float(data["threshold"]),
        )


def fit_logistic(
    x: FloatArray,
    y: FloatArray,
    l2: float,
    names: Sequence[str],
    columns: Sequence[str],
    weights: FloatArray | None = None,
) -> LogisticModel:
    """On the `names` columns of `x` (columns named by `columns`): standardise, then Newton's
    method on the (row-weighted) summed log-loss + l2/2 |w|^2, the bias not penalised."""
    x = x[:, [list(columns).index(name) for name in names]]
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    row_weight = np.ones(len(x)) if weights is None else weights
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        gradient = z.T @ (row_weight * (p - y)) + penalty * w
        curvature = row_weight * p * (1 - p)
        hessian = (z * curvature[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return LogisticModel(tuple(names), mean, scale, w[:-1], float(w[-1]), 0.5)
