"""Neighbourhood components analysis (NCA): learn a linear map for a soft nearest
neighbour.

Each sample ``x_i`` picks a neighbour ``j`` with probability
``p_ij = exp(-||W^T x_i - W^T x_j||^2) / sum_{l != i} exp(-||W^T x_i - W^T x_l||^2)``
([W] 式(10.35), with ``p_ii = 0``); ``p_i = sum_{j in Omega_i} p_ij`` is the probability
that it is classified correctly, leaving itself out (式(10.36)), and NCA maximises
``f(W) = sum_i p_i`` (式(10.37)-(10.38)) with L-BFGS (Goldberger et al., 2004). Derived
and checked in book/09_metric_learning.

The map is stored as rows, ``components_ = W^T`` of shape
``(n_components, n_features)``, as in scikit-learn:
``transform(X) = X @ components_.T``.
"""

import numpy as np
from scipy.optimize import minimize
from sklearn.utils import check_random_state

from dr_lib._validation import (
    check_array,
    check_class_labels,
    check_in,
    check_integer,
    check_linear_map,
    check_n_components,
    check_positive,
)
from dr_lib.mahalanobis import _LearnedLinearMap
from dr_lib.pca import PCA

__all__ = ["NCA", "objective", "INITS"]

#: The named initialisations of the map; an array is accepted too.
INITS = ("auto", "pca", "identity", "random")

#: Rows of the N x N matrix of neighbour weights processed at once. The gradient never
#: holds the whole matrix: a block this size stays in the processor's cache.
ROW_BLOCK = 64

#: Weights below exp(-60) = 9e-27 times the largest in their row are set to zero. A row
#: has fewer than 10^6 of them here, so its sum changes by less than 1e-20 relative: far
#: below double precision. Skipping them saves most of the exponentials, which dominate
#: the cost (and libm's exp is slowest just where it underflows).
NEGLIGIBLE_EXPONENT = -60.0


def _class_blocks(codes):
    """The sample order that groups classes, and where each class starts and ends in it.

    Returns ``order`` (a stable argsort of ``codes``) and ``bounds`` of length
    ``n_classes + 1``: class ``k`` occupies rows ``bounds[k]:bounds[k + 1]`` of
    ``X[order]``.
    """
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes))))
    return order, bounds


def _row_pieces(bounds, block):
    """Row ranges ``(start, stop, class_start, class_stop)`` of at most ``block`` rows.

    Each piece lies inside one class, whose rows are ``class_start:class_stop``.
    """
    for lo_class, hi_class in zip(bounds[:-1], bounds[1:]):
        for start in range(lo_class, hi_class, block):
            yield start, min(start + block, hi_class), lo_class, hi_class


def _objective_and_gradient(A, X, bounds):
    """``f = sum_i p_i`` and its gradient ``df/dA`` for ``X`` sorted by class.

    ``A`` (= W^T) has shape (n_components, n_features); class ``k`` occupies
    rows ``bounds[k]:bounds[k + 1]`` of ``X``. The gradient is the matrix form
    derived in book/09_metric_learning (rows of X are samples here),
    ``df/dA = 2 A X^T (diag(C^T 1) - C - C^T) X``,
    ``c_ij = p_ij (p_i - [y_i = y_j])``, whose rows sum to zero. The weights
    are made a block of rows at a time, ``E = exp(2 z_i.z_j - |z_j|^2 - max)``,
    which is ``p_ij`` up to a factor per row, so nothing of size N x N is
    stored; entries below :data:`NEGLIGIBLE_EXPONENT` are set to zero without
    calling ``exp``.
    """
    n_samples = len(X)
    k = len(A)
    Z = X @ A.T
    ones = np.ones((n_samples, 1))
    left = np.hstack([2.0 * Z, -ones])  # left @ right.T = 2 z_i.z_j - |z_j|^2
    right = np.hstack([Z, np.einsum("ij,ij->i", Z, Z)[:, None]])
    Z1 = np.hstack([Z, ones])
    C_Z = np.empty((n_samples, k))  # C @ Z
    Ct_Z1 = np.zeros((n_samples, k + 1))  # C^T @ [Z, 1]: C^T Z and the column sums
    total = 0.0
    for start, stop, lo, hi in _row_pieces(bounds, ROW_BLOCK):
        rows = slice(start, stop)
        E = left[rows] @ right.T
        diagonal = (np.arange(stop - start), np.arange(start, stop))
        E[diagonal] = -np.inf  # p_ii = 0: not in the maximum
        E -= E.max(axis=1, keepdims=True)
        E[diagonal] = NEGLIGIBLE_EXPONENT - 1.0
        kept = E > NEGLIGIBLE_EXPONENT
        np.exp(E, out=E, where=kept)
        E *= kept
        E_Z1 = E @ Z1  # last column: the normaliser of each row
        same = E[:, lo:hi]  # the neighbours of the same class
        S_Z1 = same @ Z1[lo:hi]
        inv_norm = 1.0 / E_Z1[:, -1]
        p = S_Z1[:, -1] * inv_norm  # 式(10.36)
        total += p.sum()
        a = p * inv_norm
        C_Z[rows] = a[:, None] * E_Z1[:, :k] - inv_norm[:, None] * S_Z1[:, :k]
        Ct_Z1 += E.T @ (a[:, None] * Z1[rows])
        Ct_Z1[lo:hi] -= same.T @ (inv_norm[:, None] * Z1[rows])
    V = Ct_Z1[:, -1:] * Z - C_Z - Ct_Z1[:, :k]
    return total, 2.0 * V.T @ X


