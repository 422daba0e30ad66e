"""Barnes–Hut approximation of the repulsive half of the t-SNE gradient, in numba.

The map points go into a 2^d-tree (a binary tree for a 1-D map, a quadtree in 2-D, an
octree in 3-D): the root cell is the bounding cube of the points, and a cell that holds
two points at different places is split into 2^d children of half its side. Every cell
keeps the number of points under it and their centre of mass.

The repulsion on point i needs, over all j != i, the sums

    s_i = sum_j w_ij                         (their total is the normalisation Z of
    q_ij) r_i = sum_j w_ij w_ij^(1/alpha) (z_i - z_j)

A walk from the root adds a whole cell as if its n_c points sat at their centre of mass
whenever the cell looks small from z_i, side / distance < theta (van der Maaten 2014),
and opens it otherwise; leaves are always added. theta = 0 opens every cell: the sums
are then exact. Points at the same place share a leaf (duplicates are allowed). The tree
is built sequentially, O(N log N); the walks run in parallel, one point per task, each
writing only its own row, so the result does not depend on the number of threads. See
book/07_sne_tsne.
"""

import numpy as np
from numba import njit, prange

from dr_lib._tsne_attraction import kernel_and_force

__all__ = ["MAX_DEPTH", "Tree", "morton_order", "build_tree", "repulsion"]

#: Cells are split at most this many times: after 52 halvings (the bits of a float64
#: mantissa) two points still in one cell are, for the kernel, the same point.
MAX_DEPTH = 52

#: Points handled per parallel task of the walk (each task owns one stack).
WALK_CHUNK = 64


