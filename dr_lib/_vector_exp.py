"""exp(x) for a row of x <= 0, written so that the compiler can vectorise it.

NeRV and ClassNeRV take one exponential per ordered pair and iteration
(``nerv._block_stress_gradient``). numba calls the C library's scalar ``exp`` for
``np.exp`` in a loop (its vectorised SVML routines need an LLVM build that pip's
llvmlite is not), and that call was half of the kernel's time. Here the exponential is
built from operations that AVX2 executes four at a time:

1. Range reduction (Cody & Waite): k = round(x / ln 2), r = x - k ln 2 with ln 2 split
   in a high part with a short mantissa (k ln2_hi is exact) and a low correction, so
   that |r| <= ln(2) / 2 and exp(x) = 2^k exp(r).
2. exp(r) by its Taylor polynomial of degree 12 in Horner form: the relative remainder
   is below (ln 2 / 2)^13 / 13! * sqrt(2) < 2.4e-16. With the rounding of the Horner
   steps and of the final product, the largest relative error measured against a
   40-digit exponential is about 3.4e-16, a little over 2 units in the last place (the
   book's check allows 1e-15).
3. 2^k by writing the exponent bits (k + 1023) << 52 of a double. k itself comes from
   the "shifter" 1.5 * 2^52: adding it to x / ln 2 rounds to an integer that sits in the
   low bits of the sum's mantissa, so no float-to-integer conversion is needed.

Inputs below -708 (where 2^k would leave the normal range) give 0: their true value is
under 3.3e-308, negligible beside the row's largest term, exp(0) = 1. -inf gives 0.
The function compiles without the ``reassoc`` fast-math flag, which would fold
(t + shifter) - shifter into t and break step 3. See book/08_nerv_classnerv.
"""

import numpy as np
from numba import njit

__all__ = ["exp_nonpositive"]

LOG2_E = 1.4426950408889634
#: ln 2 = LN2_HI + LN2_LO; LN2_HI has 32 significant bits, so k * LN2_HI is exact.
LN2_HI = 0.6931471803691238
LN2_LO = 1.9082149292705877e-10
#: 1.5 * 2^52: x + SHIFTER rounds x to an integer stored in the low mantissa bits.
SHIFTER = 6755399441055744.0
SHIFTER_BITS = int(np.float64(SHIFTER).view(np.int64))
#: Below this argument the result is returned as 0 (exp(-708) = 3.3e-308).
LOWEST = -708.0
#: 1/n! for n = 12, 11, ..., 2: the Taylor coefficients of exp, highest degree first.
TAYLOR = tuple(1.0 / float(np.prod(np.arange(1, n + 1))) for n in range(12, 1, -1))


@njit(cache=True, fastmath={"contract", "nsz"})
def exp_nonpositive(x, out, scratch):
    """out[j] = exp(x[j]) for every x[j] <= 0 (or -inf), within 2 units in the last
    place.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Arguments, all <= 0; it is only read.
    out : ndarray of shape (n,)
        Receives the exponentials; must not be ``x`` or ``scratch``.
    scratch : ndarray of shape (n,)
        Work space, overwritten.
    """
    n = x.shape[0]
    for j in range(n):  # k = round(x / ln 2), held as k + SHIFTER
        v = x[j] if x[j] > LOWEST else LOWEST
        scratch[j] = v * LOG2_E + SHIFTER
    shifted_bits = scratch.view(np.int64)
    out_bits = out.view(np.int64)
    for j in range(n):  # out = 2^k, from its exponent bits
        out_bits[j] = (shifted_bits[j] - SHIFTER_BITS + 1023) << 52
    for j in range(n):  # out *= exp(r)
        keep = x[j] > LOWEST
        v = x[j] if keep else LOWEST
        k = scratch[j] - SHIFTER
        r = (v - k * LN2_HI) - k * LN2_LO
        p = TAYLOR[0]
        for c in TAYLOR[1:]:
            p = p * r + c
        p = (p * r + 1.0) * r + 1.0
        out[j] = p * out[j] if keep else 0.0
