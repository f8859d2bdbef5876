"""The simulator's float Exp (docs/simulator.md, "Numerics"): within 0.9 ulp of e^x wherever the
result is a normal float, libm's expf past |x| = 87 (overflow, subnormal and zero results,
infinities, NaN), and the same bits on every SIMD width as the scalar definition ExpF, in place
and not, over tails of every length.

The accuracy test runs a sample of every 251st float bit pattern (17 million values);
OPGEN_EXP_EXHAUSTIVE=1 runs all 2^32."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path

import numpy as np
import pytest

from .exp_ref import exp_scalar, exp_width, library

WIDTHS = (0, 16, 8, 4)
RNG = np.random.default_rng(87)
_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.expf.restype = ctypes.c_float
_LIBM.expf.argtypes = [ctypes.c_float]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    return library(Path(tmp_path_factory.mktemp("exp_ref")))


def edges() -> np.ndarray:
    """The fast path's bound (87) on both sides, expf's overflow and underflow edges, zeros,
    subnormals, infinities and NaNs with payloads."""
    around = np.array([87.0, -87.0, 88.72283, -87.33654, -103.97208, 88.0, -88.0], np.float32)
    steps = [np.nextafter(around, np.float32(s)) for s in (np.inf, -np.inf)]
    fixed = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38,
                      np.inf, -np.inf, 1e-8, -1e-8, 20.0, -20.0], np.float32)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFF800001], np.uint32).view(np.float32)
    return np.concatenate([around, *steps, fixed, nans])


def same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("width", WIDTHS)
def test_every_width_gives_the_scalar_definitions_bits(lib: ctypes.CDLL, width: int) -> None:
    bits = RNG.integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32).copy()
    x[: 1 << 19] = RNG.uniform(-100.0, 100.0, 1 << 19).astype(np.float32)
    x[: edges().size] = edges()
    want = exp_scalar(lib, x)
    got = exp_width(lib, width, x)
    if got is None:
        pytest.skip(f"this host lacks the {width}-lane instructions")
    bad = np.flatnonzero(~same_bits(got, want))
    assert bad.size == 0, f"x={x[bad[0]]!r}: {got[bad[0]]!r} != {want[bad[0]]!r}"


@pytest.mark.parametrize("width", WIDTHS)
def test_tails_and_in_place(lib: ctypes.CDLL, width: int) -> None:
    """Spans of every length up to 40 (and one shifted start), in place and not: each lane its
    ExpF, and nothing past the span written."""
    pool = np.concatenate([edges(), RNG.uniform(-90.0, 90.0, 64).astype(np.float32)])
    for n in range(41):
        x = RNG.permutation(pool)[:n].copy()
        want = exp_scalar(lib, x)
        buf = np.full(n + 24, np.float32(-7.0))
        if exp_width(lib, width, x, buf[3 : 3 + n]) is None:
            pytest.skip(f"this host lacks the {width}-lane instructions")
        assert same_bits(buf[3 : 3 + n], want).all(), n
        assert (buf[:3] == -7.0).all() and (buf[3 + n :] == -7.0).all(), n
        inplace = x.copy()
        exp_width(lib, width, inplace, inplace)
        assert same_bits(inplace, want).all(), n


def ulp_errors(x: np.ndarray, got: np.ndarray) -> np.ndarray:
    """|got - e^x| in ulps of e^x, for the lanes whose exact result is a normal float."""
    exact = np.exp(x.astype(np.float64))
    ulp = np.ldexp(1.0, np.frexp(exact)[1] - 24)
    return np.abs(got.astype(np.float64) - exact) / ulp


def test_within_nine_tenths_of_an_ulp_and_libm_past_87(lib: ctypes.CDLL) -> None:
    step = 1 if os.environ.get("OPGEN_EXP_EXHAUSTIVE") == "1" else 251
    worst = 0.0
    chunk = step << 24
    for start in range(0, 1 << 32, chunk):
        bits = np.arange(start, min(start + chunk, 1 << 32), step, dtype=np.uint64)
        x = bits.astype(np.uint32).view(np.float32)
        got = exp_width(lib, 0, x)
        assert got is not None
        fast = np.abs(x) <= 87.0
        errors = ulp_errors(x[fast], got[fast])
        worst = max(worst, float(errors.max(initial=0.0)))
        assert errors.max(initial=0.0) < 0.9, x[fast][np.argmax(errors)]
        slow = x[~fast & ~np.isnan(x)]
        if slow.size:
            picks = slow[:: max(1, slow.size // 2000)]
            want = np.array([_LIBM.expf(float(v)) for v in picks], np.float32)
            assert same_bits(got[~fast & ~np.isnan(x)][:: max(1, slow.size // 2000)], want).all()
        assert np.isnan(got[np.isnan(x)]).all()
    assert worst > 0.5  # the sample reaches the rounding's worst cases: the bound is not loose
