"""Measures of agreement between embeddings, and of how well an embedding keeps
neighbours.

``procrustes`` compares two embeddings up to a similarity transformation. The rank-based
measures compare an embedding with the data it came from, and every comparison table of
the manifold-learning chapters uses them (they are explained in book/04_isomap, section
"Quality metrics"): trustworthiness and continuity (Venna & Kaski, 2001), the co-ranking
matrix with Q_NX, R_NX and its area under the curve (Lee & Verleysen), the kNN recall
(Q_NX at one K, for large data), and the leave-one-out k-nearest-neighbour accuracy in
the embedding. book/08_nerv_classnerv adds
their class-aware versions and the kNN gain (Colange et al., 2020).
"""

import numpy as np
from scipy.linalg import orthogonal_procrustes
from scipy.spatial.distance import cdist

from dr_lib._validation import (
    check_array,
    check_in,
    check_integer,
    check_labels,
    check_n_neighbors,
)
from dr_lib.graphs import _kneighbors


def procrustes(Y, reference, *, scale=True):
    """Align ``Y`` to ``reference`` by translation, rotation/reflection and (optionally)
    scale.

    Solves min over R orthogonal, s > 0, t of || s (Y - mean) R + t - reference ||_F,
    the orthogonal Procrustes problem. Embeddings from spectral methods are defined only
    up to such transformations, so this is how the book compares them with each other
    and with ground truth (e.g. the map of provincial capitals in book/02_mds).

    Parameters
    ----------
    Y, reference : array-like of shape (n_samples, n_components)
    scale : bool, default=True
        Also fit a global scale factor.

    Returns
    -------
    aligned : ndarray of shape (n_samples, n_components)
        ``Y`` after the optimal transformation, in the units of ``reference``.
    disparity : float
        Sum of squared residuals divided by the total sum of squares of the centred
        reference: 0 for a perfect match, 1 for no better than the reference's mean.
    """
    Y = check_array(Y, name="Y", min_samples=2)
    reference = check_array(reference, name="reference", min_samples=2)
    if Y.shape != reference.shape:
        raise ValueError(
            f"Y has shape {Y.shape} but reference has shape {reference.shape}; pass "
            "two embeddings of the same samples in the same number of dimensions."
        )
    Yc = Y - Y.mean(axis=0)
    ref_mean = reference.mean(axis=0)
    Rc = reference - ref_mean
    R, singular_sum = orthogonal_procrustes(Yc, Rc)
    s = singular_sum / np.sum(Yc**2) if scale and np.sum(Yc**2) > 0 else 1.0
    aligned = s * Yc @ R + ref_mean
    disparity = float(np.sum((aligned - reference) ** 2) / np.sum(Rc**2))
    return aligned, disparity


def _pair(X_high, X_low):
    """Both representations validated, with the same number of samples (at least 3)."""
    X_high = check_array(X_high, name="X_high", min_samples=3)
    return X_high, _check_embedding(X_high, X_low)


def _check_embedding(X_high, X_low):
    """``X_low`` validated, with as many samples as the validated ``X_high``."""
    X_low = check_array(X_low, name="X_low", min_samples=3)
    if len(X_high) != len(X_low):
        raise ValueError(
            f"X_high has {len(X_high)} samples but X_low has {len(X_low)}; pass the "
            "data and its embedding with one row per sample in the same order."
        )
    return X_low


def _ranks(X):
    """rho[i, j]: the rank of sample j among the neighbours of i (1 = nearest; self 0).

    Ties are broken by index (a stable sort), as in the co-ranking literature.
    """
    D = cdist(X, X)
    np.fill_diagonal(D, -1.0)  # self first, rank 0
    order = np.argsort(D, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(len(X))[None, :], axis=1)
    return ranks


def _nearest_by_rank(X, k):
    """Indices of the ``k`` samples of rank 1..k around each sample, as :func:`_ranks`
    ranks.

    The k nearest other samples, ties at the k-th distance broken by index (the same
    stable order as :func:`_ranks`), found in O(n²) by a partition instead of a full
    sort: every sample strictly closer than the k-th distance, then the lowest-indexed
    samples at exactly that distance. Each row lists its neighbours in increasing index
    order.
    """
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)  # a sample is not its own neighbour
    kth = np.partition(D, k - 1, axis=1)[:, k - 1 : k]
    closer = D < kth
    tied = D == kth
    room = k - closer.sum(axis=1, keepdims=True)
    chosen = closer | (tied & (np.cumsum(tied, axis=1) <= room))
    return np.nonzero(chosen)[1].reshape(len(X), k)


