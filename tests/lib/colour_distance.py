"""Colours as a reader sees them: CSS filter functions and the CIEDE2000 difference.

Plain functions for the tests of the figures' colours in dark mode
(``_static/house.css`` inverts every figure with a chain of CSS filter functions).
The filter functions follow the Filter Effects Module Level 1 (W3C), which browsers
apply to gamma-encoded sRGB values, clamping after each function; the colour difference
is CIEDE2000 (Sharma, Wu & Dalal 2005) in CIE Lab under D65.
"""

import math
import re

import numpy as np

#: sRGB (linear) to CIE XYZ, D65 white.
_SRGB_TO_XYZ = np.array(
    [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
)
_D65 = np.array([0.95047, 1.0, 1.08883])
#: Luminance weights of the filter functions' matrices.
_LUMA = np.array([0.213, 0.715, 0.072])


def hex_to_rgb(colour):
    """'#RRGGBB' -> sRGB values in [0, 1]."""
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255


def _hue_rotate(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    base = np.tile(_LUMA, (3, 1))
    cos_part = np.eye(3) - base
    sin_part = np.array(
        [[-0.213, -0.715, 0.928], [0.143, 0.140, -0.283], [-0.787, 0.715, 0.072]]
    )
    return base + c * cos_part + s * sin_part


def _saturate(amount):
    base = np.tile(_LUMA, (3, 1))
    return base + amount * (np.eye(3) - base)


def _amount(argument):
    argument = argument.strip()
    return float(argument[:-1]) / 100 if argument.endswith("%") else float(argument)


def apply_css_filter(rgb, css_filter):
    """The colour ``rgb`` (sRGB in [0, 1]) after ``css_filter``, e.g.
    ``"invert(0.9) hue-rotate(180deg) saturate(1.5) brightness(1.2)"``."""
    rgb = np.asarray(rgb, dtype=float)
    for name, argument in re.findall(r"([a-z-]+)\(([^)]*)\)", css_filter):
        if name == "invert":
            a = _amount(argument)
            rgb = a + (1 - 2 * a) * rgb
        elif name == "hue-rotate":
            rgb = _hue_rotate(float(argument.strip().removesuffix("deg"))) @ rgb
        elif name == "saturate":
            rgb = _saturate(_amount(argument)) @ rgb
        elif name == "brightness":
            rgb = _amount(argument) * rgb
        else:
            raise ValueError(f"filter function {name!r} is not modelled here")
        rgb = np.clip(rgb, 0, 1)
    return rgb


def to_lab(rgb):
    """CIE L*a*b* (D65) of an sRGB colour in [0, 1]."""
    rgb = np.asarray(rgb, dtype=float)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = _SRGB_TO_XYZ @ linear / _D65
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _mean_hue(h1, h2, both_chromatic):
    if not both_chromatic:
        return h1 + h2
    if abs(h1 - h2) <= 180:
        return (h1 + h2) / 2
    return (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2


def ciede2000(lab1, lab2):
    """The CIEDE2000 colour difference of two CIE Lab colours (1 is about the smallest
    difference a reader notices side by side)."""
    (L1, a1, b1), (L2, a2, b2) = lab1, lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360
    h2 = math.degrees(math.atan2(b2, a2)) % 360
    both_chromatic = c1 * c2 != 0
    dh = h2 - h1 if both_chromatic else 0.0
    dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_hue = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    L_mean, c_mean = (L1 + L2) / 2, (c1 + c2) / 2
    h_mean = _mean_hue(h1, h2, both_chromatic)
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    s_l = 1 + 0.015 * (L_mean - 50) ** 2 / math.sqrt(20 + (L_mean - 50) ** 2)
    s_c = 1 + 0.045 * c_mean
    s_h = 1 + 0.015 * c_mean * t
    r_c = 2 * math.sqrt(c_mean**7 / (c_mean**7 + 25**7))
    r_t = -math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))) * r_c
    dl, dc, dhh = (L2 - L1) / s_l, (c2 - c1) / s_c, d_hue / s_h
    return math.sqrt(dl**2 + dc**2 + dhh**2 + r_t * dc * dhh)


def closest_pair(colours):
    """(difference, i, j): the two of ``colours`` (sRGB in [0, 1]) that are closest
    by CIEDE2000."""
    labs = [to_lab(c) for c in colours]
    return min(
        (ciede2000(labs[i], labs[j]), i, j)
        for i in range(len(labs))
        for j in range(i + 1, len(labs))
    )
