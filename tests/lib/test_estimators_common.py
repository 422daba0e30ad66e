"""What every dr_lib estimator must do, whatever its method.

scikit-learn's own estimator checks run on every estimator (chapters that add an
estimator add it to ESTIMATORS, and its non-applicable checks to EXPECTED_FAILED_CHECKS
with a reason). The tests below them cover what those checks do not: an estimator owns
its state, so changing the caller's array after ``fit`` changes nothing.
"""

import pickle

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from dr_lib import (
    PCA,
    UMAP,
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
    ClassicalMDS(2, dissimilarity="precomputed"),
    KernelPCA(2),
    KernelPCA(None, kernel="poly", degree=2),
    Isomap(5, 2),
    LaplacianEigenmaps(5, 2),
    LocallyLinearEmbedding(5, 2),
    UMAP(5, n_epochs=20, random_state=0),
    UMAP(5, n_epochs=20, init="pca", random_state=0),
]

# The checks' data are well-separated clusters: make_blobs (two groups of 15 points, or
# three) and the iris data, whose setosa class lies apart. Their 5-nearest-neighbour
# graph is disconnected, and dr_lib refuses a disconnected graph by design (a ValueError
# that names the number of components and the fix; scikit-learn's Isomap joins the
# components with a warning instead). test_pickled_and_piped_estimators_agree below
# repeats these checks on connected data.
_DISCONNECTED = (
    "the check's clustered data give a disconnected 5-nearest-neighbour graph, which "
    "dr_lib rejects with a ValueError by design"
)
# A pairwise estimator gets a linear-kernel (Gram) matrix from the checks
# (sklearn.utils.estimator_checks._enforce_estimator_tags_X): it has a non-zero diagonal
# and negative entries, so it is not a dissimilarity matrix, and dr_lib rejects it.
# test_mds.py covers ClassicalMDS(dissimilarity="precomputed") on real distances.
_GRAM_NOT_DISTANCES = (
    "the checks pass a Gram matrix as the precomputed input; it is not a matrix of "
    "distances (non-zero diagonal, negative entries) and dr_lib rejects it"
)
_PRECOMPUTED_FAILURES = [
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_dtype_object",
    "check_estimators_dtypes",
    "check_estimators_fit_returns_self",
    "check_estimators_nan_inf",
    "check_estimators_overwrite_params",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_fit2d_1feature",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_pipeline_consistency",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
]
_GRAPH_FAILURES = {
    Isomap: [
        "check_estimators_pickle",
        "check_pipeline_consistency",
        "check_positive_only_tag_during_fit",
        "check_transformer_data_not_an_array",
        "check_transformer_general",
        "check_transformer_preserve_dtypes",
    ],
    LaplacianEigenmaps: [
        "check_estimators_pickle",
        "check_pipeline_consistency",
        "check_positive_only_tag_during_fit",
    ],
}


# UMAP.transform places points into the fixed map by a short optimisation of each
# (umap-learn's definition; TSNE.transform does the same, test_tsne.py): applied to the
# training points it lands near, not on, their fit_transform positions, which these
# checks require to 1e-2. (umap-learn passes them by returning embedding_ when it
# recognises the training data by a hash; dr_lib places what it is given.)
_TRANSFORM_IS_A_PLACEMENT = (
    "transform re-places the training points into the fixed map by optimisation; it "
    "agrees with fit_transform to the map's resolution, not to the checks' 1e-2"
)
_PLACEMENT_FAILURES = [
    "check_transformer_data_not_an_array",
    "check_transformer_general",
]


def expected_failed_checks(estimator):
    """The scikit-learn checks that do not apply to ``estimator``, with the reason."""
    if getattr(estimator, "dissimilarity", None) == "precomputed":
        return dict.fromkeys(_PRECOMPUTED_FAILURES, _GRAM_NOT_DISTANCES)
    if isinstance(estimator, UMAP):
        return dict.fromkeys(_PLACEMENT_FAILURES, _TRANSFORM_IS_A_PLACEMENT)
    return dict.fromkeys(_GRAPH_FAILURES.get(type(estimator), []), _DISCONNECTED)


@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=expected_failed_checks, xfail_strict=True
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# --------------------------------------------------------- beyond scikit-learn's checks


def _smooth_data(n_samples=60, seed=3):
    """Points on a gently curved sheet in R^4: every neighbour graph here is
    connected."""
    rng = np.random.default_rng(seed)
    u, v = rng.uniform(0, 1, (2, n_samples))
    noise = 0.01 * rng.normal(size=(n_samples, 2))
    return np.column_stack([u, v, np.sin(2 * u) + noise[:, 0], u * v + noise[:, 1]])


def _data_estimators():
    """Every estimator that takes a data matrix (not precomputed distances)."""
    return [e for e in ESTIMATORS if getattr(e, "dissimilarity", None) != "precomputed"]


@pytest.mark.parametrize("estimator", _data_estimators(), ids=repr)
def test_fit_leaves_the_input_untouched(estimator):
    # check_array does not copy float64 input, so an estimator must never write into it.
    X = _smooth_data()
    before = X.copy()
    estimator.fit_transform(X)
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize("estimator", _data_estimators(), ids=repr)
def test_fit_transform_is_deterministic(estimator):
    X = _smooth_data()
    np.testing.assert_array_equal(
        estimator.fit_transform(X), estimator.fit_transform(X)
    )


def _fitted_state(model):
    """Every fitted array of ``model`` (attributes ending in "_"), copied."""
    return {
        name: np.array(value, copy=True)
        for name, value in vars(model).items()
        if name.endswith("_") and isinstance(value, np.ndarray)
    }


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_changing_the_callers_array_after_fit_changes_nothing(estimator):
    """An estimator owns its state: it keeps copies, or derived quantities only."""
    X = _smooth_data()
    if getattr(estimator, "dissimilarity", None) == "precomputed":
        X = np.linalg.norm(X[:, None] - X[None], axis=-1)
    model = estimator.fit(X)
    state = _fitted_state(model)
    X_new = _smooth_data(7, seed=4)
    before = model.transform(X_new) if hasattr(model, "transform") else None
    X *= -3.0  # the caller reuses its array
    X += 1.0
    for name, value in _fitted_state(model).items():
        np.testing.assert_array_equal(value, state[name], err_msg=name)
    if before is not None:
        np.testing.assert_array_equal(model.transform(X_new), before)


@pytest.mark.parametrize("estimator", _data_estimators(), ids=repr)
def test_pickled_and_piped_estimators_agree(estimator):
    """check_estimators_pickle and check_pipeline_consistency, on connected data."""
    X = _smooth_data()
    fitted = estimator.fit(X)
    restored = pickle.loads(pickle.dumps(fitted))
    if hasattr(fitted, "transform"):
        np.testing.assert_array_equal(restored.transform(X), fitted.transform(X))
    for name, value in _fitted_state(fitted).items():
        np.testing.assert_array_equal(_fitted_state(restored)[name], value)
    scaled = StandardScaler().fit_transform(X)
    piped = make_pipeline(StandardScaler(), estimator).fit_transform(X)
    np.testing.assert_allclose(piped, estimator.fit_transform(scaled), atol=1e-12)