@njit(cache=True)
def _grow(a, capacity):
    """A copy of ``a`` with room for ``capacity`` rows."""
    out = np.empty((capacity,) + a.shape[1:], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _child_of(z, centre):
    """Index (0 .. 2^d - 1) of the child cell of a cell with this centre that holds
    z."""
    c = 0
    for k in range(z.shape[0]):
        if z[k] >= centre[k]:
            c |= 1 << k
    return c


@njit(cache=True)
def _same_place(a, b):
    for k in range(a.shape[0]):
        if a[k] != b[k]:
            return False
    return True


@njit(cache=True)
def morton_order(Z):
    """The points sorted along a Z-order (Morton) curve: nearby points get nearby ranks.

    Each coordinate is scaled to a 20-bit integer over the bounding cube and the bits of
    the coordinates are interleaved; sorting by that key walks the cells of the tree in
    depth-first order. Inserting and walking the points in this order keeps the cells
    that consecutive points touch in cache.
    """
    n, d = Z.shape
    bits = 20
    lo = np.empty(d)
    side = 0.0
    for k in range(d):
        lo[k] = Z[:, k].min()
        side = max(side, Z[:, k].max() - lo[k])
    scale = (2**bits - 1) / side if side > 0 else 0.0
    keys = np.zeros(n, dtype=np.int64)
    for i in range(n):
        key = 0
        for k in range(d):
            q = np.int64((Z[i, k] - lo[k]) * scale)
            for b in range(bits):
                key |= ((q >> b) & 1) << (b * d + k)
        keys[i] = key
    return np.argsort(keys)


@njit(cache=True)
def _build(Z, order):
    n, d = Z.shape
    n_children = 1 << d
    capacity = 4 * n + n_children + 1
    centre = np.empty((capacity, d))
    half = np.empty(capacity)
    first_child = np.full(capacity, -1, dtype=np.int64)
    count = np.zeros(capacity, dtype=np.int64)
    mass = np.zeros((capacity, d))  # sum of the points, divided by count at the end
    point = np.full(capacity, -1, dtype=np.int64)

    lo = np.empty(d)
    hi = np.empty(d)
    for k in range(d):
        lo[k] = Z[:, k].min()
        hi[k] = Z[:, k].max()
    side = 0.0
    for k in range(d):
        centre[0, k] = 0.5 * (lo[k] + hi[k])
        side = max(side, hi[k] - lo[k])
    half[0] = max(0.5 * side * (1.0 + 1e-9), 1e-300)
    n_nodes = 1

    for p in order:
        node = 0
        depth = 0
        while True:
            count[node] += 1
            for k in range(d):
                mass[node, k] += Z[p, k]
            if first_child[node] == -1:  # a leaf
                if count[node] == 1:
                    point[node] = p
                    break
                q = point[node]
                if _same_place(Z[p], Z[q]) or depth >= MAX_DEPTH:
                    break  # p joins the points already here
                if n_nodes + n_children > capacity:
                    capacity *= 2
                    centre = _grow(centre, capacity)
                    half = _grow(half, capacity)
                    first_child = _grow(first_child, capacity)
                    count = _grow(count, capacity)
                    mass = _grow(mass, capacity)
                    point = _grow(point, capacity)
                first = n_nodes
                n_nodes += n_children
                for c in range(n_children):
                    child = first + c
                    half[child] = 0.5 * half[node]
                    for k in range(d):
                        sign = 1.0 if (c >> k) & 1 else -1.0
                        centre[child, k] = centre[node, k] + sign * half[child]
                        mass[child, k] = 0.0
                    first_child[child] = -1
                    count[child] = 0
                    point[child] = -1
                first_child[node] = first
                # the points that were here (copies of z_q) move down together
                moved = first + _child_of(Z[q], centre[node])
                count[moved] = count[node] - 1
                for k in range(d):
                    mass[moved, k] = Z[q, k] * (count[node] - 1)
                point[moved] = q
                point[node] = -1
            node = first_child[node] + _child_of(Z[p], centre[node])
            depth += 1

    for i in range(n_nodes):
        if count[i] > 0:
            for k in range(d):
                mass[i, k] /= count[i]
    return first_child[:n_nodes], half[:n_nodes], count[:n_nodes], mass[:n_nodes]


class Tree:
    """A built 2^d-tree: per cell its first child (-1 for a leaf), half side, point
    count and centre of mass. Cell 0 is the root; the children of a cell are
    consecutive. ``order`` is the Morton order in which the points were inserted."""

    def __init__(self, first_child, half, count, centre_of_mass, order):
        self.first_child = first_child
        self.half = half
        self.count = count
        self.centre_of_mass = centre_of_mass
        self.order = order

    @property
    def n_cells(self):
        return len(self.count)


def build_tree(Z):
    """The Barnes–Hut tree of the map points ``Z`` (shape (n, d), 1 <= d <= 3).

    Returns
    -------
    Tree
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    order = morton_order(Z)
    return Tree(*_build(Z, order), order)


@njit(cache=True, inline="always")
def _coordinate(A, row, k, d):
    """A[row, k], or 0 for an axis the map does not have (k >= d)."""
    return A[row, k] if k < d else 0.0


@njit(cache=True, parallel=True)
def _walk(first_child, half, count, com, Zq, order, theta, dof, r, s):
    # Coordinates are held in three scalars (0 for missing axes) rather than small
    # arrays, so that they stay in registers; for d = 2 this halves the time of the
    # walk.
    n, d = Zq.shape
    n_children = 1 << d
    n_chunks = (n + WALK_CHUNK - 1) // WALK_CHUNK
    theta2 = theta * theta
    for chunk in prange(n_chunks):
        stack = np.empty((MAX_DEPTH + 2) * n_children, dtype=np.int64)
        for position in range(chunk * WALK_CHUNK, min(n, (chunk + 1) * WALK_CHUNK)):
            i = order[position]
            z0 = Zq[i, 0]
            z1 = _coordinate(Zq, i, 1, d)
            z2 = _coordinate(Zq, i, 2, d)
            f0 = 0.0
            f1 = 0.0
            f2 = 0.0
            total = 0.0
            stack[0] = 0
            top = 1
            while top > 0:
                top -= 1
                node = stack[top]
                n_c = count[node]
                if n_c == 0:
                    continue
                x0 = z0 - com[node, 0]
                x1 = z1 - _coordinate(com, node, 1, d)
                x2 = z2 - _coordinate(com, node, 2, d)
                d2 = x0 * x0 + x1 * x1 + x2 * x2
                side = 2.0 * half[node]
                if first_child[node] == -1 or side * side < theta2 * d2:
                    w, t = kernel_and_force(d2, dof)
                    total += n_c * w
                    f = n_c * w * t
                    f0 += f * x0
                    f1 += f * x1
                    f2 += f * x2
                else:
                    first = first_child[node]
                    for c in range(n_children):
                        stack[top] = first + c
                        top += 1
            s[i] = total
            r[i, 0] = f0
            if d > 1:
                r[i, 1] = f1
            if d > 2:
                r[i, 2] = f2


def repulsion(tree, Z, theta, dof, *, in_tree=True):
    """Barnes–Hut sums s_i = sum_j w_ij and r_i = sum_j w_ij w_ij^(1/alpha) (z_i - z_j).

    Parameters
    ----------
    tree : Tree
        Built from the reference points (the map itself, or a fixed map when new points
        are placed).
    Z : ndarray of shape (n, d)
        The points whose repulsion is wanted.
    theta : float
        Opening angle; 0 gives the exact sums.
    dof : float
        Degrees of freedom of the kernel (``np.inf``: Gaussian).
    in_tree : bool, default=True
        Whether every row of ``Z`` is itself in the tree; its own term (w = 1 at
        distance 0, no force) is then removed from s_i.

    Returns
    -------
    s : ndarray of shape (n,)
    r : ndarray of shape (n, d)
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    s = np.empty(len(Z))
    r = np.empty_like(Z)
    _walk(
        tree.first_child,
        tree.half,
        tree.count,
        tree.centre_of_mass,
        Z,
        tree.order if in_tree else morton_order(Z),
        float(theta),
        float(dof),
        r,
        s,
    )
    if in_tree:
        s -= 1.0
    return s, r