def objective(X, y, components):
    """The NCA objective ``f = sum_i p_i`` ([W] 式(10.37)) and its gradient.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels, at least two classes.
    components : array-like of shape (n_components, n_features)
        The map as rows, ``W^T``: sample ``x`` is mapped to ``components @ x``.

    Returns
    -------
    value : float
        ``sum_i p_i``, the expected number of samples that the soft nearest-neighbour
        rule classifies correctly, each leaving itself out (between 0 and n_samples).
    gradient : ndarray of shape (n_components, n_features)
        ``d value / d components``.
    """
    X = check_array(X, min_samples=2)
    _, codes = check_class_labels(y, len(X))
    A = check_linear_map(components, X.shape[1], name="components")
    order, bounds = _class_blocks(codes)
    return _objective_and_gradient(A, X[order], bounds)


class NCA(_LearnedLinearMap):
    """Neighbourhood components analysis (Goldberger et al., 2004).

    Learns ``W`` (stored as ``components_ = W^T``) maximising the expected leave-one-out
    accuracy of the soft nearest-neighbour classifier, [W] 式(10.35)-(10.38); the
    learned Mahalanobis matrix is ``M = W W^T``. With ``n_components < n_features`` the
    map is also a supervised dimensionality reduction. Derived and checked in
    book/09_metric_learning.

    Parameters
    ----------
    n_components : int, optional
        Dimension D' of the map; all ``n_features`` by default.
    init : {"auto", "pca", "identity", "random"} or array, default="auto"
        Starting map. "pca": the top principal directions (dr_lib.PCA); "identity": the
        first ``n_components`` rows of the identity; "random": standard normal entries;
        an array of shape (n_components, n_features). "auto" is "pca" when
        ``n_components < min(n_samples, n_features)`` and "identity" otherwise.
        (scikit-learn's "auto" prefers an LDA start when ``n_components`` is at most the
        number of classes minus one.)
    max_iter : int, default=100
        Maximum number of L-BFGS iterations.
    tol : float, default=1e-5
        Tolerance of L-BFGS on the relative change of the objective and on the gradient
        (``scipy.optimize.minimize(..., tol=tol)``, as scikit-learn).
    random_state : int, RandomState or None, default=None
        Seeds ``init="random"``.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The learned map ``W^T``.
    n_iter_ : int
        L-BFGS iterations run. (scikit-learn's ``n_iter_`` counts one more.)
    objective_ : float
        ``sum_i p_i`` at the end ([W] 式(10.37)); divided by n_samples, the expected
        leave-one-out accuracy of the soft neighbour rule.
    classes_ : ndarray
        The class labels seen in ``fit``.
    n_features_in_ : int

    Examples
    --------
    >>> from dr_lib import NCA, datasets
    >>> X, y = datasets.digits()
    >>> NCA(n_components=2, max_iter=20).fit_transform(X, y).shape
    (1797, 2)
    """

    def __init__(
        self,
        n_components=None,
        *,
        init="auto",
        max_iter=100,
        tol=1e-5,
        random_state=None,
    ):
        self.n_components = n_components
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y):
        """Learn the map from ``X`` (n_samples, n_features) and class labels ``y``.

        Returns ``self``.
        """
        X = check_array(X, min_samples=2)
        classes, codes = check_class_labels(y, len(X))
        max_iter = check_integer(self.max_iter, name="max_iter")
        tol = check_positive(self.tol, name="tol")
        A0 = self._initial_map(X)
        order, bounds = _class_blocks(codes)
        X_sorted = X[order]

        def negative(flat):
            value, gradient = _objective_and_gradient(
                flat.reshape(A0.shape), X_sorted, bounds
            )
            return -value, -gradient.ravel()

        result = minimize(
            negative,
            A0.ravel(),
            method="L-BFGS-B",
            jac=True,
            tol=tol,
            options={"maxiter": max_iter},
        )
        self.components_ = result.x.reshape(A0.shape)
        self.n_iter_ = int(result.nit)
        self.objective_ = float(-result.fun)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def _initial_map(self, X):
        """The starting map ``W^T`` chosen by ``init``, shape (n_components,
        n_features)."""
        n_samples, n_features = X.shape
        if not isinstance(self.init, str):
            n_components = (
                None
                if self.n_components is None
                else check_n_components(self.n_components, n_features)
            )
            return check_linear_map(
                self.init, n_features, n_components=n_components
            ).copy()
        init = check_in(self.init, INITS, name="init")
        n_components = (
            n_features
            if self.n_components is None
            else check_n_components(self.n_components, n_features)
        )
        if init == "auto":
            small = n_components < min(n_samples, n_features)
            init = "pca" if small else "identity"
        if init == "pca":
            if n_components > min(n_samples, n_features):
                raise ValueError(
                    f"init='pca' gives at most min(n_samples, n_features) = "
                    f"{min(n_samples, n_features)} directions but n_components="
                    f"{n_components}; pass init='identity' or a smaller n_components."
                )
            return PCA(n_components).fit(X).components_.copy()
        if init == "identity":
            return np.eye(n_components, n_features)
        rng = check_random_state(self.random_state)
        return rng.standard_normal((n_components, n_features))
