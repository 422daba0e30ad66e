"""Checks every dr_lib estimator must pass, whatever its method."""

import numpy as np
import pytest

from dr_lib import (
    PCA,
    ClassicalMDS,
    Isomap,
    KernelPCA,
    LaplacianEigenmaps,
    LocallyLinearEmbedding,
)

ESTIMATORS = [
    PCA(2),
    PCA(2, solver="svd"),
    ClassicalMDS(2),
    KernelPCA(2),
    Isomap(10, 2),
    LaplacianEigenmaps(10, 2),
    LocallyLinearEmbedding(10, 2),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_fit_leaves_the_input_untouched(estimator):
    # check_array does not copy float64 input, so an estimator must never write into it.
    X = np.random.default_rng(3).normal(size=(30, 4))
    before = X.copy()
    estimator.fit_transform(X)
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_fit_transform_is_deterministic(estimator):
    X = np.random.default_rng(4).normal(size=(30, 4))
    np.testing.assert_array_equal(
        estimator.fit_transform(X), estimator.fit_transform(X)
    )