def _check_rank_k(n_neighbors, n_samples):
    """k for trustworthiness/continuity: 1 <= k < n/2 (the normalisation needs it)."""
    return check_integer(n_neighbors, name="n_neighbors", high=(n_samples - 1) // 2)


def trustworthiness(X_high, X_low, n_neighbors=10):
    """Trustworthiness T(k): are the embedding's neighbours true neighbours?

    T(k) = 1 - 2 / (n k (2n - 3k - 1)) sum_i sum_{j in U_k(i)} (r(i, j) - k), where
    U_k(i) are the k nearest neighbours of i in ``X_low`` that are not among its k
    nearest in ``X_high`` and r(i, j) is the rank of j among the neighbours of i in
    ``X_high`` (Venna & Kaski, 2001). 1 means no false neighbours. Tied distances are
    ranked by sample index in both spaces, so the result is the definition's for any
    input; without ties it equals ``sklearn.manifold.trustworthiness`` (Euclidean),
    whose tie-breaking depends on its sort and neighbour search. See book/04_isomap.

    Parameters
    ----------
    X_high : array-like of shape (n_samples, n_features)
    X_low : array-like of shape (n_samples, n_components)
    n_neighbors : int, default=10
        k, with 1 <= k < n_samples / 2.

    Returns
    -------
    float in [0, 1]
    """
    X_high, X_low = _pair(X_high, X_low)
    return _trustworthiness(X_high, X_low, _check_rank_k(n_neighbors, len(X_high)))


def _trustworthiness(X_high, X_low, k):
    """:func:`trustworthiness` of validated arrays and a validated ``k``."""
    n = len(X_high)
    rank_high = _ranks(X_high)
    low_neighbours = _nearest_by_rank(X_low, k)
    penalty = np.take_along_axis(rank_high, low_neighbours, axis=1) - k
    return float(1.0 - 2.0 / (n * k * (2 * n - 3 * k - 1)) * penalty[penalty > 0].sum())


def continuity(X_high, X_low, n_neighbors=10):
    """Continuity C(k): are the true neighbours still neighbours in the embedding?

    The mirror image of :func:`trustworthiness`, with the roles of the spaces exchanged:
    C(k) = trustworthiness(X_low, X_high, k) (Venna & Kaski, 2001). 1 means no
    neighbour is torn away. See book/04_isomap.

    Returns
    -------
    float in [0, 1]
    """
    X_high, X_low = _pair(X_high, X_low)
    return _trustworthiness(X_low, X_high, _check_rank_k(n_neighbors, len(X_high)))


def coranking_matrix(X_high, X_low):
    """The co-ranking matrix Q of Lee & Verleysen.

    Q[k-1, l-1] counts the pairs (i, j), i != j, for which j is the k-th neighbour of i
    in ``X_high`` and the l-th in ``X_low`` (ranks 1..n-1, ties broken by index). A
    perfect embedding gives a diagonal Q; entries below the diagonal are intrusions (j
    came closer), above it extrusions. See book/04_isomap.

    Returns
    -------
    ndarray of shape (n_samples - 1, n_samples - 1), dtype int
    """
    X_high, X_low = _pair(X_high, X_low)
    n = len(X_high)
    off = ~np.eye(n, dtype=bool)
    flat = (_ranks(X_high)[off] - 1) * (n - 1) + (_ranks(X_low)[off] - 1)
    return np.bincount(flat, minlength=(n - 1) ** 2).reshape(n - 1, n - 1)


def qnx_curve(X_high, X_low):
    """Q_NX(K), the average fraction of K-neighbourhoods kept, for K = 1, ..., n - 2.

    Q_NX(K) = 1 / (K n) sum_{k <= K} sum_{l <= K} Q_kl (the upper-left K x K block of
    the co-ranking matrix). 1 for a perfect embedding; K / (n - 1) expected by chance.

    Returns
    -------
    ndarray of shape (n_samples - 2,)
        Entry K - 1 holds Q_NX(K).
    """
    Q = coranking_matrix(X_high, X_low)
    n = len(Q) + 1
    K = np.arange(1, n - 1)
    blocks = Q.cumsum(axis=0).cumsum(axis=1)[K - 1, K - 1]
    return blocks / (K * n)


def rnx_curve(X_high, X_low):
    """R_NX(K) = ((n - 1) Q_NX(K) - K) / (n - 1 - K), for K = 1, ..., n - 2.

    Q_NX rescaled so that chance gives 0 and a perfect embedding 1.
    """
    qnx = qnx_curve(X_high, X_low)
    n = len(qnx) + 2
    K = np.arange(1, n - 1)
    return ((n - 1) * qnx - K) / (n - 1 - K)


def rnx_auc(X_high, X_low):
    """Area under R_NX(K) on a logarithmic K axis: sum_K R_NX(K) / K  /  sum_K 1 / K.

    The log scale weights small neighbourhoods more, as Lee & Verleysen propose. 1 for a
    perfect embedding, about 0 for a random one.

    Returns
    -------
    float
    """
    rnx = rnx_curve(X_high, X_low)
    weights = 1.0 / np.arange(1, len(rnx) + 1)
    return float(np.sum(rnx * weights) / np.sum(weights))


def knn_recall(X_high, X_low, n_neighbors=15):
    """kNN recall: the average fraction of each sample's k nearest neighbours in the
    data that are also among its k nearest in the embedding.

    recall(k) = 1 / (n k) sum_i |N_k(i) in X_high  ∩  N_k(i) in X_low|, the measure of
    neighbour preservation of Böhm, Berens & Kobak (2022) and Kobak & Linderman (2021),
    and the value of Q_NX at K = k (:func:`qnx_curve`), found here in O(n k) memory by
    the exact neighbour search of ``dr_lib.graphs`` (ties broken by index). 1 means
    every neighbourhood is kept; k / (n - 1) is expected by chance.

    Parameters
    ----------
    X_high : array-like of shape (n_samples, n_features)
    X_low : array-like of shape (n_samples, n_components)
    n_neighbors : int, default=15
        k, with 1 <= k < n_samples.

    Returns
    -------
    float in [0, 1]
    """
    X_high, X_low = _pair(X_high, X_low)
    k = check_n_neighbors(n_neighbors, len(X_high))
    _, high = _kneighbors(X_high, k)
    _, low = _kneighbors(X_low, k)
    both = np.sort(np.concatenate([high, low], axis=1), axis=1)
    shared = np.count_nonzero(both[:, 1:] == both[:, :-1])
    return float(shared / (len(X_high) * k))


def knn_accuracy(X_low, y, *, n_neighbors=5):
    """Leave-one-out accuracy of the k-nearest-neighbour classifier in the embedding.

    Each sample is classified by the majority label of its ``n_neighbors`` nearest other
    samples (ties go to the smallest label, as in scikit-learn); the result is the
    fraction classified correctly. Measures whether classes stay separated after
    embedding.

    Parameters
    ----------
    X_low : array-like of shape (n_samples, n_components)
    y : array-like of shape (n_samples,)
        Class labels.
    n_neighbors : int, default=5

    Returns
    -------
    float in [0, 1]
    """
    X_low = check_array(X_low, name="X_low", min_samples=2)
    y = check_labels(y, len(X_low))
    k = check_n_neighbors(n_neighbors, len(X_low))
    classes, codes = np.unique(y, return_inverse=True)
    _, neighbours = _kneighbors(X_low, k)
    votes = np.zeros((len(y), len(classes)))
    np.add.at(votes, (np.arange(len(y))[:, None], codes[neighbours]), 1)
    return float(np.mean(np.argmax(votes, axis=1) == codes))


def quality_table(X_high, embeddings, *, n_neighbors=10):
    """Trustworthiness and continuity of several embeddings of the same data, as a
    table.

    Parameters
    ----------
    X_high : array-like of shape (n_samples, n_features)
    embeddings : dict
        name -> Y, or name -> (Y, seconds) with the time it took to compute Y.
    n_neighbors : int, default=10

    Returns
    -------
    pandas.DataFrame
        One row per embedding (index: the names), columns "trustworthiness",
        "continuity" and, when any time is given, "seconds".
    """
    import pandas as pd  # only here: importing dr_lib.metrics stays light

    X_high = check_array(X_high, name="X_high", min_samples=3)
    k = _check_rank_k(n_neighbors, len(X_high))
    rows = {}
    for name, value in embeddings.items():
        Y, seconds = value if isinstance(value, tuple) else (value, None)
        Y = _check_embedding(X_high, Y)
        rows[name] = {
            "trustworthiness": _trustworthiness(X_high, Y, k),
            "continuity": _trustworthiness(Y, X_high, k),
            "seconds": seconds,
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    if table["seconds"].isna().all():
        table = table.drop(columns="seconds")
    return table.astype(float)


# --------------------------------------------------------- class-aware measures (ch. 8)


def _class_codes(y, n_samples):
    """The class index of every sample, from validated labels."""
    return np.unique(check_labels(y, n_samples), return_inverse=True)[1].ravel()


def _class_inputs(X_high, X_low, y, n_neighbors, pairs):
    """The validated arguments of :func:`class_trustworthiness` and
    :func:`class_continuity`.

    Returns ``(X_high, X_low, codes, k, pairs)``, with ``codes`` the class index of each
    sample.
    """
    X_high, X_low = _pair(X_high, X_low)
    k = _check_rank_k(n_neighbors, len(X_high))
    pairs = check_in(pairs, ("between", "within"), name="pairs")
    return X_high, X_low, _class_codes(y, len(X_high)), k, pairs


def _class_trustworthiness(X_high, X_low, codes, k, pairs):
    """Trustworthiness whose penalty counts only the ``pairs`` of one kind.

    Penalised pairs: j among the k nearest of i in ``X_low`` but of rank r(i, j) > k in
    ``X_high``, kept when j has i's class (``"within"``) or another (``"between"``).
    """
    n = len(X_high)
    low_neighbours = _nearest_by_rank(X_low, k)
    penalty = np.take_along_axis(_ranks(X_high), low_neighbours, axis=1) - k
    same = codes[low_neighbours] == codes[:, None]
    keep = (penalty > 0) & (same if pairs == "within" else ~same)
    return float(1.0 - 2.0 / (n * k * (2 * n - 3 * k - 1)) * penalty[keep].sum())


def class_trustworthiness(X_high, X_low, y, n_neighbors=10, *, pairs="between"):
    """Trustworthiness restricted to false neighbours between (or within) classes.

    T_between(k) = 1 - 2 / (n k (2n - 3k - 1)) sum_i sum_{j in U_k(i), y_j != y_i}
    (r(i, j) - k), with U_k(i) and r(i, j) as in :func:`trustworthiness`
    (Colange et al. 2020); ``pairs="within"`` keeps the pairs with y_j = y_i instead.
    The two penalties add up to the whole one: 1 - T = (1 - T_within) + (1 - T_between).
    See book/08_nerv_classnerv.

    Parameters
    ----------
    X_high : array-like of shape (n_samples, n_features)
    X_low : array-like of shape (n_samples, n_components)
    y : array-like of shape (n_samples,)
        Class labels.
    n_neighbors : int, default=10
        k, with 1 <= k < n_samples / 2.
    pairs : {"between", "within"}, default="between"

    Returns
    -------
    float in [0, 1]
    """
    X_high, X_low, codes, k, pairs = _class_inputs(X_high, X_low, y, n_neighbors, pairs)
    return _class_trustworthiness(X_high, X_low, codes, k, pairs)


def class_continuity(X_high, X_low, y, n_neighbors=10, *, pairs="within"):
    """Continuity restricted to missed neighbours within (or between) classes.

    C_within(k) = 1 - 2 / (n k (2n - 3k - 1)) sum_i sum_{j in V_k(i), y_j = y_i}
    (r_hat(i, j) - k), with V_k(i) the k nearest of i in ``X_high`` that are not among
    its k nearest in ``X_low`` and r_hat(i, j) the rank of j around i in ``X_low``
    (Colange et al. 2020): :func:`class_trustworthiness` with the spaces exchanged. See
    book/08_nerv_classnerv.

    Parameters
    ----------
    X_high, X_low, y, n_neighbors
        As in :func:`class_trustworthiness`.
    pairs : {"within", "between"}, default="within"

    Returns
    -------
    float in [0, 1]
    """
    X_high, X_low, codes, k, pairs = _class_inputs(X_high, X_low, y, n_neighbors, pairs)
    return _class_trustworthiness(X_low, X_high, codes, k, pairs)


def _same_class_fraction(X, codes, k):
    """(1 / k) #{j among the k nearest of i: y_j = y_i}, for every i."""
    neighbours = _nearest_by_rank(X, k)
    return np.mean(codes[neighbours] == codes[:, None], axis=1)


def knn_gain(X_high, X_low, y, n_neighbors=10):
    """How much more often a point's k nearest map neighbours share its class.

    G(k) = (1 / n) sum_i (1 / k) (#{j in N_k^low(i): y_j = y_i}
    - #{j in N_k^high(i): y_j = y_i}), with N_k the k nearest other samples (ties by
    index) in the map and in the data (Colange et al. 2020). 0 for the data itself;
    positive when the map gathers the classes more than the data do. See
    book/08_nerv_classnerv.

    Parameters
    ----------
    X_high : array-like of shape (n_samples, n_features)
    X_low : array-like of shape (n_samples, n_components)
    y : array-like of shape (n_samples,)
    n_neighbors : int, default=10
        k, with 1 <= k < n_samples.

    Returns
    -------
    float in [-1, 1]
    """
    X_high, X_low = _pair(X_high, X_low)
    k = check_integer(n_neighbors, name="n_neighbors", high=len(X_high) - 1)
    codes = _class_codes(y, len(X_high))
    return float(
        np.mean(
            _same_class_fraction(X_low, codes, k)
            - _same_class_fraction(X_high, codes, k)
        )
    )
