"""The shared logistic regression: fitting, probabilities, saving and refusing a stale file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from retrieval.logistic import LogisticModel, fit_logistic

COLUMNS = ("signal", "noise", "unused")


def _data(rows: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(rows, 3))
    y = (x[:, 0] + 0.1 * rng.normal(size=rows) > 0).astype(np.float64)
    return x, y


def test_a_fit_puts_its_weight_on_the_feature_that_decides() -> None:
    x, y = _data()
    model = fit_logistic(x, y, 1.0, ("signal", "noise"), COLUMNS)
    assert model.weights[0] > 2.0
    assert abs(model.weights[1]) < 0.5
    said = model.probability(x.tolist(), COLUMNS) >= model.threshold
    assert (said == (y > 0)).mean() > 0.9


def test_a_stronger_penalty_shrinks_the_weights() -> None:
    x, y = _data()
    loose = fit_logistic(x, y, 0.1, ("signal",), COLUMNS)
    tight = fit_logistic(x, y, 1000.0, ("signal",), COLUMNS)
    assert 0 < tight.weights[0] < loose.weights[0]


def test_row_weights_count_a_row_as_often_as_its_weight() -> None:
    x, y = _data(60)
    doubled = fit_logistic(np.vstack([x, x]), np.concatenate([y, y]), 1.0, ("signal",), COLUMNS)
    weighted = fit_logistic(x, y, 1.0, ("signal",), COLUMNS, weights=np.full(60, 2.0))
    assert weighted.weights[0] == pytest.approx(doubled.weights[0], rel=1e-6)


def test_a_saved_model_reads_back_the_same_and_a_stale_one_is_refused() -> None:
    x, y = _data()
    model = fit_logistic(x, y, 1.0, ("signal", "noise"), COLUMNS)
    saved = json.loads(json.dumps(model.to_json()))
    again = LogisticModel.from_json(saved, COLUMNS)
    assert again.probability(x[:5].tolist(), COLUMNS) == pytest.approx(
        model.probability(x[:5].tolist(), COLUMNS)
    )
    with pytest.raises(ValueError, match="noise"):
        LogisticModel.from_json(saved, ("signal", "unused"))
    assert model.probability([], COLUMNS).shape == (0,)
