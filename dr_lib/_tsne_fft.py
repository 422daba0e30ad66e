"""FFT-accelerated interpolation of the repulsive half of the t-SNE gradient (1-D, 2-D
maps).

Linderman et al. (2019) replace the N^2 kernel sums by three cheap steps on an
equispaced grid:

1. *Spread.* The bounding box of the map is cut into ``n_boxes`` equal intervals per
   axis, each with ``p`` equispaced nodes at (k + 1/2) / p of its width (``p = 3``).
   Together the nodes form one equispaced grid of m = n_boxes p nodes per axis, spacing
   h. Each point spreads its charges (1 and its coordinates) onto the p^d nodes of its
   own interval with the Lagrange basis polynomials of those nodes.
2. *Convolve.* The kernel between two nodes depends only on their offset, so the node
   sums are a discrete convolution; embedded in a symmetric circulant of even length L
   >= 2m - 2 per axis it becomes a product of FFTs (``scipy.fft``). The circulant is
   symmetric, so its spectrum is real: a DCT-I of the m' = L/2 + 1 kernel values.
3. *Interpolate back.* The node potentials are interpolated to each point with the same
   weights.

With w = (1 + d^2/alpha)^(-alpha) convolved with the charge 1, and w w^(1/alpha) with
the charges 1 and z_j, the points get s_i = sum_j w_ij and
r_i = sum_j w_ij w_ij^(1/alpha) (z_i - z_j) = z_i sum_j (...) - sum_j (...) z_j, as in
``_tsne_bh``.

**The bounded grid.** openTSNE and FIt-SNE use one interval per unit of the map's span
(at least 50), so the grid, and the time per iteration, grows with the square of the
span in 2-D. Here the number of intervals stops at ``MAX_INTERVALS``. Beyond that, an
interval is wider than the kernel (one unit), where polynomial interpolation of the
kernel fails between nearby points; so, in that regime, the pairs of points in the same
or adjacent intervals (the 3^d boxes around a point's box) are summed exactly, and the
grid's own contribution between those boxes is subtracted node by node. Only
well-separated boxes interact through the grid, where the kernel is smooth. For a given
N the cost then stays flat while the map expands. It is no longer O(N): the near field
(on once a map is wider than 25 units, where ``MIN_INTERVALS`` intervals are wider than
``NEAR_FIELD_WIDTH``) holds a fixed fraction of all pairs for a given grid, about 9 /
n_boxes^2 in 2-D for points spread evenly, and with at most ``MAX_INTERVALS`` intervals
that fraction stops shrinking: the near field grows as N^2 and dominates at large N.

The per-point interpolation steps are cheap and sequential; the near field runs in
parallel over points and boxes, each task writing only its own output (deterministic).
See book/07_sne_tsne, "Making it fast".
"""

import numpy as np
import scipy.fft
from numba import njit, prange

from dr_lib._tsne_attraction import kernel_and_force
from dr_lib.sne import kernel_force_factor, student_t_kernel

__all__ = [
    "N_INTERPOLATION_POINTS",
    "MIN_INTERVALS",
    "MAX_INTERVALS",
    "NEAR_FIELD_WIDTH",
    "Grid",
    "make_grid",
    "repulsion",
]

#: Lagrange nodes per interval and axis (Linderman et al. recommend 3).
N_INTERPOLATION_POINTS = 3
#: Fewest intervals per axis, however small the map.
MIN_INTERVALS = 50
#: Most intervals per axis, however large the map (the bound on the grid), by map
#: dimension.
MAX_INTERVALS = {1: 1000, 2: 80}
#: Intervals wider than this (in map units, where the kernel falls to 1/2 at distance 1)
#: get the exact near field: the interpolation error of the kernel between adjacent
#: intervals grows with the cube of their width.
NEAR_FIELD_WIDTH = 0.5


