"""UMAP's optimiser: stochastic gradient descent over sampled edges, in numba.

One epoch visits the edges of the fuzzy graph in a fixed order (row by row). An edge e =
(i, j) with weight v_e is sampled in epoch n = 1, ..., N when floor(n p_e) >
floor((n - 1) p_e), p_e = v_e / max v: the heaviest edges in every epoch, an edge of
half that weight in every other one, floor(N p_e) times in all (:func:`sampled`). A
sample

* pulls i and j together: both move by -alpha * clip(c_att(d^2) (y_i - y_j)), in
  opposite directions, with c_att the gradient coefficient of -log w
  (:func:`attraction_coefficient`);
* then pushes i away from ``negative_sample_rate`` points m drawn uniformly at random
  (m != i), as one mini-batch: every step -alpha * clip(c_rep(d_im^2) (y_i - y_m)),
  with c_rep the gradient coefficient of -log(1 - w) (:func:`repulsion_coefficient`),
  is computed at the position y_i has after the pull, and their sum is applied; the
  y_m stay.

Every coordinate of a step's gradient is clipped to [-``CLIP``, ``CLIP``], and the rate
decays linearly, alpha_n = learning_rate (1 - (n - 1) / N). These are the rules of
umap-learn (McInnes et al. 2018), written here from its description; three details
differ. umap-learn draws about ``negative_sample_rate`` negatives per sample (the
integer part of a running schedule), this loop exactly that many; it applies each
negative's step before computing the next, a chain in which every evaluation waits for
the last one (the mini-batch's independent evaluations overlap: on MNIST-5k it took 27 %
less time, with the same kNN recall and trustworthiness); and its random numbers come
from another generator. The positions are in double precision, the one power of each
evaluation in single (:func:`power`), as all of umap-learn's arithmetic is.

The loop is sequential: each step reads the positions the previous one wrote, as
umap-learn's single-threaded loop does, so a given seed gives the same map whatever
the number of threads. New points (``UMAP.transform``) use the same loop with the
training map fixed: only the heads move, and the negatives are drawn among the
training points. See the UMAP chapter of the book.
"""

import numpy as np
from numba import njit

from dr_lib._tsne_attraction import _squared_distance

__all__ = [
    "CLIP",
    "REPULSION_EPSILON",
    "power",
    "attraction_coefficient",
    "repulsion_coefficient",
    "sampled",
    "seed_state",
    "stream_seeds",
    "run_epochs",
]

#: Every coordinate of one step's gradient is clipped to [-CLIP, CLIP] (umap-learn's
#: 4): a pair that lands almost on top of each other cannot throw a point across the
#: map.
CLIP = 4.0
#: Added to d^2 in the repulsion's denominator, which is infinite at d = 0
#: (umap-learn's 0.001).
REPULSION_EPSILON = 1e-3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def power(d2, b):
    """(d^2)^b, the one power each step needs, in single precision.

    ``powf`` takes 7 ns where ``pow`` takes 13 (one per sampled edge and one per
    negative sample: on MNIST-5k the loop's time fell by a fifth), and its relative
    error, below 1.2e-7, is far under the noise of the sampling.
    """
    return np.float64(np.float32(d2) ** np.float32(b))


@njit(cache=True, inline="always")
def attraction_coefficient(d2, a, b):
    """c with grad_{y_i} (-log w_ij) = c (y_i - y_j), at squared distance d2.

    w = 1 / (1 + a d^(2b)), so -log w = log(1 + a (d^2)^b) and
    c = 2 a b (d^2)^(b - 1) / (1 + a (d^2)^b) >= 0; 0 at d = 0 (where (d^2)^(b - 1)
    is infinite for b < 1 but y_i - y_j is zero). (d^2)^b by :func:`power`.
    """
    if d2 <= 0.0:
        return 0.0
    t = power(d2, b)
    return 2.0 * a * b * (t / d2) / (1.0 + a * t)


@njit(cache=True, inline="always")
def repulsion_coefficient(d2, a, b, epsilon=REPULSION_EPSILON):
    """c with grad_{y_i} (-log(1 - w_ij)) = c (y_i - y_j), at squared distance d2.

    1 - w = a d^(2b) / (1 + a d^(2b)), so -log(1 - w) = log(1 + a (d^2)^b) - log a -
    b log d^2 and c = -2 b / (d^2 (1 + a (d^2)^b)) <= 0, with ``epsilon`` added to the
    d^2 that stands alone (0 gives the exact gradient). (d^2)^b by :func:`power`.
    """
    return -2.0 * b / ((epsilon + d2) * (1.0 + a * power(d2, b)))


@njit(cache=True, inline="always")
def sampled(probability, epoch):
    """Whether an edge sampled with ``probability`` p per epoch is sampled in
    ``epoch`` (1-based): floor(n p) > floor((n - 1) p)."""
    return np.floor(epoch * probability) > np.floor((epoch - 1) * probability)


def seed_state(seed):
    """One stream of the loop's random-number generator, for an integer ``seed``."""
    return np.array([seed], dtype=np.uint64)


