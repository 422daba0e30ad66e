"""Measures of agreement between embeddings.

More quality measures (trustworthiness, continuity, co-ranking) join this module with the
chapters that need them.
"""

import numpy as np
from scipy.linalg import orthogonal_procrustes

from dr_lib._validation import check_array


def procrustes(Y, reference, *, scale=True):
    """Align ``Y`` to ``reference`` by translation, rotation/reflection and (optionally) scale.

    Solves min over R orthogonal, s > 0, t of || s (Y - mean) R + t - reference ||_F, the
    orthogonal Procrustes problem. Embeddings from spectral methods are defined only up to
    such transformations, so this is how the book compares them with each other and with
    ground truth (e.g. the map of provincial capitals in book/02_mds).

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
            f"Y has shape {Y.shape} but reference has shape {reference.shape}; pass two "
            f"embeddings of the same samples in the same number of dimensions."
        )
    Yc = Y - Y.mean(axis=0)
    ref_mean = reference.mean(axis=0)
    Rc = reference - ref_mean
    R, singular_sum = orthogonal_procrustes(Yc, Rc)
    s = singular_sum / np.sum(Yc**2) if scale and np.sum(Yc**2) > 0 else 1.0
    aligned = s * Yc @ R + ref_mean
    disparity = float(np.sum((aligned - reference) ** 2) / np.sum(Rc**2))
    return aligned, disparity