class Grid:
    """An equispaced interpolation grid covering a map.

    Attributes
    ----------
    lower : ndarray of shape (d,)
        Lower corner of the grid's box.
    box_width : float
        Width of one interval (the same on every axis).
    n_boxes : int
        Intervals per axis.
    p : int
        Nodes per interval and axis.
    exact_near_field : bool
        Whether pairs in neighbouring intervals are summed exactly (the intervals are
        wider than the kernel, one unit).
    """

    def __init__(self, lower, box_width, n_boxes, p):
        self.lower = lower
        self.box_width = box_width
        self.n_boxes = n_boxes
        self.p = p
        self.exact_near_field = box_width > NEAR_FIELD_WIDTH
        # FFT length: even, fast, and long enough that no two offsets alias
        self.fft_length = scipy.fft.next_fast_len(2 * self.n_nodes - 2, real=True)
        if self.fft_length % 2:
            self.fft_length = scipy.fft.next_fast_len(self.fft_length + 1, real=True)

    @property
    def n_nodes(self):
        """Nodes per axis that hold charge, m = n_boxes p."""
        return self.n_boxes * self.p

    @property
    def n_padded(self):
        """Nodes per axis of the zero-padded grid, m' = L / 2 + 1 >= m."""
        return self.fft_length // 2 + 1

    @property
    def spacing(self):
        """Distance h between neighbouring nodes."""
        return self.box_width / self.p


def make_grid(
    Z,
    *,
    p=N_INTERPOLATION_POINTS,
    min_intervals=MIN_INTERVALS,
    max_intervals=None,
    intervals_per_unit=1.0,
):
    """The grid for the map ``Z``: one interval per unit of span, within the bounds.

    Parameters
    ----------
    Z : ndarray of shape (n, d), d in {1, 2}
    p : int, default=N_INTERPOLATION_POINTS
    min_intervals : int, default=MIN_INTERVALS
    max_intervals : int, optional
        Upper bound on the intervals per axis; ``MAX_INTERVALS[d]`` by default.
    intervals_per_unit : float, default=1.0
        Intervals per unit length of the map before the bounds are applied.

    Returns
    -------
    Grid
    """
    d = Z.shape[1]
    max_intervals = MAX_INTERVALS[d] if max_intervals is None else max_intervals
    lower, upper = _bounds(Z)
    span = float(np.max(upper - lower))
    n_boxes = int(
        np.clip(np.ceil(span * intervals_per_unit), min_intervals, max_intervals)
    )
    # a sliver of margin, so the largest coordinate falls inside the last interval
    box_width = max(span, 1e-12) * (1.0 + 1e-9) / n_boxes
    return Grid(lower, box_width, n_boxes, p)


# --------------------------------------------------------------- points <-> grid nodes


@njit(cache=True)
def _bounds(Z):
    """Smallest and largest coordinate on every axis, in one pass."""
    n, d = Z.shape
    lower = Z[0].copy()
    upper = Z[0].copy()
    for i in range(1, n):
        for k in range(d):
            lower[k] = min(lower[k], Z[i, k])
            upper[k] = max(upper[k], Z[i, k])
    return lower, upper


@njit(cache=True)
def _lagrange_nodes(p):
    """Node positions (k + 1/2) / p in [0, 1] and the denominators of their basis."""
    nodes = (np.arange(p) + 0.5) / p
    den = np.ones(p)
    for a in range(p):
        for b in range(p):
            if a != b:
                den[a] *= nodes[a] - nodes[b]
    return nodes, den


@njit(cache=True)
def _weights(Z, lower, box_width, n_boxes, p, first, weights):
    """For every point and axis: the first node of its interval and the p Lagrange
    weights."""
    n, d = Z.shape
    nodes, den = _lagrange_nodes(p)
    for i in range(n):
        for k in range(d):
            u = (Z[i, k] - lower[k]) / box_width
            box = min(max(int(np.floor(u)), 0), n_boxes - 1)
            f = u - box
            first[i, k] = box * p
            for a in range(p):
                value = 1.0
                for b in range(p):
                    if a != b:
                        value *= f - nodes[b]
                weights[i, k, a] = value / den[a]