@njit(cache=True, inline="always")
def _mix(z):
    """The output function of splitmix64 (Steele, Lea & Flood 2014): a bijection of
    the 64-bit integers that scatters neighbouring inputs."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream_seeds(seed, keys):
    """One stream per row of ``keys`` (int64): ``seed`` mixed with the row's entries.

    ``UMAP.transform`` keys each new point by its nearest training points, so that
    its random draws, and so its place, depend on that point alone: not on the
    others passed with it, nor on their order.
    """
    out = np.empty(keys.shape[0], dtype=np.uint64)
    for r in range(keys.shape[0]):
        z = np.uint64(seed)
        for c in range(keys.shape[1]):
            z = _mix(z + _GOLDEN + np.uint64(keys[r, c]))
        out[r] = z
    return out


@njit(cache=True, inline="always")
def _random_index(state, stream, n):
    """A uniform integer in [0, n) from stream ``stream`` of the splitmix64 generator:
    the top 32 bits of its output, times n, divided by 2^32 (no division; n < 2^32).
    The stream's state advances by one step."""
    state[stream] += _GOLDEN
    z = _mix(state[stream])
    return np.int64(((z >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def _clip(value):
    return min(max(value, -CLIP), CLIP)


@njit(cache=True, inline="always")
def _sample_plane(
    head_map, tail_map, i, j, a, b, alpha, negatives, move_tails, state, stream
):
    """One sample of the edge (i, j) in a 2-D map, in scalars that stay in registers
    (the same arithmetic, in the same order, as :func:`_sample`)."""
    x0 = head_map[i, 0] - tail_map[j, 0]
    x1 = head_map[i, 1] - tail_map[j, 1]
    c = attraction_coefficient(x0 * x0 + x1 * x1, a, b)
    s0 = alpha * _clip(c * x0)
    s1 = alpha * _clip(c * x1)
    y0 = head_map[i, 0] - s0
    y1 = head_map[i, 1] - s1
    if move_tails:
        tail_map[j, 0] += s0
        tail_map[j, 1] += s1
    t0 = 0.0
    t1 = 0.0
    for _ in range(negatives):
        m = _random_index(state, stream, tail_map.shape[0])
        if move_tails and m == i:
            continue
        x0 = y0 - tail_map[m, 0]
        x1 = y1 - tail_map[m, 1]
        c = repulsion_coefficient(x0 * x0 + x1 * x1, a, b, REPULSION_EPSILON)
        t0 += _clip(c * x0)
        t1 += _clip(c * x1)
    head_map[i, 0] = y0 - alpha * t0
    head_map[i, 1] = y1 - alpha * t1


@njit(cache=True, inline="always")
def _sample(
    head_map, tail_map, i, j, a, b, alpha, negatives, move_tails, state, stream, total
):
    """One sample of the edge (i, j) in a map of any dimension: the pull on both ends,
    then the negatives as one mini-batch, every step computed at the same y_i and the
    sum applied (independent evaluations pipeline; one after the other, each would
    wait for the last one's update). ``total`` is work space of length d."""
    c = attraction_coefficient(_squared_distance(head_map, i, tail_map, j), a, b)
    for k in range(head_map.shape[1]):
        step = alpha * _clip(c * (head_map[i, k] - tail_map[j, k]))
        head_map[i, k] -= step
        if move_tails:
            tail_map[j, k] += step
    total[:] = 0.0
    for _ in range(negatives):
        m = _random_index(state, stream, tail_map.shape[0])
        if move_tails and m == i:
            continue
        d2 = _squared_distance(head_map, i, tail_map, m)
        c = repulsion_coefficient(d2, a, b, REPULSION_EPSILON)
        for k in range(head_map.shape[1]):
            total[k] += _clip(c * (head_map[i, k] - tail_map[m, k]))
    for k in range(head_map.shape[1]):
        head_map[i, k] -= alpha * total[k]


@njit(cache=True)
def run_epochs(
    head_map,
    tail_map,
    heads,
    tails,
    probability,
    first,
    last,
    n_epochs,
    a,
    b,
    learning_rate,
    negative_sample_rate,
    move_tails,
    state,
):
    """Epochs ``first + 1``, ..., ``last`` of ``n_epochs``, in place on the maps.

    Parameters
    ----------
    head_map : ndarray of shape (n_heads, d), float64, C-contiguous
        The points that move (the map itself when fitting).
    tail_map : ndarray of shape (n_tails, d)
        The points they are pulled towards and pushed from: ``head_map`` itself when
        fitting (``move_tails``), the fixed training map when placing new points.
    heads, tails : ndarray of shape (n_edges,), int64
        The edges (i, j), in the order they are visited.
    probability : ndarray of shape (n_edges,)
        v_e / max v, in (0, 1].
    first, last, n_epochs : int
    a, b : float
        The map kernel 1 / (1 + a d^(2b)).
    learning_rate : float
    negative_sample_rate : int
    move_tails : bool
        Whether the tail of an edge moves too (the same map: m != i is then enforced).
    state : ndarray of shape (1,) or (n_heads,), uint64
        The random-number generator, advanced in place: one stream for all heads
        (fitting), or one per head (placing new points: stream i draws for head i).
    """
    total = np.empty(head_map.shape[1])
    plane = head_map.shape[1] == 2
    per_head = state.shape[0] > 1
    for epoch in range(first + 1, last + 1):
        alpha = learning_rate * (1.0 - (epoch - 1) / n_epochs)
        for e in range(heads.shape[0]):
            if not sampled(probability[e], epoch):
                continue
            i = heads[e]
            j = tails[e]
            stream = i if per_head else 0
            if plane:
                _sample_plane(
                    head_map, tail_map, i, j, a, b, alpha,
                    negative_sample_rate, move_tails, state, stream,
                )  # fmt: skip
            else:
                _sample(
                    head_map, tail_map, i, j, a, b, alpha,
                    negative_sample_rate, move_tails, state, stream, total,
                )  # fmt: skip