@njit(cache=True)
def _spread(first, weights, charges, row_length, out):
    """Add every point's charges onto the nodes of its interval (``out``: channels x
    nodes)."""
    n, d = first.shape
    p = weights.shape[2]
    n_channels = charges.shape[1]
    for i in range(n):
        if d == 1:
            for a in range(p):
                w = weights[i, 0, a]
                g = first[i, 0] + a
                for c in range(n_channels):
                    out[c, g] += w * charges[i, c]
        else:
            for a in range(p):
                for b in range(p):
                    w = weights[i, 0, a] * weights[i, 1, b]
                    g = (first[i, 0] + a) * row_length + first[i, 1] + b
                    for c in range(n_channels):
                        out[c, g] += w * charges[i, c]


@njit(cache=True)
def _gather(first, weights, potential, row_length, out):
    """Interpolate every channel of the node potentials back to the points."""
    n, d = first.shape
    p = weights.shape[2]
    n_channels = potential.shape[0]
    for i in range(n):
        for c in range(n_channels):
            total = 0.0
            for a in range(p):
                if d == 1:
                    total += weights[i, 0, a] * potential[c, first[i, 0] + a]
                else:
                    row = (first[i, 0] + a) * row_length + first[i, 1]
                    part = 0.0
                    for b in range(p):
                        part += weights[i, 1, b] * potential[c, row + b]
                    total += weights[i, 0, a] * part
            out[i, c] = total


# ------------------------------------------------------------------ the FFT convolution


def _kernel_tables(offsets_sq, dof):
    """w w^(1/alpha) and w at the given squared node offsets."""
    w = student_t_kernel(offsets_sq, dof)
    return w * kernel_force_factor(offsets_sq, dof), w


def _offsets_sq(n, spacing, d):
    """Squared distances of node offsets 0..n-1 per axis (a vector, or an n x n
    table)."""
    sq = (np.arange(n) * spacing) ** 2
    return sq if d == 1 else sq[:, None] + sq[None, :]


def _spectrum(table):
    """The (real) rfft spectrum of the symmetric circulant built from ``table``.

    The DFT of the even extension of x_0..x_{M-1} to length 2(M - 1) is the DCT-I of x.
    rfftn keeps the last axis up to L/2 = M - 1 and every frequency of the others, which
    the even symmetry mirrors.
    """
    spectrum = scipy.fft.dctn(table, type=1)
    for axis in range(table.ndim - 1):
        mirrored = np.flip(
            np.take(spectrum, range(1, table.shape[axis] - 1), axis), axis
        )
        spectrum = np.concatenate([spectrum, mirrored], axis=axis)
    return spectrum


def _convolve(charges, grid, d, dof):
    """Node potentials: channels 0..d with w w^(1/alpha), channel 0 again with w.

    The transforms run in single precision, twice as fast: their rounding (about 1e-7 of
    the largest potential) is far below the interpolation error (book/07_sne_tsne).
    """
    length = grid.fft_length
    shape = (length,) * d
    axes = tuple(range(1, d + 1))
    spectrum = scipy.fft.rfftn(
        charges.astype(np.float32), s=shape, axes=axes, workers=-1
    )
    force_hat, w_hat = (
        _spectrum(t).astype(np.float32)
        for t in _kernel_tables(_offsets_sq(grid.n_padded, grid.spacing, d), dof)
    )
    spectrum = np.concatenate([spectrum * force_hat, spectrum[:1] * w_hat])
    out = scipy.fft.irfftn(spectrum, s=shape, axes=axes, workers=-1)
    return out[(slice(None),) + (slice(0, grid.n_padded),) * d].astype(np.float64)


# -------------------------------------------------------------- the exact near field


@njit(cache=True)
def _box_of_points(first, p, n_boxes):
    """Counting sort of the points by box: the box of each point, the order, box
    starts."""
    n, d = first.shape
    n_cells = n_boxes if d == 1 else n_boxes * n_boxes
    box = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for k in range(d):
            box[i] = box[i] * n_boxes + first[i, k] // p
    starts = np.zeros(n_cells + 1, dtype=np.int64)
    for i in range(n):
        starts[box[i] + 1] += 1
    for b in range(n_cells):
        starts[b + 1] += starts[b]
    fill = starts[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[fill[box[i]]] = i
        fill[box[i]] += 1
    return box, order, starts


@njit(cache=True)
def _neighbour_box(box, offset, n_boxes, d):
    """The box at ``offset`` (base-3 digits: -1, 0, +1 per axis) from ``box``; -1
    outside."""
    if d == 1:
        other = box + offset - 1
        return other if 0 <= other < n_boxes else -1
    row = box // n_boxes + offset // 3 - 1
    col = box % n_boxes + offset % 3 - 1
    if row < 0 or row >= n_boxes or col < 0 or col >= n_boxes:
        return -1
    return row * n_boxes + col


@njit(cache=True, parallel=True)
def _near_exact(Z, box, order, starts, n_boxes, dof, out):
    """Exact s_i (column 0) and r_i (columns 1..d) over the 3^d boxes around each
    point's.

    The coordinates are first copied in box order, so the points of a box are contiguous
    in memory; a 2-D map keeps its sums in scalars (as ``_tsne_attraction``).
    """
    n, d = Z.shape
    n_offsets = 3 if d == 1 else 9
    sorted_Z = np.empty_like(Z)
    for position in range(n):
        sorted_Z[position] = Z[order[position]]
    for position in prange(n):
        i = order[position]
        total = 0.0
        f0 = 0.0
        f1 = 0.0
        for offset in range(n_offsets):
            other = _neighbour_box(box[i], offset, n_boxes, d)
            if other < 0:
                continue
            for e in range(starts[other], starts[other + 1]):
                if e == position:
                    continue
                x0 = sorted_Z[position, 0] - sorted_Z[e, 0]
                x1 = sorted_Z[position, 1] - sorted_Z[e, 1] if d == 2 else 0.0
                w, t = kernel_and_force(x0 * x0 + x1 * x1, dof)
                total += w
                f0 += w * t * x0
                f1 += w * t * x1
        out[i, 0] = total
        out[i, 1] = f0
        if d == 2:
            out[i, 2] = f1


def _near_blocks(grid, d, dof):
    """Kernel values between the nodes of a box and those of each neighbouring box.

    Returns ``force`` and ``w`` of shape (3^d, p^d, p^d): [offset, target node, source
    node], and the flat index of each local node relative to its box's first node.
    """
    p = grid.p
    local = np.array(np.unravel_index(np.arange(p**d), (p,) * d)).T  # (p^d, d)
    shifts = np.array(np.unravel_index(np.arange(3**d), (3,) * d)).T - 1  # (3^d, d)
    node_offsets = (
        local[None, :, None, :] - local[None, None, :, :] - p * shifts[:, None, None, :]
    )
    sq = np.sum((node_offsets * grid.spacing) ** 2, axis=-1)
    force, w = _kernel_tables(sq, dof)
    flat = local[:, 0] if d == 1 else local[:, 0] * grid.n_padded + local[:, 1]
    return force, w, flat


@njit(cache=True, parallel=True)
def _near_on_grid(charges, force, w, local, starts, n_boxes, p, row_length, out):
    """What the grid convolution adds between neighbouring boxes, at the occupied boxes.

    ``out`` (channels + 1 x nodes) receives, for each node of a box holding points, the
    sum over the nodes of the 3^d boxes around it of kernel x charge; subtracting it
    leaves the far field. Charges are channels 0..d; the extra output channel is w with
    charge 0. Each source node's charges are read once and each box is summed in a local
    buffer.
    """
    n_channels = charges.shape[0]
    n_local = local.shape[0]
    d = 1 if n_local == p else 2
    n_cells = starts.shape[0] - 1
    for parallel_index in prange(n_cells):
        b = np.int64(parallel_index)  # prange indices are unsigned
        if starts[b + 1] == starts[b]:
            continue  # no point reads these nodes
        acc = np.zeros((n_local, n_channels + 1))
        q = np.empty(n_channels)
        for offset in range(force.shape[0]):
            other = _neighbour_box(b, offset, n_boxes, d)
            if other < 0 or starts[other + 1] == starts[other]:
                continue  # no charge there
            source_base = _box_base(other, n_boxes, p, row_length, d)
            for c in range(n_local):
                for ch in range(n_channels):
                    q[ch] = charges[ch, source_base + local[c]]
                for a in range(n_local):
                    kf = force[offset, a, c]
                    for ch in range(n_channels):
                        acc[a, ch] += kf * q[ch]
                    acc[a, n_channels] += w[offset, a, c] * q[0]
        base = _box_base(b, n_boxes, p, row_length, d)
        for a in range(n_local):
            for ch in range(n_channels + 1):
                out[ch, base + local[a]] = acc[a, ch]


@njit(cache=True)
def _box_base(box, n_boxes, p, row_length, d):
    """Flat index of the first node of ``box`` in the padded grid."""
    if d == 1:
        return box * p
    return (box // n_boxes) * p * row_length + (box % n_boxes) * p


# ------------------------------------------------------------------------ the sums


def repulsion(Z, dof, grid=None):
    """Interpolated sums s_i = sum_j w_ij and r_i = sum_j w_ij w_ij^(1/alpha) (z_i -
    z_j).

    Parameters
    ----------
    Z : ndarray of shape (n, d), d in {1, 2}
    dof : float
        Degrees of freedom of the kernel (``np.inf``: Gaussian).
    grid : Grid, optional
        ``make_grid(Z)`` by default.

    Returns
    -------
    s : ndarray of shape (n,)
    r : ndarray of shape (n, d)
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n, d = Z.shape
    dof = float(dof)
    grid = make_grid(Z) if grid is None else grid
    first = np.empty((n, d), dtype=np.int64)
    weights = np.empty((n, d, grid.p))
    _weights(Z, grid.lower, grid.box_width, grid.n_boxes, grid.p, first, weights)
    charges = np.zeros((d + 1,) + (grid.n_padded,) * d)
    flat_charges = charges.reshape(d + 1, -1)
    _spread(
        first, weights, np.hstack([np.ones((n, 1)), Z]), grid.n_padded, flat_charges
    )
    potential = np.ascontiguousarray(_convolve(charges, grid, d, dof)).reshape(
        d + 2, -1
    )
    exact = np.zeros((n, d + 1))
    if grid.exact_near_field:
        box, order, starts = _box_of_points(first, grid.p, grid.n_boxes)
        near = np.zeros_like(potential)
        force, w, local = _near_blocks(grid, d, dof)
        _near_on_grid(
            flat_charges,
            force,
            w,
            local,
            starts,
            grid.n_boxes,
            grid.p,
            grid.n_padded,
            near,
        )
        potential -= near
        _near_exact(Z, box, order, starts, grid.n_boxes, dof, exact)
    at_points = np.empty((n, d + 2))
    _gather(first, weights, potential, grid.n_padded, at_points)
    r = Z * at_points[:, :1] - at_points[:, 1 : d + 1] + exact[:, 1:]
    s = at_points[:, d + 1] + exact[:, 0]
    if not grid.exact_near_field:
        s -= 1.0  # the grid included each point's own w = 1 (no force)
    return s, r
